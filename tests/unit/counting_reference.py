"""The pair counting networks/counting.py did before `pair_counts` made the product a block at a time: the
whole product, then its strict upper triangle. Kept as the reference the blocked counting must equal."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def upper_triangle(product: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, c)`` of the non-zero strict upper triangle of a symmetric CSR matrix, sorted by ``(i, j)``.

    Sparse products leave column indices unsorted; instead of sorting, take the strict *lower* triangle
    (row j, column i < j) and convert it to CSC: a linear-time counting sort that lists, for each column
    i, its rows j in increasing order, which is the upper triangle in ``(i, j)`` order. Codes keep the
    matrix's index type (int32 below 2³¹ entries); large temporaries are few, because on big products
    their first-touch page faults cost as much as the arithmetic.
    """
    n = product.shape[0]
    indices, data = product.indices, product.data
    rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(product.indptr))
    keep = np.less(indices, rows)
    if data.dtype.kind == "f":                                # sums of positive integers are never 0
        keep &= data != 0
    lower = sp.coo_matrix((data[keep], (rows[keep], indices[keep])), shape=(n, n))
    del rows, keep
    upper = lower.tocsc()                                     # rows stay in order within each column
    del lower
    i = np.repeat(np.arange(n, dtype=upper.indices.dtype), np.diff(upper.indptr))
    return i, upper.indices, upper.data


def pair_product(a: sp.csr_matrix, weighted: sp.csr_matrix | None = None) -> sp.csr_matrix:
    """``Aᵀ A`` (or ``Aᵀ W A`` with `weighted` = ``W A``) of a groups × members matrix, in CSR."""
    at = a.T.tocsr()
    return at @ (a if weighted is None else weighted)
