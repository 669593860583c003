"""`prisma`: the PRISMA 2020 counts of the last corpus build, as the corpus phase wrote them."""

from __future__ import annotations

from ..errors import DataError
from .artifact_schemas import PRISMA
from .artifacts import read_json_object
from .result import Result
from .workspace import Workspace

PRISMA_FILE = "results/corpus/prisma.json"


def read_prisma(ws: Workspace) -> Result:
    """`results/corpus/prisma.json`: identified, duplicates removed, screened, excluded, included."""
    path = ws.path(PRISMA_FILE)
    if not path.is_file():
        raise DataError(f"no PRISMA counts yet ({path} is missing); `b2g run corpus` writes them",
                        code="ARTIFACT_MISSING", details={"file": str(path)})
    counts = read_json_object(path, "`b2g run corpus`", finite=True, schema=PRISMA)
    return Result(data={"workspace": ws.describe(), "prisma": counts}, warnings=ws.warnings())

