"""The edges the visual formats (GraphML, GEXF, Pajek, VOSviewer) hold: all of them, or the strongest.

A map of millions of edges opens in no drawing tool, so `export.top_edges_per_node` and `export.max_edges`
(spec keys) reduce what those files hold; the network's tables (edges.parquet) and edges.csv keep every
edge. The rule, applied in this order:

1. ``top_edges_per_node`` k: an edge stays when it is among the k strongest edges of either endpoint
   (VOSviewer's and Gephi's "strongest links per node"), so no node loses all its edges;
2. ``max_edges`` M: of those, the M strongest stay (a node whose kept edges are all weaker than the M-th
   is left without any in the visual files).

"Strongest" is the largest ``weight`` (the normalised weight clusters and the map were made from); ties go
to the edge first in the table (sorted by source, target), so the choice is deterministic. Kept edges
stay in table order, every node stays, and node attributes (degree, strength, …) remain those of the
whole network.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from .text import node_codes

VISUAL_FORMATS = ("graphml", "gexf", "pajek", "vosviewer")


def strongest_per_node(source: np.ndarray, target: np.ndarray, weight: np.ndarray, k: int) -> np.ndarray:
    """A mask of the edges among the `k` strongest of their source or of their target."""
    m = len(weight)
    node = np.concatenate([source, target])
    rows = np.concatenate([np.arange(m), np.arange(m)])
    order = np.lexsort((rows, -np.concatenate([weight, weight]), node))   # by node, strongest first, table order
    node = node[order]
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    rank = np.arange(len(node)) - np.repeat(starts, np.diff(np.r_[starts, len(node)]))
    keep = np.zeros(m, dtype=bool)
    keep[rows[order][rank < k]] = True
    return keep


def strongest(weight: np.ndarray, candidates: np.ndarray, limit: int) -> np.ndarray:
    """`candidates` (a mask) narrowed to its `limit` strongest edges (ties: the earlier row)."""
    rows = np.flatnonzero(candidates)
    if len(rows) <= limit:
        return candidates
    order = np.lexsort((rows, -weight[rows]))
    keep = np.zeros(len(weight), dtype=bool)
    keep[rows[order[:limit]]] = True
    return keep


def visual_edges(edges: pd.DataFrame, node_ids: pd.Series, max_edges: int | None,
                 top_edges_per_node: int | None) -> tuple[np.ndarray, dict]:
    """(mask of the edges the visual files hold, a report of the reduction for the export's manifest)."""
    m = len(edges)
    weight = edges["weight"].to_numpy(dtype=float)
    keep = np.ones(m, dtype=bool)
    if top_edges_per_node is not None and m:
        keep = strongest_per_node(node_codes(node_ids, edges["source"]), node_codes(node_ids, edges["target"]), weight,
                                  top_edges_per_node)
    if max_edges is not None:
        keep = strongest(weight, keep, max_edges)
    kept = int(keep.sum())
    report = {"edges": m, "kept": kept, "max_edges": max_edges, "top_edges_per_node": top_edges_per_node,
              "reduced": kept < m,
              "why": (f"the visual formats hold the {kept} strongest of {m} edges (by weight; export.max_edges, "
                      "export.top_edges_per_node); edges.parquet and edges.csv hold all" if kept < m else
                      "every edge (no more than export.max_edges and export.top_edges_per_node allow)")}
    return keep, report


def reduced(network, keep: np.ndarray):
    """The network with only the kept edges (nodes, metrics unchanged)."""
    if keep.all():
        return network
    return replace(network, edges=network.edges[keep].reset_index(drop=True), evidence=None)
