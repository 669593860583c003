"""igraph graphs from integer edge codes, built fast."""

from __future__ import annotations

import gc

from ._igraph import ig
import numpy as np


def igraph_from_codes(n: int, i: np.ndarray, j: np.ndarray, directed: bool = False,
                      weights: np.ndarray | None = None) -> ig.Graph:
    """An igraph graph on nodes 0..n-1 with edges (i[k], j[k]) and an optional ``weight`` attribute.

    The edges are handed over as one (m, 2) integer array (igraph reads it row by row, without the
    millions of small Python lists that ``tolist()`` would create); Python's cyclic garbage collector is
    paused meanwhile, since walking a large heap again and again makes construction several times slower.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        edges = np.column_stack([np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)])
        graph = ig.Graph(n=n, edges=edges, directed=directed)
        del edges
        if weights is not None:
            graph.es["weight"] = np.asarray(weights, dtype=float).tolist()
    finally:
        if enabled:
            gc.enable()
    return graph
