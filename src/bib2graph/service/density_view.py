"""`density` (API only: the map's density view): VOSviewer's item density of one network's layout.

The grid is `bib2graph.density.item_density` over the layout's positions (results/layouts/<kind>/), each
node weighted by one of the map's size metrics (nodes.parquet); read-only, computed on each call (a
128 × 128 grid: milliseconds).
"""

from __future__ import annotations

import numpy as np

from .. import query
from ..density import item_density
from ..errors import DataError, UsageError
from .network_view import layout_path, network_folder
from .result import Result
from .workspace import Workspace

METRICS = ("strength", "degree", "pagerank", "betweenness", "occurrences")   # the map's "size by" choices


def density(ws: Workspace, kind: str, metric: str = "strength") -> Result:
    """The density grid of `kind` weighted by `metric`; rows run from the bottom (y) and columns from the
    left (x) over `extent` on both axes, scaled to max 1. A metric no node has a positive value of (say,
    betweenness skipped at scale) weighs every node alike, with a warning, rather than give an empty map."""
    if metric not in METRICS:
        raise UsageError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}",
                         details={"metric": metric, "metrics": list(METRICS)})
    nodes = network_folder(ws, kind) / "nodes.parquet"
    layout = layout_path(ws, kind)
    if not layout.is_file():
        raise DataError(f"the {kind} network has no layout yet ({layout} is missing); `b2g run networks` draws it",
                        code="ARTIFACT_MISSING", details={"kind": kind, "file": str(layout)})
    rows = query.rows(f"SELECT l.x::DOUBLE, l.y::DOUBLE, n.{metric}::DOUBLE FROM read_parquet(?) l "
                      "JOIN read_parquet(?) n ON n.node_id = l.node_id "
                      "WHERE isfinite(l.x::DOUBLE) AND isfinite(l.y::DOUBLE) ORDER BY l.node_id",
                      [str(layout), str(nodes)])
    x, y, weight = (np.array(column, dtype=float) for column in (zip(*rows) if rows else ((), (), ())))
    weighted = bool((np.nan_to_num(weight) > 0).any())
    warnings = ws.warnings()
    if not weighted and len(x):
        warnings = [*warnings, f"no node of the {kind} network has a positive {metric}: every node weighs the same"]
    grid = item_density(x, y, weight if weighted else np.ones(len(x)))
    return Result(data={"workspace": ws.describe(), "kind": kind, "metric": metric, "weighted": weighted,
                        "nodes": len(x), **grid.describe()}, warnings=warnings)
