"""The map layout: deterministic, clusters apart, components packed apart, edge cases handled."""

from __future__ import annotations

import numpy as np
import pytest

from bib2graph.networks.layout import layout


def clustered(n_clusters: int = 4, size: int = 30, p_in: float = 0.3, bridges: int = 3, seed: int = 0):
    """A planted-partition graph: dense clusters joined by a few bridges."""
    rng = np.random.default_rng(seed)
    n = n_clusters * size
    cluster = np.repeat(np.arange(n_clusters), size)
    i, j = np.triu_indices(n, 1)
    same = cluster[i] == cluster[j]
    keep = same & (rng.random(len(i)) < p_in)
    src, dst = list(i[keep]), list(j[keep])
    for c in range(n_clusters):
        for _ in range(bridges):
            src.append(c * size + int(rng.integers(size)))
            dst.append(((c + 1) % n_clusters) * size + int(rng.integers(size)))
    return n, np.array(src), np.array(dst), cluster + 1


def test_the_same_network_gives_the_same_coordinates_and_a_seed_changes_them():
    n, s, t, c = clustered()
    a = layout(n, s, t, None, c, seed=7, iterations=100)
    b = layout(n, s, t, None, c, seed=7, iterations=100)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, layout(n, s, t, None, c, seed=8, iterations=100))
    assert np.array_equal(a, np.round(a, 6)) and np.abs(a).max() == 1.0


def test_clusters_lie_apart():
    n, s, t, c = clustered()
    xy = layout(n, s, t, None, c, iterations=100)
    centres = np.array([xy[c == k].mean(axis=0) for k in np.unique(c)])
    spread = np.mean([np.linalg.norm(xy[c == k] - centres[k - 1], axis=1).mean() for k in np.unique(c)])
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(len(centres)) for b in range(a)]
    assert min(gaps) > 1.5 * spread


def test_components_and_isolates_are_packed_without_overlapping():
    n, s, t, c = clustered(n_clusters=3, bridges=0)          # three components
    n_all = n + 5                                            # and five isolates
    xy = layout(n_all, s, t, np.ones(len(s)), np.r_[c, [4, 5, 6, 7, 8]], iterations=50)
    groups = [np.flatnonzero(c == k) for k in (1, 2, 3)] + [[k] for k in range(n, n_all)]
    boxes = [(xy[g, 0].min(), xy[g, 1].min(), xy[g, 0].max(), xy[g, 1].max()) for g in groups]
    for a in range(len(boxes)):
        for b in range(a):
            A, B = boxes[a], boxes[b]
            assert A[2] < B[0] or B[2] < A[0] or A[3] < B[1] or B[3] < A[1], (a, b)


@pytest.mark.parametrize("n,edges", [(0, []), (1, []), (2, [(0, 1)]), (3, [(0, 0)]), (4, [(0, 1), (1, 0), (1, 0)])])
def test_small_and_degenerate_networks(n, edges):
    s = np.array([e[0] for e in edges], dtype=np.int64)
    t = np.array([e[1] for e in edges], dtype=np.int64)
    xy = layout(n, s, t)
    assert xy.shape == (n, 2) and np.isfinite(xy).all()
    assert len({tuple(p) for p in xy}) == n                  # no two nodes on one spot
    assert not np.signbit(xy[xy == 0]).any()                # no negative zeros in the file


def test_unknown_algorithm_is_refused():
    with pytest.raises(ValueError, match="unknown layout algorithm"):
        layout(2, [0], [1], algorithm="kk")
