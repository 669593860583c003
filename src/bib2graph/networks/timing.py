"""Seconds per stage of a network build, for the benchmark: never written to an artifact."""

from __future__ import annotations

import time
from typing import Callable


def stopwatch(timings: dict[str, float] | None) -> Callable[[str], None]:
    """A function `lap(stage)` adding the seconds since its previous call (or since now) to
    ``timings[stage]``; a no-op when `timings` is None, so a build without a benchmark pays nothing."""
    if timings is None:
        return lambda stage: None
    last = [time.perf_counter()]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        timings[stage] = timings.get(stage, 0.0) + now - last[0]
        last[0] = now

    return lap
