"""Community detection (Leiden or Louvain), canonical cluster labels and a stability score across seeds.

Clustering always runs on an undirected graph weighted by the normalised ``weight``; a directed network
is first collapsed (``w_{ab} + w_{ba}``). Results depend only on the edge list and the seed.

Leiden runs igraph's C implementation (``community_leiden``), once per seed with all its passes in one call
(the floor a benchmark measures), about 10× faster than leidenalg on real co-citation graphs (1.2M edges:
0.4 s vs 4.4 s per two iterations) at equal modularity; leidenalg evaluates the CPM quality.
"""

from __future__ import annotations

import math
import random
from contextlib import contextmanager
from typing import Callable, Iterator

import numpy as np

from ._igraph import ig
from .graph import edge_weights, igraph_from_codes

import leidenalg as la  # noqa: E402  after ._igraph, which imports igraph without its plotting backends

#: mean ARI across seeds below which the clusters are called not reproducible (docs/networks.md)
REPRODUCIBLE_MIN_ARI = 0.5
#: runs (the seed's and one other) of the stability score on networks above `stability_max_edges`
LARGE_STABILITY_RUNS = 2
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


def _leiden(graph: ig.Graph, params: dict, seed: int) -> list[int]:
    """igraph's C Leiden: one call doing `iterations` passes on the graph as built (weights by attribute
    name, so they are not copied through Python)."""
    objective = "CPM" if params["objective"] == "cpm" else "modularity"
    with seeded(seed):
        return graph.community_leiden(objective_function=objective, weights=edge_weights(graph),
                                      resolution=params["resolution"], n_iterations=params["iterations"]).membership


def quality(graph: ig.Graph, membership: list[int], params: dict) -> float:
    """The optimised objective: modularity at the chosen resolution, or leidenalg's CPM quality."""
    if params["objective"] == "cpm":
        weights = edge_weights(graph)
        part = la.CPMVertexPartition(graph, initial_membership=membership,
                                     weights=None if weights is None else weights.tolist(),
                                     resolution_parameter=params["resolution"])
        return float(part.quality())
    return float(graph.modularity(membership, weights=edge_weights(graph),
                                  resolution=params["resolution"]))


def _partition(graph: ig.Graph, params: dict, seed: int) -> list[int]:
    """One seeded run of the chosen algorithm on the weighted undirected graph."""
    if params["algorithm"] == "louvain":
        with seeded(seed):
            return graph.community_multilevel(weights=edge_weights(graph),
                                              resolution=params["resolution"]).membership
    return _leiden(graph, params, seed)


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


def stability_runs(params: dict, edges: int) -> tuple[int, str]:
    """How many seeded runs the stability score compares, and why that many."""
    asked, limit = params["stability_runs"], params["stability_max_edges"]
    if asked <= LARGE_STABILITY_RUNS or limit is None or edges <= limit:
        return asked, f"communities.stability_runs = {asked}"
    return LARGE_STABILITY_RUNS, (f"{LARGE_STABILITY_RUNS} of the {asked} runs of communities.stability_runs: the "
                                  f"network has {edges:,} edges, more than communities.stability_max_edges = "
                                  f"{limit:,} (null: always all runs)")


def other_partitions(graph: ig.Graph, params: dict, n: int) -> list[np.ndarray]:
    """The canonical partitions of the stability score's other seeds (``seed+1 …``): work that needs no
    result of the seed's run, so a job can run it beside that run (networks.beside)."""
    runs, _ = stability_runs(params, graph.ecount())
    return [canonical(_partition(graph, params, params["seed"] + run), n) for run in range(1, runs)]


