"""`validate`: the spec, the curation file and every artifact on disk against its schema.

Read-only. Every problem is listed (path and what is wrong); any problem makes the call a data error
(exit 2) whose details carry the full list, so a script can act on each one.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import curation, spec as spec_mod
from ..errors import B2GError, DataError
from ..networks.schema import EDGES, EVIDENCE, NODES
from ..paths import CURATION_FILE
from ..tables import BUNDLE_TABLES, CANDIDATES, SCREENING, SEEDS, read_table
from .result import Result
from .workspace import Workspace

_FIXED = {"seed/seeds.parquet": SEEDS, "chain/candidates.parquet": CANDIDATES,
          "corpus/screening.parquet": SCREENING,
          **{f"{folder}/{name}.parquet": schema for folder in ("chain/pool", "corpus")
             for name, schema in BUNDLE_TABLES.items()}}


def _schemas(results: Path) -> dict[str, object]:
    found = dict(_FIXED)
    for folder in sorted((results / "networks").glob("*")):
        kind = folder.name
        found[f"networks/{kind}/nodes.parquet"] = NODES
        found[f"networks/{kind}/edges.parquet"] = EDGES
        if kind in EVIDENCE:
            found[f"networks/{kind}/evidence.parquet"] = EVIDENCE[kind]
    return found


def validate_workspace(ws: Workspace) -> Result:
    problems: list[dict[str, str]] = []
    checked: list[dict[str, object]] = []

    def attempt(path: str, check) -> None:
        try:
            rows = check()
            checked.append({"path": path, "rows": rows})
        except B2GError as exc:
            problems.append({"path": path, "code": exc.code, "message": exc.message})

    def spec_check() -> None:
        spec_mod.load(ws.spec_path)

    attempt("config/research.yaml", spec_check)
    attempt(CURATION_FILE, lambda: len(curation.read(ws.path(CURATION_FILE))))
    results = ws.path("results")
    for relative, schema in _schemas(results).items():
        path = results / relative
        if path.is_file():
            attempt(f"results/{relative}", lambda path=path, schema=schema: len(read_table(path, schema)))
    for path in sorted(results.rglob("*.json")) if results.is_dir() else []:
        def parse(path=path):
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise DataError(f"not valid JSON: {exc}", code="ARTIFACT_CORRUPT") from None
        attempt(str(path.relative_to(ws.root)), parse)
    if problems:
        raise DataError(f"{len(problems)} problem(s): " + "; ".join(f"{p['path']}: {p['message']}"
                                                                    for p in problems[:3]),
                        code="VALIDATION_FAILED", details={"problems": problems})
    return Result(data={"workspace": ws.describe(), "checked": checked, "problems": []},
                  warnings=ws.warnings())
