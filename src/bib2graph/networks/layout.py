"""Map coordinates of a network: a seeded, cluster-aware force-directed layout with packed components.

Light on purpose (numpy and igraph only, no pandas): the layout job reads two columns of the node
table and three of the edge table and writes three columns. Lean on purpose too: the edges are held
once, as int32 codes and float64 weights grouped by component (each component's edges a slice, not a
copy), beside the igraph graph of the component being laid out (32 bytes per edge) and the weights igraph
reads from the array (8); docs/networks.md, "Scheduling", gives the bytes per edge.
"""

from __future__ import annotations

import random

import numpy as np

ALGORITHMS = ("fr",)
_MAX_WEIGHT_RATIO = 10.0   # edge weights are scaled to median 1 and clipped to [1/10, 10]
_GAP = 1.0                 # space between packed components, in units of one node's share of the map
_BETWEEN = 0.3             # the pull of an edge between two clusters, relative to one inside a cluster


def layout(n: int, source, target, weight=None, clusters=None, *, algorithm: str = "fr", seed: int = 42,
           iterations: int = 200, precision: int = 6, copy: bool = True) -> np.ndarray:
    """Coordinates ``(n, 2)`` for the nodes 0..n-1 of an (undirected or directed) weighted network.

    Definition. Edges are taken undirected; parallel edges and arcs are merged by summing their weights,
    self-loops are ignored; weights are scaled to median 1 and clipped to ``[0.1, 10]``. Each connected
    component C with ``|C| >= 3`` is laid out by Fruchterman-Reingold (igraph, ``iterations`` steps, the
    attraction along an edge multiplied by its weight, and by 0.3 more for an edge between two clusters,
    so that clusters stand apart as in the partition) from cluster-aware initial positions: the
    clusters of C (``clusters``, e.g. the network's communities) are placed by a layout of the cluster
    graph (clusters joined by their summed edge weights) at a distance of order ``sqrt(|C|)``, and each
    node starts near its cluster's place, so that clusters begin apart and the force model refines them.
    A component is then centred and scaled to a root-mean-square radius of ``sqrt(|C|) / 2`` (equal node
    density everywhere); one node sits at its centre and two lie on a unit segment. Components are
    packed in rows, largest first (ties: smallest node), so a map of many components stays compact.
    Finally the map is centred on the origin and scaled so that ``max |x|, |y| = 1`` (unless it is a
    single point), and coordinates are rounded to ``precision`` decimals.

    Deterministic: every random choice comes from ``seed`` (numpy's generator for the initial
    positions, a seeded `random.Random` as igraph's generator), so equal inputs give equal coordinates.

    Parameters
    ----------
    n : number of nodes.
    source, target : integer node codes of the edges.
    weight : edge weights (> 0), or None for 1 each.
    clusters : an integer cluster per node, or None (one cluster).
    algorithm : ``"fr"`` (the only one so far).
    seed, iterations : the random seed and the number of force-directed steps.
    precision : decimals kept.
    copy : False lets the layout scale and reorder `source`, `target` and `weight` in place when they are
        writable numpy arrays (int32 codes, float64 weights) read for it alone, as the layout job's are,
        rather than hold a second copy of the edges beside them.

    Returns
    -------
    numpy.ndarray of float64, shape ``(n, 2)``.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown layout algorithm {algorithm!r}; known: {list(ALGORITHMS)}")
    if n == 0:
        return np.zeros((0, 2))
    i, j, w = _simple_edges(n, source, target, weight, copy)
    clusters = np.zeros(n, dtype=np.int64) if clusters is None else np.asarray(clusters, dtype=np.int64)
    component, count, rank, nodes_of, starts, local = _ranked(n, i, j)
    i, j, w, edge_starts = _by_component(component, count, local, i, j, w, copy)
    pieces = []
    for r, c in enumerate(rank):
        members = nodes_of[starts[c]:starts[c + 1]]
        edges = slice(edge_starts[c], edge_starts[c + 1])
        xy = _component_layout(len(members), i[edges], j[edges], w[edges], clusters[members],
                               np.random.default_rng([seed, r]), seed, iterations)
        pieces.append((members, xy))
    out = np.zeros((n, 2))
    for members, xy in _pack(pieces):
        out[members] = xy
    return _finish(out, precision)


def _simple_edges(n: int, source, target, weight, copy: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Undirected edges ``i < j`` without repeats (weights summed), in order of ``(i, j)``, as int32 codes
    (int64 from 2^31 nodes), and weights scaled to median 1. Edges that are so already (an undirected
    network's table: each edge once, source < target, sorted) are taken as they are, without a copy, and
    without `copy` their weights are scaled in place."""
    dtype = np.int32 if n < 2 ** 31 else np.int64
    s, t = np.asarray(source).astype(dtype, copy=False), np.asarray(target).astype(dtype, copy=False)
    w = np.ones(len(s)) if weight is None else np.asarray(weight, dtype=np.float64)
    if not _simple(n, s, t):
        s, t, w = _merged(n, s, t, w)
    if len(w):
        w = np.divide(w, np.median(w), out=None if copy else w)
        np.clip(w, 1 / _MAX_WEIGHT_RATIO, _MAX_WEIGHT_RATIO, out=w)
    return s, t, w