def reproducibility(stability: dict) -> tuple[bool | None, str]:
    """Whether the seed's clusters come back under other seeds, in a sentence a reader of the map needs."""
    runs, ari = stability["runs"], stability["mean_ari"]
    if ari is None:
        return None, (f"Reproducibility of the clusters was not measured (communities.stability_runs = {runs}); "
                      "set it to 2 or more to compare partitions across seeds.")
    others = runs - 1
    seeds = f"{others} other seed{'s' if others > 1 else ''}"
    if ari < REPRODUCIBLE_MIN_ARI:
        return False, (f"The clusters are not reproducible: the partitions found with {seeds} agree poorly with "
                       f"this one (mean adjusted Rand index {ari:.3g}, below {REPRODUCIBLE_MIN_ARI}), so this "
                       "partition is one of many about equally good ones and a node's cluster says little on "
                       "its own.")
    return True, (f"The clusters are reproducible: the partitions found with {seeds} agree with this one "
                  f"(mean adjusted Rand index {ari:.3g}, at least {REPRODUCIBLE_MIN_ARI}).")


#: the fields `stability` gives (metrics.json's where a network is built in one process; else stability.json's)
STABILITY_FIELDS = ("stability", "clusters_reproducible", "reproducibility")


def stability(graph: ig.Graph, clusters: np.ndarray, params: dict,
              others: Callable[[], list[np.ndarray]] | None = None) -> dict:
    """The stability score of the seed's canonical `clusters` on `graph` (``undirected`` of the network), and
    the sentence saying whether they are reproducible (`STABILITY_FIELDS`).

    Stability = mean adjusted Rand index and mean NMI between the partition for ``seed`` and those for
    ``seed+1 … seed+runs−1`` (None when runs = 1), runs = ``stability_runs``, or 2 above
    ``stability_max_edges`` edges. `others`, when given, gives `other_partitions`, which may have run beside
    the seed's run (networks.beside). The stability job computes it from the network's tables
    (phases.run_stability), so a network job never waits for these runs.
    """
    n = graph.vcount()
    runs, why = stability_runs(params, graph.ecount())
    partitions = others() if others is not None else other_partitions(graph, params, n)
    aris = [_compare(clusters, other, "adjusted_rand") for other in partitions]
    nmis = [_compare(clusters, other, "nmi") for other in partitions]
    score = {
        "runs": runs,
        "requested_runs": params["stability_runs"],
        "reason": why,
        "seeds": [params["seed"] + r for r in range(runs)],
        "mean_ari": float(np.mean(aris)) if aris else None,
        "min_ari": float(np.min(aris)) if aris else None,
        "mean_nmi": float(np.mean(nmis)) if nmis else None,
        "reproducible_min_ari": REPRODUCIBLE_MIN_ARI,
    }
    return dict(zip(STABILITY_FIELDS, (score, *reproducibility(score))))


def detect(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray, params: dict,
           graph: ig.Graph | None = None, lap: Callable[[str], None] = lambda stage: None,
           others: Callable[[], list[np.ndarray]] | None = None,
           with_stability: bool = True) -> tuple[np.ndarray, dict]:
    """Canonical clusters of the seed's run plus a report: modularity, quality and, `with_stability`, the
    stability across seeds (`stability`).

    `graph`, when given, is ``undirected(n, i, j, w)`` already built; `lap` is told when each stage ends
    (networks.timing); `others` is handed to `stability`.
    """
    graph = undirected(n, i, j, w) if graph is None else graph
    clusters = canonical(_partition(graph, params, params["seed"]), n)
    modularity = graph.modularity(clusters.tolist(), weights=edge_weights(graph)) if graph.ecount() else None
    lap("clustering")
    report = {
        "implementation": {"function": IMPLEMENTATION[params["algorithm"]],
                           "iterations": params["iterations"] if params["algorithm"] == "leiden" else None},
        "modularity": modularity,
    }
    if with_stability:
        report.update(stability(graph, clusters, params, others))
        lap("stability")
    if not graph.ecount():
        report["quality"] = None
    elif params["objective"] != "cpm" and params["resolution"] == 1:     # the same sum, already made
        report["quality"] = float(modularity)
    else:
        report["quality"] = quality(graph, (clusters - 1).tolist(), params)  # 0-based
    lap("quality")
    return clusters, report
