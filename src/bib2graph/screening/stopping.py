"""When screening may stop: a statistical stopping rule with a stated guarantee, and a heuristic.

The rule is the hypergeometric test of Callaghan & Müller-Hansen (2020), "Statistical stopping criteria
for automated screening in systematic reviews", Systematic Reviews 9:273. Of the ``N`` works to screen,
``n`` were screened, in this order, and ``r`` of them included. The null hypothesis is that recall is
below the target τ: the total number of includes is ``R > r/τ``, so at least
``m = floor(r/τ) + 1 − r`` includes are still among the unscreened works. For each ``k`` the last ``k``
screened works are treated as a sample drawn without replacement from an urn of the ``N − n + k``
works that were not yet screened before them; the urn holds ``c_k`` (the includes among those ``k``)
plus the unscreened includes, so under the null at least ``K = c_k + m``. The chance of drawing at most
``c_k`` includes is the hypergeometric CDF ``P(X ≤ c_k; M = N − n + k, K, k)``, largest when ``K`` is
smallest, so that value bounds the p-value. The rule takes the smallest bound over ``k`` and says
"stop" when it is below ``1 − confidence``: recall ≥ τ with that confidence. A prioritised order makes
the last works screened *more* likely than a random draw to be includes, so the test is conservative
there (the authors' simulations; ours in `b2g simulate` report how often it held).

Within a run of non-includes the bound falls as ``k`` grows (one more work drawn, none of them an
include), so the minimum is found at the end of each run: ``r + 1`` evaluations, not ``n``.

The heuristic (information only, no guarantee): how many works in a row were excluded since the last
include.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

METHOD = "hypergeometric test (Callaghan & Müller-Hansen 2020)"


@dataclass(frozen=True)
class StopTest:
    """The rule's verdict after a sequence of screening decisions."""

    screened: int            # n
    to_screen: int           # N, screened and not
    includes: int            # r
    recall: float            # τ
    confidence: float
    p_value: float           # the bound on P(what was seen | recall < τ)
    stop: bool               # p_value < 1 − confidence
    more_to_screen: int | None   # excludes in a row after which the rule would say stop; None: never
    excludes_in_a_row: int   # the heuristic

    def describe(self) -> dict:
        """The verdict as the envelopes, PRISMA counts and the report give it."""
        target = f"recall ≥ {self.recall:.0%} with {self.confidence:.0%} confidence"
        if self.stop:
            verdict = f"safe to stop: {target}"
        elif self.screened >= self.to_screen:
            verdict = "nothing left to screen: every work was screened, so every include was found"
        elif self.more_to_screen is None:
            verdict = f"keep screening: {target} cannot be shown before every work is screened"
        else:
            verdict = (f"keep screening: about {self.more_to_screen} more to screen (if none of them is an "
                       f"include) before {target}")
        return {"method": METHOD, "recall_target": self.recall, "confidence": self.confidence,
                "screened": self.screened, "to_screen": self.to_screen, "includes_found": self.includes,
                "p_value": round(float(self.p_value), 6), "stop": self.stop,
                "more_to_screen": self.more_to_screen, "verdict": verdict,
                "heuristic": {"excludes_in_a_row": self.excludes_in_a_row,
                              "note": "information only: a run of excludes carries no guarantee"}}


def p_value(labels, to_screen: int, recall: float = 0.95) -> float:
    """The rule's bound on the p-value of "recall < `recall`", after screening `labels` (1 include,
    0 exclude, in screening order) out of `to_screen` works. 1.0 when nothing was found yet."""
    seen = np.asarray(labels, dtype=np.int64)
    n, r = len(seen), int(seen.sum())
    if n > to_screen:
        raise ValueError(f"{n} works screened out of {to_screen}")
    if r == 0:
        return 1.0
    from scipy.stats import hypergeom   # here: 0.7 s to import, and `b2g status` before any include needs none

    missing = math.floor(r / recall) + 1 - r         # the fewest includes left unscreened under the null
    last = seen[::-1]
    found = np.cumsum(last)                           # c_k: includes among the last k screened
    ends = np.append(last[1:] == 1, True)             # the last k of each run of non-includes
    k = np.arange(1, n + 1)[ends]
    c = found[ends]
    urn = to_screen - n + k
    bound = hypergeom.cdf(c, urn, np.minimum(c + missing, urn), k)
    bound = np.where(c + missing > urn, 0.0, bound)   # the urn cannot hold that many: the null is impossible
    return float(max(0.0, min(1.0, bound.min())))


def excludes_in_a_row(labels) -> int:
    """Works excluded since the last include (all of them when none was included)."""
    seen = np.asarray(labels, dtype=np.int64)
    hits = np.flatnonzero(seen)
    return int(len(seen) - 1 - hits[-1]) if len(hits) else len(seen)


def more_to_screen(labels, to_screen: int, recall: float, confidence: float) -> int | None:
    """How many more excludes in a row would make the rule say stop (0: it does now); None when even
    screening everything left would not (the bound falls as excludes are added, so a binary search)."""
    alpha = 1 - confidence
    seen = np.asarray(labels, dtype=np.int64)
    left = to_screen - len(seen)

    def stops(extra: int) -> bool:
        return p_value(np.append(seen, np.zeros(extra, dtype=np.int64)), to_screen, recall) < alpha

    if stops(0):
        return 0
    if not stops(left):
        return None
    low, high = 0, left                # stops(high), not stops(low)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if stops(mid) else (mid, high)
    return high


def test(labels, to_screen: int, recall: float = 0.95, confidence: float = 0.95) -> StopTest:
    """The rule's verdict and the heuristic after screening `labels` (in order) out of `to_screen` works."""
    seen = np.asarray(labels, dtype=np.int64)
    p = p_value(seen, to_screen, recall)
    stop = p < 1 - confidence
    more = 0 if stop else more_to_screen(seen, to_screen, recall, confidence)
    return StopTest(len(seen), int(to_screen), int(seen.sum()), recall, confidence, p, stop, more,
                    excludes_in_a_row(seen))


def first_stop(labels, to_screen: int, recall: float = 0.95, confidence: float = 0.95) -> int | None:
    """After how many of the decisions `labels` (in order) the rule first said stop; None if it never did."""
    seen = np.asarray(labels, dtype=np.int64)
    for n in range(1, len(seen) + 1):
        if seen[:n].any() and p_value(seen[:n], to_screen, recall) < 1 - confidence:
            return n
    return None


def screened_by_people(labels, to_screen: int, recall: float, confidence: float) -> dict:
    """What PRISMA records of people's screening: how many works were screened of how many, where the rule
    first said stop (the works screened before stopping) and its verdict now."""
    seen = np.asarray(labels, dtype=np.int64)
    return {"to_screen": int(to_screen), "screened": len(seen), "not_screened": int(to_screen - len(seen)),
            "included": int(seen.sum()), "excluded": int(len(seen) - seen.sum()),
            "stopping_rule": METHOD, "recall_target": recall, "confidence": confidence,
            "rule_fired_after": first_stop(seen, to_screen, recall, confidence),
            "verdict": test(seen, to_screen, recall, confidence).describe()["verdict"]}
