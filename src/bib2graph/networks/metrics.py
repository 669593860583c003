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
  ``budget / (n + m)`` (at least min(samples, ``BETWEENNESS_MIN_SAMPLES``)) on larger graphs;
* eigenvector: weighted, on the undirected graph, computed inside the largest connected component
  (scaled to max 1); nodes outside it get 0, because the measure is undefined across components.

Betweenness and eigenvector can be switched off (``metrics.<name>.enabled``): their column is then null.
Whatever is sampled or skipped is said, with why, in the notes that go to metrics.json.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable

from ._igraph import ig
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .builders import round_sig
from .communities import seeded, undirected
from .graph import igraph_from_codes
from .params import resolve_metrics

#: sampled betweenness never uses fewer sources than this (or than `samples`, when smaller)
BETWEENNESS_MIN_SAMPLES = 50
_DIGITS = 10
_DAMPING = 0.85


def _pagerank(graph: ig.Graph, directed: bool) -> np.ndarray:
    """PRPACK PageRank on one OpenMP thread: its Gauss-Seidel sweeps update in place, so with several threads
    the last digits depend on scheduling (and on a shared machine the threads mostly wait for each other)."""
    with threadpool_limits(1, user_api="openmp"):
        return np.asarray(graph.pagerank(weights="weight" if graph.ecount() else None, directed=directed,
                                         damping=_DAMPING, implementation="prpack"), dtype=float)


def _skipped(n: int, name: str) -> tuple[np.ndarray, dict]:
    return np.full(n, np.nan), {"method": "skipped",
                                "reason": f"metrics.{name}.enabled is false: the column is null"}


def betweenness(graph: ig.Graph, seed: int, settings: dict | None = None) -> tuple[np.ndarray, dict]:
    """Normalised hop-count betweenness, exact, sampled or skipped as `settings` (``metrics.betweenness``)
    say, with a note saying which and why."""
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
        size = n + graph.ecount()
        k = samples
        why = (f"{n:,} nodes, at least metrics.betweenness.exact_below = {exact_below:,}: estimated from "
               f"metrics.betweenness.samples = {samples} seeded random sources, scaled by n/k")
        if budget is not None and samples * size > budget:
            k = max(budget // size, min(samples, BETWEENNESS_MIN_SAMPLES))
            why = (f"{n:,} nodes, at least metrics.betweenness.exact_below = {exact_below:,}: estimated from {k} "
                   f"seeded random sources, scaled by n/k, fewer than metrics.betweenness.samples = {samples} "
                   f"since sources × (nodes + edges) = {samples} × {size:,} exceeds metrics.betweenness.budget "
                   f"= {budget:,} (at least {min(samples, BETWEENNESS_MIN_SAMPLES)}; null: no budget)")
        k = min(k, n)
        sources = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False)).tolist()
        raw = np.asarray(graph.betweenness(directed=directed, sources=sources), dtype=float) * (n / k)
        info = {"method": "sampled", "sources": k, "requested": samples, "budget": budget, "seed": seed,
                "reason": why}
    pairs = (n - 1) * (n - 2) / (1 if directed else 2)
    values = raw / pairs if pairs > 0 else np.zeros(n)
    info.update({"weighted": False, "normalized": True})
    return values, info


def eigenvector(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray, seed: int,
                graph: ig.Graph | None = None, enabled: bool = True) -> tuple[np.ndarray, dict]:
    """Weighted eigenvector centrality within the largest connected component (ties: smallest node).

    `graph`, when given, is ``undirected(n, i, j, w)`` already built; `enabled` False skips it.
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
    sub = graph if len(nodes) == n else graph.induced_subgraph(nodes.tolist())
    with seeded(seed), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = np.asarray(sub.eigenvector_centrality(weights="weight", scale=True), dtype=float)
    values[nodes] = np.clip(scores, 0.0, None)
    return values, info


def node_metrics(n: int, i: np.ndarray, j: np.ndarray, count: np.ndarray, weight: np.ndarray,
                 directed: bool, seed: int, undirected_graph: ig.Graph | None = None,
                 settings: dict | None = None,
                 lap: Callable[[str], None] = lambda stage: None) -> tuple[pd.DataFrame, dict]:
    """The per-node metric columns (in node code order) and notes on how they were computed.

    `undirected_graph`, when given, is ``undirected(n, i, j, weight)`` already built (for an undirected
    network it is the network's own graph, which is then not built again); `settings` is the spec's
    ``metrics`` section (defaults when None); `lap` is told when each stage ends (networks.timing).
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
    eigen, eigen_info = eigenvector(n, i, j, weight, seed, undirected_graph, settings["eigenvector"]["enabled"])
    lap("eigenvector")
    table = pd.DataFrame({
        "degree": degree.astype(np.int64),
        "strength": round_sig(strength, _DIGITS),
        "link_strength": round_sig(link, _DIGITS),
        "pagerank": round_sig(pagerank, _DIGITS),
        "betweenness": round_sig(np.clip(between, 0.0, None), _DIGITS),
        "eigenvector": round_sig(eigen, _DIGITS),
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
