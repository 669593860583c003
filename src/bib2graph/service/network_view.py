"""`networks` / `network`: the built networks as the map draws them, read-only from their Parquet files.

A network is read from `results/networks/<kind>/` (nodes, edges, metrics.json) and, when the layout
rule has drawn it, `results/layouts/<kind>/layout.parquet` (`node_id`, `x`, `y`). Edges come strongest
first (weight, count, then source and target, so pages are stable) in pages of at most MAX_EDGES.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import palette, query, spec as spec_mod
from ..atomic import sha256_file
from ..errors import DataError, UsageError
from ..manifest import read_manifest
from ..networks.params import KINDS
from ..paths import SPEC_FILE
from .artifact_schemas import NETWORK_METRICS, STABILITY
from .artifacts import read_json_object
from .result import Result
from .workspace import Workspace

DEFAULT_EDGES = 20_000
MAX_EDGES = 200_000
NODE_COLUMNS = ("label", "cluster", "year", "in_corpus", "doi", "occurrences", "degree", "strength",
                "pagerank", "betweenness")
EDGE_ORDER = "weight DESC, count DESC, source, target"


def spec_kinds(ws: Workspace) -> list[str]:
    """The networks the spec asks for, in the spec's sorted order."""
    return sorted(spec_mod.load(ws.spec_path, SPEC_FILE)["networks"])


def network_folder(ws: Workspace, kind: str) -> Path:
    """The folder of a built network; an unknown kind or one not built yet is a typed error."""
    kinds = spec_kinds(ws)
    if kind not in kinds:
        what = "is not a network kind" if kind not in KINDS else "is not among this spec's networks"
        raise DataError(f"{kind!r} {what}; this workspace has {', '.join(kinds) or 'none'}",
                        code="UNKNOWN_NETWORK", details={"kind": kind, "networks": kinds})
    folder = ws.path(f"results/networks/{kind}")
    for name in ("metrics.json", "nodes.parquet", "edges.parquet"):
        if not (folder / name).is_file():
            raise DataError(f"the {kind} network is not built yet ({folder / name} is missing); "
                            f"`b2g run networks` builds it", code="ARTIFACT_MISSING",
                            details={"kind": kind, "file": str(folder / name)})
    return folder


def read_metrics(folder: Path) -> dict[str, Any]:
    """The network's metrics.json with, once the stability job has measured this network, the fields of
    its stability.json (`stability`, `clusters_reproducible`, `reproducibility`) beside them, as one record."""
    metrics = read_json_object(folder / "metrics.json", schema=NETWORK_METRICS)
    stability = folder / "stability" / "stability.json"
    if stability.is_file() and _measured_as_it_stands(folder):
        metrics.update({k: v for k, v in read_json_object(stability, schema=STABILITY).items() if k != "kind"})
    return metrics


def _measured_as_it_stands(folder: Path) -> bool:
    """Whether the stability job measured the network now on disk: its manifest recorded the hash of the
    network job's graph/metrics.json that is there. A network rebuilt since (`b2g run --until network`)
    does not show the score of the one before."""
    manifest = read_manifest(folder / "stability" / "manifest.json")
    graph = folder / "graph" / "metrics.json"
    if manifest is None or not graph.is_file():
        return False
    recorded = [sha for name, sha in manifest["inputs"].items() if name.endswith("graph/metrics.json")]
    return recorded == [sha256_file(graph)]


def layout_path(ws: Workspace, kind: str) -> Path:
    return ws.path(f"results/layouts/{kind}/layout.parquet")


# The cluster table's fields (docs/networks.md): a metrics.json written before a field existed gives null or [].
CLUSTER_SCALARS = ("label", "mean_year", "median_year", "internal_weight", "external_weight", "silhouette",
                   "ranked_by")
CLUSTER_LISTS = ("terms", "central", "cited", "top_nodes")


def _term(term: Any) -> dict[str, Any]:
    """A label term as {term, score, works}; an older metrics.json lists the bare terms."""
    if isinstance(term, dict):
        return {"term": term.get("term"), "score": term.get("score"), "works": term.get("works"), **term}
    return {"term": str(term), "score": None, "works": None}


