"""The layout as it was before the job held its edges once (int64 codes, each component's edges copied
out of the whole, the weights handed to igraph as a Python list): the reference the lean layout must equal
byte for byte (tests/unit/test_layout.py). The steps it did not change are the module's own."""

from __future__ import annotations

import numpy as np

from bib2graph.networks.graph import igraph_from_codes
from bib2graph.networks.layout import (_BETWEEN, _MAX_WEIGHT_RATIO, _finish, _igraph_random, _initial, _pack,
                                       _ranked)


def layout(n: int, source, target, weight=None, clusters=None, *, seed: int = 42, iterations: int = 200):
    if n == 0:
        return np.zeros((0, 2))
    i, j, w = _simple_edges(n, source, target, weight)
    clusters = np.zeros(n, dtype=np.int64) if clusters is None else np.asarray(clusters, dtype=np.int64)
    component, count, rank, nodes_of, starts, local = _ranked(n, i, j)
    edge_order = np.argsort(component[i], kind="stable")
    edge_starts = np.r_[0, np.cumsum(np.bincount(component[i], minlength=count))]
    pieces = []
    for r, c in enumerate(rank):
        members = nodes_of[starts[c]:starts[c + 1]]
        edges = edge_order[edge_starts[c]:edge_starts[c + 1]]
        xy = _component_layout(len(members), local[i[edges]], local[j[edges]], w[edges], clusters[members],
                               np.random.default_rng([seed, r]), seed, iterations)
        pieces.append((members, xy))
    out = np.zeros((n, 2))
    for members, xy in _pack(pieces):
        out[members] = xy
    return _finish(out, 6)


def _simple_edges(n, source, target, weight):
    s = np.asarray(source, dtype=np.int64)
    t = np.asarray(target, dtype=np.int64)
    w = np.ones(len(s)) if weight is None else np.asarray(weight, dtype=np.float64)
    keep = s != t
    a, b, w = np.minimum(s, t)[keep], np.maximum(s, t)[keep], w[keep]
    key, inverse = np.unique(a * np.int64(n) + b, return_inverse=True)
    w = np.bincount(inverse.ravel(), weights=w, minlength=len(key))
    if len(w):
        w = np.clip(w / np.median(w), 1 / _MAX_WEIGHT_RATIO, _MAX_WEIGHT_RATIO)
    return key // n, key % n, w


def _component_layout(size, i, j, w, clusters, rng, seed, iterations):
    if size == 1:
        return np.zeros((1, 2))
    if size == 2:
        return np.array([[-0.5, 0.0], [0.5, 0.0]])
    start = _initial(size, i, j, w, clusters, rng, seed)
    w = np.where(clusters[i] != clusters[j], w * _BETWEEN, w)
    graph = igraph_from_codes(size, i, j)
    with _igraph_random(seed):
        xy = np.asarray(graph.layout_fruchterman_reingold(weights=w.tolist(), niter=iterations,
                                                          seed=start.tolist(), grid="auto").coords)
    xy = xy - xy.mean(axis=0)
    rms = np.sqrt((xy ** 2).sum(axis=1).mean())
    return xy * (np.sqrt(size) / 2 / rms) if rms > 0 else xy
