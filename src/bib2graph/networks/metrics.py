"""Node centralities and network-level summaries, all deterministic for a given edge list.

* degree: number of incident edges (in + out for the directed citation network);
* strength: Σ of incident ``weight``; link_strength: Σ of incident raw ``count`` (VOSviewer's
  "total link strength");
* pagerank: weighted PageRank, damping 0.85, directed for the citation network, by PRPACK (Gauss-Seidel
  from a fixed start, no random start and so no seed; on one OpenMP thread, so the digits do not depend on
  thread scheduling);
* betweenness: unweighted (hops), normalised to [0, 1] by ``(n−1)(n−2)/2`` pairs (``(n−1)(n−2)`` if
  directed); exact below ``metrics.betweenness.exact_below`` nodes (or with ``samples`` null), otherwise
  estimated from k seeded random source nodes and scaled by ``n/k`` (Brandes–Pich); each source costs a
  pass over the whole graph, so k = ``samples`` while ``samples·(n + m) ≤ budget`` and
  ``budget / (n + m)`` on larger graphs, or none (skipped, said why) when that is fewer than
  min(samples, ``BETWEENNESS_MIN_SAMPLES``); a sample's standard error, from the spread of groups of its
  sources, goes with it;
* eigenvector: weighted, on the undirected graph, computed inside the largest connected component
  (scaled to max 1; the leading eigenvector of its sparse adjacency matrix, by ARPACK); nodes outside it
  get 0, because the measure is undefined across components.

Betweenness and eigenvector can be switched off (``metrics.<name>.enabled``): their column is then null.
Whatever is sampled or skipped is said, with why, in the notes that go to metrics.json.
"""

from __future__ import annotations

import math
from typing import Callable

from ._igraph import ig
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .counting import round_sig
from .communities import seeded, undirected
from .graph import edge_ends, edge_weights, igraph_from_codes, weight_list
from .params import resolve_metrics

#: sampled betweenness uses at least this many sources (or `samples`, when smaller): when the budget affords
#: fewer, it is not computed (the column is null) and metrics.json says so and what budget would compute it
BETWEENNESS_MIN_SAMPLES = 50
#: sampled betweenness takes its sources in this many groups, whose spread says how precise it is
BETWEENNESS_GROUPS = 10
_DIGITS = 10
_DAMPING = 0.85


def _pagerank(graph: ig.Graph, directed: bool) -> np.ndarray:
    """PRPACK PageRank on one OpenMP thread: its Gauss-Seidel sweeps update in place, so with several threads
    the last digits depend on scheduling (and on a shared machine the threads mostly wait for each other)."""
    with threadpool_limits(1, user_api="openmp"):
        return np.asarray(graph.pagerank(weights=weight_list(graph), directed=directed,
                                         damping=_DAMPING, implementation="prpack"), dtype=float)


def _skipped(n: int, name: str) -> tuple[np.ndarray, dict]:
    return np.full(n, np.nan), {"method": "skipped",
                                "reason": f"metrics.{name}.enabled is false: the column is null"}


def betweenness(graph: ig.Graph, seed: int, settings: dict | None = None) -> tuple[np.ndarray, dict]:
    """Normalised hop-count betweenness, exact, sampled or skipped as `settings` (``metrics.betweenness``)
    say, with a note saying which and why, and for a sample how precise it is."""
    settings = resolve_metrics({"betweenness": settings or {}})["betweenness"]
    n = graph.vcount()
    if not settings["enabled"]:
        return _skipped(n, "betweenness")
    directed = graph.is_directed()
    samples, budget, exact_below = settings["samples"], settings["budget"], settings["exact_below"]
    if n < exact_below or samples is None:
        raw = np.asarray(graph.betweenness(directed=directed), dtype=float) if n else np.zeros(0)
        why = (f"{n:,} nodes, fewer than metrics.betweenness.exact_below = {exact_below:,}" if n < exact_below
               else "metrics.betweenness.samples is null")
        info = {"method": "exact", "reason": why}
    else:
        k, why = _sample_size(n, graph.ecount(), samples, budget, exact_below)
        if k == 0:
            return np.full(n, np.nan), {"method": "skipped", "requested": samples, "budget": budget, "reason": why}
        sources = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
        raw, error = _sampled(graph, sources, directed)
        info = {"method": "sampled", "sources": k, "requested": samples, "budget": budget, "seed": seed,
                "reason": why, "error": error}
    pairs = (n - 1) * (n - 2) / (1 if directed else 2)
    values = raw / pairs if pairs > 0 else np.zeros(n)
    info.update({"weighted": False, "normalized": True})
    return values, info


