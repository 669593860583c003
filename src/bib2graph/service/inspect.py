"""`inspect`: one work, with where it came from, what screening and curation said, and where it sits
in each network. Read-only: it queries the Parquet artifacts with DuckDB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import curation, query
from ..errors import DataError
from ..paths import CURATION_FILE
from .curate import resolve_ids
from .result import Result
from .workspace import Workspace


def _one(path: Path, key: str, value: str, columns: str = "*") -> dict[str, Any] | None:
    if not path.is_file():
        return None
    with_names = query.rows(f"SELECT {columns} FROM read_parquet(?) WHERE \"{key}\" = ? LIMIT 1",
                            [str(path), value])
    if not with_names:
        return None
    names = [r[0] for r in query.rows(f"DESCRIBE SELECT {columns} FROM read_parquet(?)", [str(path)])]
    return {n: (v.item() if hasattr(v, "item") else v) for n, v in zip(names, with_names[0])}


def inspect_work(ws: Workspace, raw_id: str) -> Result:
    ids, warnings = resolve_ids(ws, [raw_id])
    work_id = ids[0]
    results = ws.path("results")
    work = _one(results / "chain/pool/works.parquet", "work_id", work_id)
    if work is None:
        raise DataError(f"{raw_id} is not among this workspace's pooled works", code="UNKNOWN_ID")
    authors = [r[0] for r in query.rows(
        "SELECT author_name FROM read_parquet(?) WHERE work_id = ? ORDER BY position",
        [str(results / "chain/pool/authorships.parquet"), work_id])]
    seed = _one(results / "seed/seeds.parquet", "work_id", work_id)
    candidate = _one(results / "chain/candidates.parquet", "work_id", work_id)
    screening = _one(results / "corpus/screening.parquet", "work_id", work_id)
    decision = curation.read(ws.path(CURATION_FILE)).get(work_id)
    networks = {}
    for metrics in sorted((results / "networks").glob("*/metrics.json")):
        node = _one(metrics.parent / "nodes.parquet", "node_id", work_id,
                    "cluster, degree, strength, pagerank, betweenness")
        if node is not None:
            networks[json.loads(metrics.read_text(encoding="utf-8"))["kind"]] = node
    origin = ({"origin": "seed", "seeded_by": seed["seeded_by"]} if seed else
              {"origin": "chain", **{k: candidate[k] for k in ("round", "direction", "via", "links", "score")}}
              if candidate else {"origin": None})
    data = {"workspace": ws.describe(), "work": {**work, "authors": authors}, "provenance": origin,
            "screening": screening, "decision": curation.as_rows({work_id: decision})[0] if decision else None,
            "networks": networks}
    return Result(data=data, warnings=ws.warnings() + warnings)
