"""Every pair of members of each group, enumerated: what counting.py counts, one row per pair.

Vectorised, and in blocks of whole groups (`group_pairs`), so that the evidence table (evidence.py)
is built at the cost of the pair count itself, in bounded memory.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import scipy.sparse as sp


_PAIR_CHUNK = 4_000_000  # evidence enumerates group pairs at most this many at a time (plus one group)


def _pairs_of_runs(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For consecutive runs of the given sizes: ``(run, first, second)`` positions of every pair in a run."""
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    position = np.arange(total, dtype=np.int64) - np.repeat(starts, sizes)
    later = np.repeat(sizes, sizes) - position - 1
    first = np.repeat(np.arange(total, dtype=np.int64), later)
    run_start = np.repeat(np.cumsum(later) - later, later)
    second = first + 1 + (np.arange(len(first), dtype=np.int64) - run_start)
    run = np.repeat(np.repeat(np.arange(len(sizes), dtype=np.int64), sizes), later)
    return run, first, second


def pairs_within_groups(groups: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(a < b)`` of members sharing a group, with the group: ``(g, a, b)``, vectorised.

    Its length is Σ_g C(n_g, 2), the same as the total raw weight.
    """
    groups = np.asarray(groups, dtype=np.int64)
    members = np.asarray(members, dtype=np.int64)
    if len(groups) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    order = np.lexsort((members, groups))
    g, m = groups[order], members[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    _, first, second = _pairs_of_runs(np.diff(np.r_[starts, len(g)]))
    return g[first], m[first], m[second]


def group_pairs(matrix: sp.csr_matrix, chunk: int | None = None) -> Iterator[tuple[np.ndarray, ...]]:
    """``(g, a, b)`` for every pair ``a < b`` of members of each group (rows of a canonical CSR matrix),
    in blocks of whole groups holding at most `chunk` pairs (or one larger group), so memory stays bounded."""
    chunk = _PAIR_CHUNK if chunk is None else chunk
    sizes = np.diff(matrix.indptr).astype(np.int64)
    ends = np.cumsum(sizes * (sizes - 1) // 2)
    g0, n_groups = 0, len(sizes)
    while g0 < n_groups:
        base = int(ends[g0 - 1]) if g0 else 0
        g1 = max(int(np.searchsorted(ends, base + chunk, side="right")), g0 + 1)
        g1 = min(g1, n_groups)
        if ends[g1 - 1] > base:
            lo = int(matrix.indptr[g0])
            run, first, second = _pairs_of_runs(sizes[g0:g1])
            members = matrix.indices[lo:int(matrix.indptr[g1])].astype(np.int64)
            yield run + g0, members[first], members[second]
        g0 = g1
