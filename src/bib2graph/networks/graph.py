"""igraph graphs from integer edge codes, built fast."""

from __future__ import annotations

import gc
from typing import Iterator

from ._igraph import ig
import numpy as np
import pandas as pd


def igraph_from_codes(n: int, i: np.ndarray, j: np.ndarray, directed: bool = False,
                      weights: np.ndarray | None = None) -> ig.Graph:
    """An igraph graph on nodes 0..n-1 with edges (i[k], j[k]), and with `weights`, their weights.

    The edges are handed over as an iterator of pairs made `_PAIRS` at a time: igraph reads an iterator
    as it goes, whereas an array or a list is first turned whole into Python objects (about 150 bytes per
    edge, 6 GB for 40M edges, for a graph that holds 32). The weights stay a numpy array beside the graph
    (`edge_weights`, handed to each igraph call, which reads an array without copies) rather than an
    igraph edge attribute, a Python list of 32 bytes per edge. Python's cyclic garbage collector is paused
    meanwhile, since walking a large heap again and again makes construction several times slower.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        graph = ig.Graph(n=n, edges=_pairs(np.asarray(i), np.asarray(j)), directed=directed)
    finally:
        if enabled:
            gc.enable()
    graph["ends"] = (np.asarray(i), np.asarray(j))
    if weights is not None:
        graph["weight"] = np.asarray(weights, dtype=float)
    return graph


def edge_weights(graph: ig.Graph) -> np.ndarray | None:
    """The weights `igraph_from_codes` was given, in edge order; None without weights or edges, as igraph
    takes "unweighted"."""
    return graph["weight"] if graph.ecount() and "weight" in graph.attributes() else None


def weight_list(graph: ig.Graph) -> list[float] | None:
    """The edge weights as the Python list igraph's PageRank insists on (it reads no array). Equal values
    share one float object, so raw counts (a few distinct values) cost 8 bytes per edge, not 32."""
    weights = edge_weights(graph)
    if weights is None:
        return None
    codes, uniques = pd.factorize(weights)
    if len(uniques) > _SHARED_FLOATS:
        return weights.tolist()
    return list(map(uniques.tolist().__getitem__, codes.tolist()))


def edge_ends(graph: ig.Graph) -> tuple[np.ndarray, np.ndarray]:
    """The endpoint codes `igraph_from_codes` was given, in edge order."""
    return graph["ends"]


#: at most this many distinct weights share float objects in `weight_list` (their codes are Python's cached
#: small integers)
_SHARED_FLOATS = 256
#: edges turned into Python pairs at a time while igraph reads them
_PAIRS = 1 << 18


def _pairs(i: np.ndarray, j: np.ndarray) -> Iterator[tuple[int, int]]:
    for start in range(0, len(i), _PAIRS):
        yield from zip(i[start:start + _PAIRS].tolist(), j[start:start + _PAIRS].tolist())