def _simple(n: int, s: np.ndarray, t: np.ndarray) -> bool:
    """Whether every edge has ``s < t`` and the pairs strictly increase: then merging would change nothing
    (each weight summed alone), and the edges need no copy."""
    if not (s < t).all():
        return False
    key = s.astype(np.int64) * n + t
    return bool((key[1:] > key[:-1]).all())


def _merged(n: int, s: np.ndarray, t: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edges ``i < j`` in order, each once with the summed weights of its arcs and parallel edges (in
    their order), self-loops left out."""
    keep = s != t
    a, b, w = np.minimum(s, t)[keep], np.maximum(s, t)[keep], w[keep]
    key, inverse = np.unique(a.astype(np.int64) * n + b, return_inverse=True)
    w = np.bincount(inverse.ravel(), weights=w, minlength=len(key))
    return (key // n).astype(s.dtype), (key % n).astype(s.dtype), w


def _by_component(component: np.ndarray, count: int, local: np.ndarray, i, j, w, copy: bool = True):
    """The edges grouped by component (in their order within each) with the codes of their nodes within
    it, and where each component's edges start: each component's edges are a slice (grouping them as each
    is laid out would hold a second copy of the largest), in a copy or, without `copy`, in place."""
    of_edge = component[i]
    order = np.argsort(of_edge, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(of_edge, minlength=count))]
    del of_edge
    if copy:
        return local[i[order]], local[j[order]], w[order], starts
    for values, codes in ((i, local), (j, local), (w, None)):
        values[:] = values[order] if codes is None else codes[values[order]]
    return i, j, w, starts


def _ranked(n: int, i: np.ndarray, j: np.ndarray):
    """The component of each node and their number; the components' order (largest first, then by first
    node); the nodes grouped by component in node order, where each component's start; and each node's
    code within its component (of the dtype of `i`)."""
    component, count = _components(n, i, j)
    sizes = np.bincount(component, minlength=count)
    first = np.full(count, n, dtype=np.int64)
    np.minimum.at(first, component, np.arange(n, dtype=np.int64))
    rank = np.lexsort((first, -sizes))
    nodes_of = np.argsort(component, kind="stable")
    starts = np.r_[0, np.cumsum(sizes)]
    local = np.empty(n, dtype=i.dtype)
    local[nodes_of] = np.arange(n) - np.repeat(starts[:-1], sizes)
    return component, count, rank, nodes_of, starts, local


def _components(n: int, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, int]:
    """Connected-component label of each node (labels in order of first node) and their number."""
    from .graph import igraph_from_codes

    membership = np.asarray(igraph_from_codes(n, i, j).connected_components().membership)
    return membership.astype(np.int64), int(membership.max()) + 1


def _component_layout(size: int, i, j, w, clusters, rng: np.random.Generator, seed: int,
                      iterations: int) -> np.ndarray:
    """One connected component, centred, with a root-mean-square radius of sqrt(size) / 2."""
    if size == 1:
        return np.zeros((1, 2))
    if size == 2:
        return np.array([[-0.5, 0.0], [0.5, 0.0]])
    from .graph import igraph_from_codes

    start = _initial(size, i, j, w, clusters, rng, seed)
    graph = igraph_from_codes(size, i, j)   # pairs from an iterator: no Python object per edge at once
    w = _pulls(i, j, w, clusters)
    with _igraph_random(seed):              # weights as an array: igraph reads it without a Python list
        xy = np.asarray(graph.layout_fruchterman_reingold(weights=w, niter=iterations,
                                                          seed=start.tolist(), grid="auto").coords)
    xy = xy - xy.mean(axis=0)
    rms = np.sqrt((xy ** 2).sum(axis=1).mean())
    return xy * (np.sqrt(size) / 2 / rms) if rms > 0 else xy


def _pulls(i: np.ndarray, j: np.ndarray, w: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """The attraction of each edge: its weight, × 0.3 between two clusters. Computed after the graph is
    built (igraph's construction is the job's peak) and in place in one copy of the weights."""
    pull = w.copy()
    pull[clusters[i] != clusters[j]] *= _BETWEEN
    return pull


def _initial(size: int, i, j, w, clusters, rng: np.random.Generator, seed: int) -> np.ndarray:
    """Start positions: each node near the place of its cluster in a layout of the cluster graph."""
    labels, code = np.unique(clusters, return_inverse=True)
    code = code.ravel().astype(np.int32)    # per edge below: 4 bytes, not 8
    k = len(labels)
    members = np.bincount(code, minlength=k).astype(np.float64)
    centre = np.zeros((k, 2))
    if k > 1:
        centre = _cluster_places(k, code[i], code[j], w, members, seed)
    spread = np.sqrt(members[code])[:, None] / 2
    return centre[code] + rng.normal(size=(size, 2)) * spread


def _cluster_places(k: int, ci, cj, w, members: np.ndarray, seed: int) -> np.ndarray:
    """A layout of the cluster graph scaled so that clusters sit about sqrt(total) apart."""
    from ._igraph import ig

    between = ci != cj
    a, b = np.minimum(ci, cj)[between], np.maximum(ci, cj)[between]
    key, inverse = np.unique(a * np.int64(k) + b, return_inverse=True)
    strength = np.bincount(inverse.ravel(), weights=w[between], minlength=len(key))
    graph = ig.Graph(n=k, edges=np.column_stack([key // k, key % k]))
    angle = np.arange(k) * (2 * np.pi / k)
    ring = np.column_stack([np.cos(angle), np.sin(angle)]) * np.sqrt(k)
    weights = (strength / strength.max()).tolist() if len(strength) else None
    with _igraph_random(seed):
        xy = np.asarray(graph.layout_fruchterman_reingold(weights=weights, niter=500, seed=ring.tolist()).coords)
    xy = xy - xy.mean(axis=0)
    rms = np.sqrt((xy ** 2).sum(axis=1).mean())
    return xy * (np.sqrt(members.sum()) / 2 / rms) if rms > 0 else ring


class _igraph_random:
    """igraph's random number generator set to `random.Random(seed)` for the duration of a call."""

    def __init__(self, seed: int):
        self.seed = seed

    def __enter__(self):
        from ._igraph import ig

        ig.set_random_number_generator(random.Random(self.seed))

    def __exit__(self, *exc):
        from ._igraph import ig

        ig.set_random_number_generator(random)


def _pack(pieces: list[tuple[np.ndarray, np.ndarray]]):
    """Place the components (largest first) in rows of about the square root of their total area."""
    boxes = []
    for members, xy in pieces:
        low, high = xy.min(axis=0), xy.max(axis=0)
        boxes.append((members, xy - low, high - low + _GAP))
    width = max(max(size[0] for _, _, size in boxes), np.sqrt(sum(s[0] * s[1] for _, _, s in boxes)))
    x = y = row_height = 0.0
    for members, xy, size in boxes:
        if x > 0 and x + size[0] > width:
            x, y, row_height = 0.0, y - row_height, 0.0
        row_height = max(row_height, size[1])
        yield members, xy + np.array([x, y - size[1]])
        x += size[0]


def _finish(xy: np.ndarray, precision: int) -> np.ndarray:
    """Centre on the origin, scale to ``max |coordinate| = 1`` and round (no negative zeros)."""
    low, high = xy.min(axis=0), xy.max(axis=0)
    xy = xy - (low + high) / 2
    extent = np.abs(xy).max()
    if extent > 0:
        xy = xy / extent
    return np.round(xy, precision) + 0.0
