"""Edge-weight normalisations, computed on the sparse edge list only (never an n × n matrix).

Notation: ``c_ij`` raw count of an edge; ``s_i`` occurrences of node i; ``k_i = Σ_j c_ij`` total link
strength of i in the raw network as built (after both thresholds); ``2m = Σ_i k_i``.
"""

from __future__ import annotations

import numpy as np

from .counting import round_sig

FORMULAS = {
    "raw": "w_ij = c_ij",
    "association": "w_ij = c_ij / (s_i * s_j)",
    "association_vos": "w_ij = c_ij / (k_i * k_j / 2m), k_i = sum_j c_ij, 2m = sum_i k_i",
    "salton": "w_ij = c_ij / sqrt(s_i * s_j)",
    "jaccard": "w_ij = c_ij / (s_i + s_j - c_ij)",
    "inclusion": "w_ij = c_ij / min(s_i, s_j)",
    "equivalence": "w_ij = c_ij^2 / (s_i * s_j)",
}
METHODS = tuple(FORMULAS)

_DIGITS = 12


def link_strength(i: np.ndarray, j: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """``k_i = Σ_j c_ij`` over the undirected edge list (each edge counts for both ends)."""
    return np.bincount(i, weights=c, minlength=n) + np.bincount(j, weights=c, minlength=n)


def normalize(i: np.ndarray, j: np.ndarray, c: np.ndarray, occurrences: np.ndarray, method: str) -> np.ndarray:
    """Weights of the edges ``(i, j)`` with raw counts `c` under `method` (see FORMULAS)."""
    c = np.asarray(c, dtype=np.float64)
    if method == "raw" or len(c) == 0:
        return c.copy()
    s = np.asarray(occurrences, dtype=np.float64)
    si, sj = s[i], s[j]
    if method == "association":
        w = c / (si * sj)
    elif method == "association_vos":
        k = link_strength(i, j, c, len(s))
        w = c * k.sum() / (k[i] * k[j])
    elif method == "salton":
        w = c / np.sqrt(si * sj)
    elif method == "jaccard":
        w = c / (si + sj - c)
    elif method == "inclusion":
        w = c / np.minimum(si, sj)
    elif method == "equivalence":
        w = c * c / (si * sj)
    else:  # guarded by parameter validation
        raise ValueError(f"unknown normalization {method!r}")
    return round_sig(w, _DIGITS)