def cluster_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """One cluster as the network phase recorded it, every field of the table present, with its colour."""
    number = int(entry["cluster"])
    out: dict[str, Any] = {**{k: None for k in CLUSTER_SCALARS}, **{k: [] for k in CLUSTER_LISTS}, **entry}
    for key in CLUSTER_LISTS:
        out[key] = list(out[key] or [])
    out.update(cluster=number, size=int(entry["size"]), colour=palette.entry_colour(entry),
               terms=[_term(t) for t in out["terms"]])
    return out


def cluster_list(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """The clusters of two or more nodes with their labels and cluster table, largest first."""
    return [cluster_entry(c) for c in metrics.get("clusters") or []]


def _summary(ws: Workspace, kind: str) -> dict[str, Any]:
    folder = ws.path(f"results/networks/{kind}")
    entry: dict[str, Any] = {"kind": kind, "built": False, "directed": None, "nodes": None, "edges": None,
                             "clusters": None, "definition": None, "layout": layout_path(ws, kind).is_file()}
    try:
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        entry.update(built=(folder / "nodes.parquet").is_file() and (folder / "edges.parquet").is_file(),
                     directed=bool(metrics["directed"]), nodes=int(metrics["nodes"]), edges=int(metrics["edges"]),
                     clusters=int(metrics["n_clusters"]), definition=metrics["definition"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return entry


def list_networks(ws: Workspace) -> Result:
    """Every network of the spec, built or not, with its size and whether a layout is drawn."""
    return Result(data={"workspace": ws.describe(), "networks": [_summary(ws, k) for k in spec_kinds(ws)]},
                  warnings=ws.warnings())


def _finite(column: str) -> str:
    """A float column with NaN and infinities read as null (JSON has neither)."""
    return f"CASE WHEN isfinite({column}::DOUBLE) THEN {column}::DOUBLE END"


def _nodes(ws: Workspace, kind: str, folder: Path) -> list[dict[str, Any]]:
    nodes = folder / "nodes.parquet"
    have = set(query.columns(nodes))
    mean_year = _finite("n.mean_year") if "mean_year" in have else "NULL::DOUBLE"
    layout = layout_path(ws, kind)
    params = [str(nodes)]
    if layout.is_file():
        join = "LEFT JOIN read_parquet(?) l ON l.node_id = n.node_id"
        xy = f"{_finite('l.x')} AS x, {_finite('l.y')} AS y"
        params.append(str(layout))
    else:
        join, xy = "", "NULL::DOUBLE AS x, NULL::DOUBLE AS y"
    fields = ", ".join(f"n.{c}" for c in NODE_COLUMNS)
    return query.records(f"SELECT n.node_id AS id, {fields}, {xy}, {mean_year} AS mean_year "
                         f"FROM read_parquet(?) n {join} ORDER BY n.node_id", params)


def network(ws: Workspace, kind: str, edges: int = DEFAULT_EDGES, offset: int = 0) -> Result:
    """One network: every node (with its layout position), its clusters and metrics, and one page of
    edges strongest first; `edges_next` is the offset of the next page, null at the end."""
    if not 0 <= edges <= MAX_EDGES:
        raise UsageError(f"--edges must be between 0 and {MAX_EDGES}, not {edges}")
    if offset < 0:
        raise UsageError(f"--offset must be 0 or more, not {offset}")
    folder = network_folder(ws, kind)
    metrics = read_metrics(folder)
    edge_file = str(folder / "edges.parquet")
    total = query.rows("SELECT count(*) FROM read_parquet(?)", [edge_file])[0][0]
    # past the last edge the page is empty; DuckDB is not asked (an offset beyond int64 would be its error)
    page = [] if offset >= total else query.records(
        f"SELECT source, target, weight, count FROM read_parquet(?) ORDER BY {EDGE_ORDER} LIMIT ? OFFSET ?",
        [edge_file, edges, offset])
    end = offset + len(page)
    data = {"workspace": ws.describe(), "kind": kind, "directed": bool(metrics.get("directed")),
            "nodes": _nodes(ws, kind, folder), "clusters": cluster_list(metrics), "metrics": metrics,
            "edges": page, "edges_total": total, "edges_offset": offset,
            "edges_next": end if end < total and page else None}
    return Result(data=data, warnings=ws.warnings())
