"""Kleinberg's two-state burst detection over yearly counts (Kleinberg 2003, "Bursty and hierarchical
structure in streams", §4: documents arriving in batches).

Definitions. An item (a cited reference, a term, an author) is observed over ``n`` consecutive years. In
year ``t`` the corpus has ``d_t`` works, of which ``r_t`` carry the item (cite it, use it, are written by
it). The base state emits the item with probability ``p0 = Σ r_t / Σ d_t``; the burst state with
``p1 = s · p0`` (``s``: the state ratio; clipped below 1). The cost of year ``t`` in state ``i`` is the
binomial negative log-likelihood ``σ_i(t) = −ln[C(d_t, r_t) · p_i^r_t · (1 − p_i)^(d_t − r_t)]``;
entering the burst state costs ``γ · ln n``, leaving it is free. The state sequence of least total cost
(Viterbi, starting in the base state) marks the bursts: maximal runs of burst-state years. A burst's
strength is Kleinberg's weight ``Σ_{t in burst} (σ_0(t) − σ_1(t))``: how much better the burst state
explains those years.

CiteSpace's defaults are ``s = 2`` and ``γ = 1`` with a minimum burst duration of 2 years (its "Burstness"
panel); ``min_duration`` drops shorter bursts after the optimal sequence is found, as CiteSpace does.
Years with ``d_t = 0`` cost nothing in either state. The binomial coefficient is the same in both states,
so it never changes which sequence is best, but it is kept so that costs are true likelihoods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

#: CiteSpace's defaults: state ratio, transition cost factor, minimum duration in years
DEFAULT_S = 2.0
DEFAULT_GAMMA = 1.0
DEFAULT_MIN_DURATION = 2
#: p1 is kept below 1 so that a year without the item has a finite cost in the burst state
_P_MAX = 1.0 - 1e-9


@dataclass(frozen=True)
class Burst:
    """One burst of an item: years ``begin``..``end`` inclusive (indices into the years observed)."""

    item: int
    begin: int
    end: int
    strength: float


def _costs(r: np.ndarray, d: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """σ_0 and σ_1 for every item (rows) and year (columns)."""
    total_r = r.sum(axis=1, keepdims=True).astype(float)
    total_d = float(d.sum())
    p0 = np.clip(total_r / total_d if total_d else np.zeros_like(total_r), 1e-300, _P_MAX)
    p1 = np.minimum(p0 * s, _P_MAX)
    d = np.broadcast_to(d.astype(float), r.shape)
    log_choose = gammaln(d + 1) - gammaln(r + 1) - gammaln(d - r + 1)

    def sigma(p: np.ndarray) -> np.ndarray:
        return -(log_choose + r * np.log(p) + (d - r) * np.log1p(-p))
    return sigma(p0), sigma(p1)


def states(r: np.ndarray, d: np.ndarray, s: float = DEFAULT_S, gamma: float = DEFAULT_GAMMA) -> np.ndarray:
    """The least-cost state sequence (0 base, 1 burst) of each item: a bool array shaped like ``r``.

    ``r`` is items × years (``r_t`` per item), ``d`` the years' totals ``d_t``. Ties go to the base state,
    at every step and at the end: a flat series never bursts, and a burst does not start in the years
    before it that hold no works (entering later costs the same).
    """
    r = np.asarray(r, dtype=float)
    d = np.asarray(d, dtype=float)
    if r.ndim != 2 or d.shape != (r.shape[1],):
        raise ValueError("r must be items × years and d one total per year")
    if (r < 0).any() or (r > d).any():
        raise ValueError("counts must satisfy 0 ≤ r_t ≤ d_t")
    if s <= 1:
        raise ValueError("the state ratio s must be greater than 1")
    items, years = r.shape
    if not items or not years:
        return np.zeros(r.shape, dtype=bool)
    sigma0, sigma1 = _costs(r, d, s)
    enter = gamma * np.log(years) if years > 1 else 0.0
    cost0, cost1 = sigma0[:, 0].copy(), enter + sigma1[:, 0]
    back1_from1 = np.zeros((items, years), dtype=bool)   # best predecessor of state 1 at t is state 1
    back0_from1 = np.zeros((items, years), dtype=bool)   # best predecessor of state 0 at t is state 1
    for t in range(1, years):
        stay0, leave1 = cost0, cost1                     # into state 0: from 0, or from 1 for free
        from1_to0 = leave1 < stay0
        new0 = np.where(from1_to0, leave1, stay0) + sigma0[:, t]
        rise0, stay1 = cost0 + enter, cost1              # into state 1: from 0 paying γ ln n, or stay
        from1_to1 = stay1 < rise0                        # a tie: from the base (a burst starts as late as it may)
        new1 = np.where(from1_to1, stay1, rise0) + sigma1[:, t]
        back0_from1[:, t], back1_from1[:, t] = from1_to0, from1_to1
        cost0, cost1 = new0, new1
    out = np.zeros((items, years), dtype=bool)
    state = cost1 < cost0
    for t in range(years - 1, -1, -1):
        out[:, t] = state
        if t:
            state = np.where(state, back1_from1[:, t], back0_from1[:, t])
    return out


def detect(r: np.ndarray, d: np.ndarray, s: float = DEFAULT_S, gamma: float = DEFAULT_GAMMA,
           min_duration: int = DEFAULT_MIN_DURATION) -> list[Burst]:
    """Every burst of every item, sorted by item then begin; runs shorter than ``min_duration`` dropped."""
    r = np.asarray(r, dtype=float)
    d = np.asarray(d, dtype=float)
    burst = states(r, d, s, gamma)
    if not burst.any():
        return []
    sigma0, sigma1 = _costs(r, d, s)
    gain = sigma0 - sigma1
    padded = np.pad(burst.astype(np.int8), ((0, 0), (1, 1)))
    edges = np.diff(padded, axis=1)
    found = []
    for item, begin in zip(*np.nonzero(edges == 1)):
        end = int(np.argmax(edges[item, begin:] == -1)) + begin - 1
        if end - begin + 1 >= min_duration:
            found.append(Burst(int(item), int(begin), end, float(gain[item, begin:end + 1].sum())))
    return found
