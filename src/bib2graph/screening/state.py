"""Where people's screening stands, from the pool, the seeds and `config/curation.tsv` alone.

- The works to screen are the pooled works that are not seeds (the queue's works, decided or not).
- What the model learns from: the seeds a person did not reject and the accepted works are includes;
  the rejected works are excludes. Decisions on works outside the pool are left out.
- The screening sequence, for the stopping rule: the decisions on works to screen in the order they were
  made (`decided_at`, ISO 8601; rows without a time first; ties by work ID), 1 for accept, 0 for reject.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from . import stopping


@dataclass(frozen=True)
class State:
    includes: list[str]        # sorted
    excludes: list[str]        # sorted
    sequence: list[tuple[str, int]]   # (work ID, 1 accept / 0 reject) in decision order
    to_screen: int
    waiting: list[str]         # the works to screen without a decision, sorted

    @property
    def trainable(self) -> bool:
        """The model ranks once there is an include and an exclude; before, the queue is in ID order."""
        return bool(self.includes) and bool(self.excludes)

    def stop_test(self, stopping_spec: dict[str, Any]) -> stopping.StopTest:
        return stopping.test([label for _, label in self.sequence], self.to_screen,
                             float(stopping_spec["recall"]), float(stopping_spec["confidence"]))


class ToScreen:
    """The pool and its seeds, kept: the state after each decision is then one pass over the decisions
    and the works to screen, with no sort of the pool."""

    def __init__(self, pool: Iterable[str], seeds: Iterable[str]) -> None:
        self.pool = frozenset(pool)
        self.seeds = frozenset(seeds) & self.pool
        self.works = sorted(self.pool - self.seeds)

    def state(self, decisions: dict) -> State:
        """The state of screening (see the module docstring); `decisions` maps work ID → curation.Decision."""
        pool, seeds = self.pool, self.seeds
        decided = {w: d for w, d in decisions.items() if w in pool}
        rejected = {w for w, d in decided.items() if d.decision == "reject"}
        includes = sorted((seeds - rejected) | {w for w, d in decided.items() if d.decision == "accept"})
        screened = sorted(((d.decided_at or "", w, int(d.decision == "accept")) for w, d in decided.items()
                           if w not in seeds))
        return State(includes, sorted(rejected), [(w, label) for _, w, label in screened], len(self.works),
                     [w for w in self.works if w not in decided])


def state(pool: Iterable[str], seeds: Iterable[str], decisions: dict) -> State:
    """The state of screening (see the module docstring); `decisions` maps work ID → curation.Decision."""
    return ToScreen(pool, seeds).state(decisions)
