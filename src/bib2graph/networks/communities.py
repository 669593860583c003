"""Community detection (Leiden or Louvain), canonical cluster labels and a stability score across seeds.

Clustering always runs on an undirected graph weighted by the normalised ``weight``; a directed network
is first collapsed (``w_{ab} + w_{ba}``). Results depend only on the edge list and the seed.

Leiden runs igraph's C implementation (``community_leiden``), about 10× faster than leidenalg on real
co-citation graphs (1.2M edges: 0.4 s vs 4.4 s per two iterations) at equal modularity; leidenalg
evaluates the CPM quality.
"""

from __future__ import annotations

import math
import random
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from ._igraph import ig
from .graph import igraph_from_codes

import leidenalg as la  # noqa: E402  after ._igraph, which imports igraph without its plotting backends

#: Leiden iterates until an iteration leaves the partition unchanged, but at most this many times: graphs
#: without community structure otherwise take dozens of iterations for gains in the fourth decimal.
LEIDEN_MAX_ITERATIONS = 10
IMPLEMENTATION = {"leiden": "igraph Graph.community_leiden", "louvain": "igraph Graph.community_multilevel"}


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """igraph draws from a global RNG (Python's `random` by default): seed it, then restore it."""
    ig.set_random_number_generator(random.Random(seed))
    try:
        yield
    finally:
        ig.set_random_number_generator(random)


def undirected(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray, directed: bool = True) -> ig.Graph:
    """An undirected igraph graph; reciprocal pairs of a directed list are merged and their weights summed.

    With ``directed=False`` the list is already undirected (``i < j``, sorted, distinct, as the builders
    make it) and is used as it is, which gives the same graph without the merge.
    """
    if not directed:
        return igraph_from_codes(n, i, j, directed=False, weights=w)
    a, b = np.minimum(i, j), np.maximum(i, j)
    key = a * np.int64(max(n, 1)) + b
    uniq, inverse = np.unique(key, return_inverse=True)
    weights = np.bincount(inverse, weights=w, minlength=len(uniq)) if len(uniq) else np.zeros(0)
    return igraph_from_codes(n, uniq // max(n, 1), uniq % max(n, 1), directed=False, weights=weights)


def _leiden(graph: ig.Graph, params: dict, seed: int, weights) -> list[int]:
    """igraph's C Leiden, one iteration at a time until the partition stops changing (at most 10)."""
    objective = "CPM" if params["objective"] == "cpm" else "modularity"
    membership = None
    with seeded(seed):
        for _ in range(LEIDEN_MAX_ITERATIONS):
            found = graph.community_leiden(objective_function=objective, weights=weights,
                                           resolution=params["resolution"], n_iterations=1,
                                           initial_membership=membership).membership
            if found == membership:
                break
            membership = found
    return membership if membership is not None else list(range(graph.vcount()))


def quality(graph: ig.Graph, membership: list[int], params: dict) -> float:
    """The optimised objective: modularity at the chosen resolution, or leidenalg's CPM quality."""
    weights = graph.es["weight"] if graph.ecount() else None
    if params["objective"] == "cpm":
        part = la.CPMVertexPartition(graph, initial_membership=membership, weights=weights,
                                     resolution_parameter=params["resolution"])
        return float(part.quality())
    return float(graph.modularity(membership, weights=weights, resolution=params["resolution"]))


def _partition(graph: ig.Graph, params: dict, seed: int) -> list[int]:
    """One seeded run of the chosen algorithm on the weighted undirected graph."""
    weights = graph.es["weight"] if graph.ecount() else None
    if params["algorithm"] == "louvain":
        with seeded(seed):
            return graph.community_multilevel(weights=weights, resolution=params["resolution"]).membership
    return _leiden(graph, params, seed, weights)


def canonical(membership, n: int) -> np.ndarray:
    """Relabel clusters 1..k: 1 = largest, ties broken by the smallest member (nodes are in node_id order)."""
    m = np.asarray(membership, dtype=np.int64)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    labels, first, inverse, sizes = np.unique(m, return_index=True, return_inverse=True, return_counts=True)
    rank = np.lexsort((first, -sizes))          # order of the original labels
    new = np.empty(len(labels), dtype=np.int64)
    new[rank] = np.arange(1, len(labels) + 1)
    return new[inverse.ravel()]


def _compare(a: np.ndarray, b: np.ndarray, method: str) -> float:
    """Partition similarity; identical partitions score 1 even where igraph's formula gives 0/0."""
    if np.array_equal(a, b):
        return 1.0
    value = ig.compare_communities(a.tolist(), b.tolist(), method=method)
    return float(value) if math.isfinite(value) else 0.0


def detect(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray, params: dict,
           graph: ig.Graph | None = None) -> tuple[np.ndarray, dict]:
    """Canonical clusters of the seed's run plus a report: modularity, quality and stability across seeds.

    Stability = mean adjusted Rand index and mean NMI between the partition for ``seed`` and those for
    ``seed+1 … seed+stability_runs−1`` (None when ``stability_runs`` = 1). `graph`, when given, is
    ``undirected(n, i, j, w)`` already built.
    """
    graph = undirected(n, i, j, w) if graph is None else graph
    clusters = canonical(_partition(graph, params, params["seed"]), n)
    weights = graph.es["weight"] if graph.ecount() else None
    modularity = graph.modularity(clusters.tolist(), weights=weights) if graph.ecount() else None
    aris, nmis = [], []
    for run in range(1, params["stability_runs"]):
        other = canonical(_partition(graph, params, params["seed"] + run), n)
        aris.append(_compare(clusters, other, "adjusted_rand"))
        nmis.append(_compare(clusters, other, "nmi"))
    report = {
        "implementation": {"function": IMPLEMENTATION[params["algorithm"]],
                           "max_iterations": LEIDEN_MAX_ITERATIONS if params["algorithm"] == "leiden" else None},
        "modularity": modularity,
        "quality": quality(graph, (clusters - 1).tolist(), params) if graph.ecount() else None,  # 0-based
        "stability": {
            "runs": params["stability_runs"],
            "seeds": [params["seed"] + r for r in range(params["stability_runs"])],
            "mean_ari": float(np.mean(aris)) if aris else None,
            "min_ari": float(np.min(aris)) if aris else None,
            "mean_nmi": float(np.mean(nmis)) if nmis else None,
        },
    }
    return clusters, report
