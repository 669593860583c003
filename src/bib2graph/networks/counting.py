"""Counting the member pairs that share a group (steps 2 to 4 of the recipe in builders.py).

A groups × members 0/1 incidence matrix ``A`` gives every pair count at once as the strict upper
triangle of the sparse product ``Aᵀ W A`` (``W`` = diagonal group weights: 1, or ``1/(n_g − 1)`` for
fractional counting). No dense n × n matrix is built, and no pair is enumerated (pairs.py does that, for
the evidence table). The product is made a block of rows at a time (`pair_counts`), each block's strict
upper triangle thresholded before the next: memory is that of the pairs kept plus one block's product,
not of every pair (at a million works the co-citation product held some 250M entries, of which the
threshold keeps 22M).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .coding import argsort_ids


COUNT_DIGITS = 12  # fractional counts are rounded to 12 significant digits to drop summation noise


def round_sig(values: np.ndarray, digits: int) -> np.ndarray:
    """Round to `digits` significant digits, so that sums whose order could vary print the same."""
    x = np.asarray(values, dtype=np.float64).copy()
    ok = np.isfinite(x) & (x != 0)
    if ok.any():
        magnitude = np.floor(np.log10(np.abs(x[ok])))
        factor = 10.0 ** (digits - 1 - magnitude)
        x[ok] = np.round(x[ok] * factor) / factor
    return x


def incidence_matrix(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """The 0/1 CSR matrix with a one at each ``(row, col)``; repeated pairs count once."""
    dtype = np.int32 if max(shape) < 2**31 else np.int64
    m = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows.astype(dtype), cols.astype(dtype))),
                      shape=shape)           # canonical: sorted columns, duplicates summed
    m.data[:] = 1
    return m


def _recode_columns(m: sp.csr_matrix, new: np.ndarray, n_new: int) -> sp.csr_matrix:
    """`m` with column c moved to ``new[c]``; columns with ``new[c] < 0`` are dropped."""
    cols = new[m.indices]
    keep = cols >= 0
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))[keep]
    return incidence_matrix(rows, cols[keep], (m.shape[0], n_new))


def cooccurrence(groups: np.ndarray, members: np.ndarray, n_members: int,
                 group_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count member pairs sharing a group: the strict upper triangle of ``Aᵀ W A``.

    `groups` and `members` are integer codes of distinct incidences; `group_weight`, indexed by group
    code, is the contribution of one group to each of its pairs (None = 1 each, exact integers).
    Returns ``(i, j, c)`` sorted by ``(i, j)`` with ``i < j``; c is float64.
    """
    groups = np.asarray(groups, dtype=np.int64)
    members = np.asarray(members, dtype=np.int64)
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    a = sp.csr_matrix((np.ones(len(groups), dtype=np.int64), (groups, members)), shape=(n_groups, n_members))
    if group_weight is None:
        i, j, c = pair_counts(a)
        return i, j, c.astype(np.float64)
    weighted = sp.csr_matrix((np.asarray(group_weight, dtype=np.float64)[groups], (groups, members)),
                             shape=(n_groups, n_members))
    i, j, c = pair_counts(a, weighted)
    return i, j, round_sig(c, COUNT_DIGITS)


#: multiplications per block of `pair_counts`' product (each makes at most one product entry of some 16
#: bytes with its temporaries): about 500 MB a block
PRODUCT_BLOCK = 1 << 25


def pair_counts(a: sp.csr_matrix, weighted: sp.csr_matrix | None = None, min_weight: float = 0,
                block: int = PRODUCT_BLOCK) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, c)`` of the strict upper triangle of ``Aᵀ A`` (``Aᵀ W A`` with `weighted` = ``W A``) of a
    groups × members matrix, sorted by ``(i, j)``, entries below `min_weight` (and zeros) left out.

    The rows of ``Aᵀ`` go in blocks of about `block` multiplications (the sizes of the groups of each
    member, summed); each block's product is made, cut to its upper triangle and threshold, and dropped.
    An entry is summed over its groups in the order the whole product sums it, so the values are those
    of the whole product's triangle (tests/unit/counting_reference.py), float sums included, bit for bit.
    """
    at = a.T.tocsr()
    right = a if weighted is None else weighted
    n = at.shape[0]
    code = np.int32 if n < 2**31 else np.int64
    work = np.concatenate([[0], np.cumsum(np.diff(a.indptr)[at.indices], dtype=np.int64)])[at.indptr]
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for start, stop in row_blocks(work, block):
        product = at[start:stop] @ right
        product.sort_indices()                                # each row's columns ascending: (i, j) order
        rows = np.repeat(np.arange(start, stop, dtype=code), np.diff(product.indptr))
        keep = product.indices > rows
        if product.data.dtype.kind == "f":                  # sums of positive integers are never 0
            keep &= product.data != 0
        if min_weight > 1:
            keep &= product.data >= min_weight
        found.append((rows[keep], product.indices[keep].astype(code), product.data[keep]))
        del product, rows, keep
    if not found:
        return np.zeros(0, code), np.zeros(0, code), np.zeros(0, right.dtype)
    return tuple(np.concatenate(part) for part in zip(*found))


def row_blocks(cumulative: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive ``(start, stop)`` ranges of rows holding about `budget` work each; `cumulative` holds
    the work before each row and the total last (n + 1 values). A row heavier than `budget` is a block of
    its own; no rows, no blocks."""
    cuts = np.unique(np.concatenate([[0], np.searchsorted(cumulative, np.arange(budget, cumulative[-1], budget)),
                                     [len(cumulative) - 1]]))
    return zip(cuts[:-1].tolist(), cuts[1:].tolist())


def select_members(m: sp.csr_matrix, uniques: pd.Index, occurrences: np.ndarray,
                    min_occurrences: int) -> tuple[sp.csr_matrix, pd.Index, np.ndarray]:
    """Keep the columns (members) of `m` with ``occurrences >= max(min_occurrences, 1)`` and recode them by
    sorted ID. Returns the groups × nodes matrix, the sorted node IDs and their occurrences."""
    kept = np.flatnonzero(occurrences >= max(min_occurrences, 1))
    kept_ids = uniques[kept]
    order = argsort_ids(kept_ids)
    new = np.full(len(uniques), -1, dtype=np.int64)
    new[kept[order]] = np.arange(len(kept), dtype=np.int64)
    ids = pd.Index(kept_ids[order], dtype="str")
    return _recode_columns(m, new, len(kept)), ids, occurrences[kept[order]]


def count_edges(a: sp.csr_matrix, min_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer pair counts of the groups × nodes matrix `a`, thresholded, as float64 counts."""
    i, j, c = pair_counts(a, min_weight=min_weight)
    return i, j, c.astype(np.float64)


def fractional_weights(sizes: np.ndarray) -> np.ndarray:
    """``1/(n_g − 1)`` per group (0 for single-member groups, which make no pairs anyway)."""
    sizes = sizes.astype(np.float64)
    return np.divide(1.0, sizes - 1.0, out=np.zeros_like(sizes), where=sizes > 1)