def _sample_size(n: int, m: int, samples: int, budget: int | None, exact_below: int) -> tuple[int, str]:
    """How many sources the estimate uses (0: none, the column is null), and why."""
    size = n + m
    least = min(samples, BETWEENNESS_MIN_SAMPLES)
    large = f"{n:,} nodes, at least metrics.betweenness.exact_below = {exact_below:,}"
    if budget is None or samples * size <= budget:
        return min(samples, n), (f"{large}: estimated from metrics.betweenness.samples = {samples} seeded random "
                                 "sources, scaled by n/k")
    k = budget // size
    if k < least:
        return 0, (f"{large}: not computed, since metrics.betweenness.budget = {budget:,} affords only {k} sources "
                   f"of a pass over nodes + edges = {size:,} each, fewer than {least}, below which the estimate of "
                   f"the top nodes is mostly noise; budget {least * size:,} or more (or null) computes it "
                   f"from {least} or more sources, and enabled: false says it is not wanted")
    return min(k, n), (f"{large}: estimated from {k} seeded random sources, scaled by n/k, fewer than "
                       f"metrics.betweenness.samples = {samples} since sources × (nodes + edges) = {samples} × "
                       f"{size:,} exceeds metrics.betweenness.budget = {budget:,} (null: no budget)")


def _sampled(graph: ig.Graph, sources: np.ndarray, directed: bool) -> tuple[np.ndarray, dict]:
    """The Brandes–Pich estimate (Σ over sources × n/k) and its precision: the sources are taken in
    `BETWEENNESS_GROUPS` groups, each an independent estimate, whose spread gives each node's standard
    error at no extra cost; reported for the 20 highest values and the top 1% (at least 20), the nodes
    a reader looks at."""
    n, k = graph.vcount(), len(sources)
    groups = np.array_split(sources, min(BETWEENNESS_GROUPS, k))
    parts = [np.asarray(graph.betweenness(directed=directed, sources=g.tolist()), dtype=float) for g in groups]
    raw = np.sum(parts, axis=0) * (n / k)
    error: dict = {"groups": len(groups)}
    if len(groups) < 2:
        return raw, error
    estimates = np.stack([part * (n / len(g)) for part, g in zip(parts, groups)])
    relative = np.divide(estimates.std(axis=0, ddof=1) / np.sqrt(len(groups)), raw,
                         out=np.full(n, np.inf), where=raw > 0)
    order = np.argsort(-raw, kind="stable")
    for name, count in (("top_20", 20), ("top_1pct", max(20, n // 100))):
        top = order[:count]
        top = relative[top[raw[top] > 0]]
        error[name] = {"nodes": int(len(top)), "median_relative_se": float(np.median(top)) if len(top) else None,
                       "max_relative_se": float(top.max()) if len(top) else None}
    top20, top1 = error["top_20"], error["top_1pct"]
    if top20["nodes"]:
        error["statement"] = (f"estimated from {k} of {n:,} sources: the standard error of the {top20['nodes']} "
                              f"highest values is a median {top20['median_relative_se']:.0%} of the value (at most "
                              f"{top20['max_relative_se']:.0%}), of the top {top1['nodes']:,} a median "
                              f"{top1['median_relative_se']:.0%}, from the spread of {len(groups)} groups of sources; "
                              "more sources (metrics.betweenness.samples, budget) shrink it as 1/√k")
    return raw, error


def eigenvector(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray,
                graph: ig.Graph | None = None, enabled: bool = True) -> tuple[np.ndarray, dict]:
    """Weighted eigenvector centrality within the largest connected component (ties: smallest node).

    `graph`, when given, is ``undirected(n, i, j, w)`` already built; `enabled` False skips it. The
    vector is the one igraph's `eigenvector_centrality` gives (to the last digits), found on a sparse
    matrix (`leading_vector`, from a fixed start, so no seed): igraph took 5.0 s where this takes 0.4 s on
    20,000 nodes and 5.6M edges.
    """
    if not enabled:
        return _skipped(n, "eigenvector")
    values = np.zeros(n)
    info = {"method": "computed", "weighted": True, "scope": "largest_component", "scale": "max = 1"}
    if len(i) == 0:
        return values, info
    graph = undirected(n, i, j, w) if graph is None else graph
    components = graph.connected_components()
    sizes = np.asarray(components.sizes())
    members = np.asarray(components.membership)
    firsts = np.unique(members, return_index=True)[1]    # labels are 0..c-1, all present
    biggest = int(np.lexsort((firsts, -sizes))[0])
    nodes = np.flatnonzero(members == biggest)
    if len(nodes) < 2:
        return values, info
    a, b = edge_ends(graph)
    weights = edge_weights(graph)
    if len(nodes) < n:                      # an edge lies within one component: its first end says which
        inside = members[a] == biggest
        code = np.full(n, -1, dtype=np.int64)
        code[nodes] = np.arange(len(nodes))
        a, b, weights = code[a[inside]], code[b[inside]], None if weights is None else weights[inside]
    values[nodes] = leading_vector(len(nodes), a, b, weights)
    return values, info


#: below this many nodes the leading vector is found by a dense eigendecomposition (ARPACK needs room)
DENSE_BELOW = 64


def leading_vector(n: int, a: np.ndarray, b: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The leading (Perron) eigenvector of the weighted adjacency matrix of a connected undirected graph on
    nodes 0..n-1 (edges `a`–`b`, weights `w`, parallel edges summed, a loop counted twice), scaled to max
    1. ARPACK's Lanczos iteration for the largest algebraic eigenvalue (not the largest magnitude: a
    bipartite graph has −λ too), from a vector of ones, to machine precision, on one BLAS thread: the
    same digits in every run."""
    from scipy import sparse
    from scipy.sparse.linalg import eigsh

    weight = np.ones(len(a)) if w is None else np.asarray(w, dtype=np.float64)
    half = sparse.coo_matrix((weight, (a, b)), shape=(n, n))
    adjacency = (half + half.T).tocsr()
    with threadpool_limits(1, user_api="blas"):
        if n < DENSE_BELOW:
            vector = np.linalg.eigh(adjacency.toarray())[1][:, -1]
        else:
            vector = eigsh(adjacency, k=1, which="LA", v0=np.ones(n), tol=0)[1][:, 0]
    vector = np.clip(vector if vector.sum() >= 0 else -vector, 0.0, None)
    return vector / vector.max()


def node_metrics(n: int, i: np.ndarray, j: np.ndarray, count: np.ndarray, weight: np.ndarray,
                 directed: bool, seed: int, undirected_graph: ig.Graph | None = None,
                 settings: dict | None = None, lap: Callable[[str], None] = lambda stage: None,
                 eigen: Callable[[], tuple[np.ndarray, dict]] | None = None) -> tuple[pd.DataFrame, dict]:
    """The per-node metric columns (in node code order) and notes on how they were computed.

    `undirected_graph`, when given, is ``undirected(n, i, j, weight)`` already built (for an undirected
    network it is the network's own graph, which is then not built again); `settings` is the spec's
    ``metrics`` section (defaults when None); `lap` is told when each stage ends (networks.timing);
    `eigen`, when given, gives `eigenvector`'s result, which may have run beside (networks.beside).
    """
    settings = resolve_metrics(settings)
    if undirected_graph is None:
        undirected_graph = undirected(n, i, j, weight, directed)
    graph = igraph_from_codes(n, i, j, directed, weight) if directed else undirected_graph
    degree = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    strength = np.bincount(i, weights=weight, minlength=n) + np.bincount(j, weights=weight, minlength=n)
    link = np.bincount(i, weights=count, minlength=n) + np.bincount(j, weights=count, minlength=n)
    lap("degrees")
    pagerank = _pagerank(graph, directed) if n else np.zeros(0)
    lap("pagerank")
    between, between_info = betweenness(graph, seed, settings["betweenness"])
    lap("betweenness")
    if eigen is None:
        eigen_values, eigen_info = eigenvector(n, i, j, weight, undirected_graph,
                                               settings["eigenvector"]["enabled"])
    else:
        eigen_values, eigen_info = eigen()
    lap("eigenvector")
    table = pd.DataFrame({
        "degree": degree.astype(np.int64),
        "strength": round_sig(strength, _DIGITS),
        "link_strength": round_sig(link, _DIGITS),
        "pagerank": round_sig(pagerank, _DIGITS),
        "betweenness": round_sig(np.clip(between, 0.0, None), _DIGITS),
        "eigenvector": round_sig(eigen_values, _DIGITS),
    })
    notes = {"betweenness": between_info, "eigenvector": eigen_info,
             "pagerank": {"weighted": True, "damping": _DAMPING, "directed": directed, "implementation": "prpack"}}
    return table, notes


def network_summary(n: int, i: np.ndarray, j: np.ndarray, count: np.ndarray, weight: np.ndarray,
                    directed: bool, undirected_graph: ig.Graph | None = None) -> dict:
    """Size, density and connected components (weak components when directed, i.e. the components of
    `undirected_graph`, the undirected version of the network, when given)."""
    graph = igraph_from_codes(n, i, j, directed) if undirected_graph is None else undirected_graph
    components = graph.connected_components(mode="weak") if n else None
    sizes = sorted(components.sizes(), reverse=True) if components is not None else []
    possible = n * (n - 1) if directed else n * (n - 1) / 2
    return {
        "nodes": n,
        "edges": int(len(i)),
        "density": len(i) / possible if possible else 0.0,
        "components": len(sizes),
        "largest_component": sizes[0] if sizes else 0,
        "isolated_nodes": int(np.sum((np.bincount(i, minlength=n) + np.bincount(j, minlength=n)) == 0)),
        "total_count": float(np.sum(count)),
        "total_weight": float(np.sum(weight)),
    }


def tidy(value):
    """A JSON-able copy of `value` with floats rounded to 10 significant digits and NaN as None."""
    if isinstance(value, dict):
        return {str(k): tidy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tidy(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not math.isfinite(value):
            return None
        return float(f"{value:.10g}")
    return value
