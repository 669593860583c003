"""`pair_counts` makes the pair product a block of rows at a time (issue 24: network jobs at a million
works within 8 GiB): whatever the blocks, it gives the whole product's strict upper triangle, sorted by
``(i, j)``, thresholded, with the same integer counts and the same float sums bit for bit."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.networks.counting import fractional_weights, incidence_matrix, pair_counts

from .counting_reference import pair_product, upper_triangle


@st.composite
def _incidences(draw) -> sp.csr_matrix:
    """A groups × members 0/1 matrix: empty groups and members, repeated incidences, one big group."""
    n_groups, n_members = draw(st.integers(0, 30)), draw(st.integers(0, 40))
    pairs = draw(st.lists(st.tuples(st.integers(0, max(n_groups - 1, 0)), st.integers(0, max(n_members - 1, 0))),
                          max_size=200)) if n_groups and n_members else []
    if n_groups and n_members and draw(st.booleans()):
        pairs += [(0, m) for m in range(n_members)]
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    return incidence_matrix(rows, cols, (n_groups, n_members))


def _weighted(a: sp.csr_matrix) -> sp.csr_matrix:
    share = fractional_weights(np.diff(a.indptr))
    return sp.csr_matrix((np.repeat(share, np.diff(a.indptr)), a.indices, a.indptr), shape=a.shape)


def _reference(a, weighted, min_weight):
    i, j, c = upper_triangle(pair_product(a, weighted))
    keep = c >= min_weight if min_weight > 1 else np.ones(len(c), bool)
    return i[keep], j[keep], c[keep]


@settings(max_examples=300, deadline=None)
@given(a=_incidences(), fractional=st.booleans(), min_weight=st.sampled_from([0, 1, 2, 3]),
       block=st.sampled_from([1, 2, 7, 50, 1 << 25]))
def test_blocks_give_the_whole_products_triangle(a, fractional, min_weight, block):
    weighted = _weighted(a) if fractional else None
    got = pair_counts(a, weighted, min_weight=min_weight, block=block)
    want = _reference(a, weighted, min_weight)
    for name, g, w in zip("ijc", got, want):
        assert np.array_equal(g, w), (name, g, w)
        assert g.dtype.kind == w.dtype.kind, name
    assert np.all(got[0] < got[1])
    if len(got[0]) > 1:   # sorted by (i, j)
        assert np.all(np.diff(got[0].astype(np.int64) * a.shape[1] + got[1]) > 0)


def test_a_small_block_makes_many_products_and_the_same_counts():
    """A larger case cut into many blocks of 1,000 multiplications (a block ends between rows, never inside one)."""
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 2000, 40_000)
    members = (rng.zipf(1.5, 40_000) - 1) % 3000
    a = incidence_matrix(groups, members, (2000, 3000))
    whole = pair_counts(a, min_weight=2)
    blocked = pair_counts(a, min_weight=2, block=1000)
    assert len(whole[0]) > 5_000
    for g, w in zip(blocked, whole):
        assert np.array_equal(g, w)
    for g, w in zip(whole, _reference(a, None, 2)):
        assert np.array_equal(g, w)
