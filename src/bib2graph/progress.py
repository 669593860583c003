"""Progress of long reads, as a rich bar on stderr (what a person at a terminal sees while Snakemake
runs the job) and a line in the job's log every `LOG_EVERY` records (what a cluster's log keeps)."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Callable, Iterator

LOG_EVERY = 10_000


@contextmanager
def counting(label: str) -> Iterator[Callable[[int], None]]:
    """A callback taking the running count of records read; the bar closes with the block."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    log = logging.getLogger("bib2graph")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(label, total=None)

        def seen(count: int) -> None:
            bar.update(task, completed=count)
            if count % LOG_EVERY == 0:
                log.info("%s: %d records", label, count)
        yield seen
