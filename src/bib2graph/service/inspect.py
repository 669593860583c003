"""`inspect`: one work, with where it came from, what screening and curation said, and where it sits
in each network. Read-only: it queries the Parquet artifacts with DuckDB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import curation, query
from ..errors import DataError
from ..paths import CURATION_FILE
from .artifacts import read_json_object
from .curate import resolve_ids, shown
from .result import Result
from .search import pool_paths
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


NEIGHBOURS = 20


def neighbours(folder: Path, work_id: str, directed: bool) -> list[dict[str, Any]]:
    """The NEIGHBOURS strongest links of a node (weight, count, then ID), with the other end's label;
    in a directed network `direction` says whether the work cites it (out) or is cited by it (in)."""
    found = query.records("""
        WITH e AS (SELECT CASE WHEN source = ? THEN target ELSE source END AS id, weight, count,
                          CASE WHEN source = ? THEN 'out' ELSE 'in' END AS direction
                   FROM read_parquet(?) WHERE source = ? OR target = ?)
        SELECT e.id, n.label, e.weight, e.count, e.direction FROM e LEFT JOIN read_parquet(?) n ON n.node_id = e.id
        ORDER BY e.weight DESC, e.count DESC, e.id, e.direction LIMIT ?""",
                          [work_id, work_id, str(folder / "edges.parquet"), work_id, work_id,
                           str(folder / "nodes.parquet"), NEIGHBOURS])
    return [row if directed else {k: v for k, v in row.items() if k != "direction"} for row in found]


def inspect_work(ws: Workspace, raw_id: str) -> Result:
    works_table, authorships = pool_paths(ws)     # before the chain phase no ID is known: say so, not "unknown"
    ids, warnings = resolve_ids(ws, [raw_id], undone=None)
    work_id = ids[0]
    results = ws.path("results")
    work = _one(Path(works_table), "work_id", work_id)
    if work is None:
        raise DataError(f"{shown(raw_id)} is not among this workspace's pooled works", code="UNKNOWN_ID")
    authors = [r[0] for r in query.rows(
        "SELECT author_name FROM read_parquet(?) WHERE work_id = ? ORDER BY position", [authorships, work_id])]
    seed = _one(results / "seed/seeds.parquet", "work_id", work_id)
    candidate = _one(results / "chain/candidates.parquet", "work_id", work_id)
    screening = _one(results / "corpus/screening.parquet", "work_id", work_id)
    decision = curation.read(ws.path(CURATION_FILE)).get(work_id)
    networks, linked = {}, {}
    for metrics in sorted((results / "networks").glob("*/metrics.json")):
        node = _one(metrics.parent / "nodes.parquet", "node_id", work_id,
                    "cluster, degree, strength, pagerank, betweenness")
        if node is not None:
            about = read_json_object(metrics)
            kind = metrics.parent.name      # the folder names the network; metrics.json says it too
            networks[kind] = node
            if (metrics.parent / "edges.parquet").is_file():
                linked[kind] = neighbours(metrics.parent, work_id, bool(about.get("directed")))
    origin = ({"origin": "seed", "seeded_by": seed["seeded_by"]} if seed else
              {"origin": "chain", **{k: candidate[k] for k in ("round", "direction", "via", "links", "score")}}
              if candidate else {"origin": None})
    data = {"workspace": ws.describe(), "work": {**work, "authors": authors}, "provenance": origin,
            "screening": screening, "decision": curation.as_rows({work_id: decision})[0] if decision else None,
            "networks": networks, "neighbours": linked}
    return Result(data=data, warnings=ws.warnings() + warnings)
