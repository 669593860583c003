"""`prisma`: the PRISMA 2020 counts of the last corpus build, as the corpus phase wrote them."""

from __future__ import annotations

import json

from ..errors import DataError
from .result import Result
from .workspace import Workspace

PRISMA_FILE = "results/corpus/prisma.json"


def read_prisma(ws: Workspace) -> Result:
    """`results/corpus/prisma.json`: identified, duplicates removed, screened, excluded, included."""
    path = ws.path(PRISMA_FILE)
    if not path.is_file():
        raise DataError(f"no PRISMA counts yet ({path} is missing); `b2g run corpus` writes them",
                        code="ARTIFACT_MISSING", details={"file": str(path)})
    try:
        counts = json.loads(path.read_text(encoding="utf-8"), parse_constant=_not_json)
    except ValueError as exc:
        raise DataError(f"cannot read {path}: {exc}; `b2g run corpus` rebuilds it", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)]}) from None
    if not isinstance(counts, dict):
        raise DataError(f"{path} holds {type(counts).__name__}, not the PRISMA counts; `b2g run corpus` rebuilds "
                        "it (delete the file if it was edited by hand)", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)]})
    return Result(data={"workspace": ws.describe(), "prisma": counts}, warnings=ws.warnings())


def _not_json(constant: str) -> None:
    """NaN and Infinity, which Python's json reads but no other JSON reader does (nor counts are)."""
    raise ValueError(f"{constant} is not JSON")
