"""How well a screening order finds the includes, as the field measures it (ASReview's asreview-insights).

Every metric reads `labels`: 1 for an include, 0 for an exclude, in the order the works were screened,
the prior decisions left out (they were not screened by the order being judged). ``N = len(labels)``,
``R = sum(labels)``.

- recall after ``x`` (a fraction of ``N``): the share of the ``R`` includes among the first
  ``floor(x·N)`` works screened.
- WSS@r, work saved over sampling (Cohen et al. 2006, as asreview-insights computes it): for the
  largest ``k`` with ``k/R ≤ r``, the number of works a random order (``round(linspace(0, R, N))``
  includes after each work) needs to find ``k`` includes minus the number this order needs, over ``N``.
- ATD, average time to discovery: the mean position (1-based) at which each include is found, also
  given as a fraction of ``N``.
"""

from __future__ import annotations

import numpy as np


def _checked(labels) -> np.ndarray:
    seq = np.asarray(labels, dtype=np.int64)
    if not len(seq) or not seq.sum():
        raise ValueError("screening metrics need at least one include among the screened works")
    return seq


def recall_curve(labels) -> np.ndarray:
    """Recall after each work screened (length N)."""
    seq = _checked(labels)
    return np.cumsum(seq) / seq.sum()


def recall_at(labels, fraction: float = 0.10) -> float:
    """Recall after screening `fraction` of the works."""
    seq = _checked(labels)
    k = int(np.floor(fraction * len(seq) + 1e-9))
    return float(seq[:k].sum() / seq.sum())


def wss(labels, recall: float = 0.95) -> float:
    """Work saved over sampling at `recall`."""
    seq = _checked(labels)
    n, total = len(seq), int(seq.sum())
    found = np.cumsum(seq)
    by_chance = np.round(np.linspace(0, total, n))
    wanted = np.arange(1, total + 1)
    saved = (np.searchsorted(by_chance, wanted) - np.searchsorted(found, wanted)) / n
    k = int(np.searchsorted(wanted / total, recall, side="right"))
    return float(saved[k - 1]) if k else 0.0


def atd(labels) -> tuple[float, float]:
    """(average time to discovery in works, the same as a fraction of N)."""
    seq = _checked(labels)
    positions = np.flatnonzero(seq) + 1
    mean = float(positions.mean())
    return mean, mean / len(seq)
