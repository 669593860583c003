"""Work a job runs beside its own, in a forked process, when Snakemake gives it a second thread and the
machine has a core to spare (`spare_core`).

The stability score's other Leiden runs need only the graph, not PageRank or the seed's partition, so where
a network is built in one process (`networks.build` with `stability`) they run while it clusters and ranks
(the workflow's network job leaves them to the stability job); the export job's CSV tables need nothing of
the other formats. igraph and the writers hold the GIL, so threads would not
overlap; a forked child shares the job's memory copy-on-write and sends back each result (numpy arrays, a
few MB, or nothing) as it is done. The results are the same wherever the work runs; work a child did not
send because it died (the kernel's out-of-memory killer, say; or an error, which the job then raises) is
done again in the job. So is work the child is starved of CPU for: at the lowest priority on a node other
processes fill, it gets almost none, and a job waiting for it would wait on them (at 20k works beside a
test suite, 3 s for a centrality the job computed in 1); the waiter stops it and does the rest itself.
"""

from __future__ import annotations

import glob
import multiprocessing
import os
from pathlib import Path
from typing import Any, Callable, Iterable

#: graphs with fewer edges keep all work in the job: a fork costs more than it saves there
FORK_MIN_EDGES = 50_000
#: nor do graphs with more: the child's own memory (Leiden's, some 40–90 bytes an edge) on
#: top of the job's would pass what the job asks of the scheduler (at 100k works, 41.6M coupling edges:
#: 5.8 GB in the job, 3.7 GB in the child)
FORK_MAX_EDGES = 20_000_000
#: the child's niceness: the lowest priority, so it only takes CPU the job's own stages leave
CHILD_NICENESS = 19


def spare_core(idle: float | None = None, cpus: int | None = None) -> bool:
    """Whether the machine has a core to spare for a child: two or more usable CPUs (`cpus`, the job's
    affinity) of which other processes leave the job's own and `SPARE` of another idle (`idle`, default
    `idle_cores()`, measured while the job waits for it). On a busy node a child at the lowest priority
    only waits while the job waits for it (at 20k works beside a test suite using both cores the stability
    run took 13–28 s so, against one Leiden call's 4–13 s in the job): there the work is better done in
    the job, after its own stages. Where it runs changes no result.

    Idle time, not the load average: the 1-minute load lags, and counts the job's own past and the jobs
    that ran before it on that core, so on an idle two-core machine it often stood above 1 and the child
    was refused."""
    if cpus is None:
        cpus = len(_our_cpus())
    if cpus < 2:
        return False
    if idle is None:
        idle = idle_cores()
    return idle >= 1 + SPARE


#: idle CPU capacity, in cores, beside the job's own that counts as a core to spare (slack for short
#: bursts of other work)
SPARE = 0.75
#: seconds over which `idle_cores` measures
IDLE_WINDOW = 0.2


def _our_cpus() -> list[int]:
    """The CPUs this process may run on (a SLURM allocation or cpuset narrows them)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def idle_cores(window: float = IDLE_WINDOW) -> float:
    """The idle capacity, in cores, of the CPUs this process may use, over the next `window` seconds
    (psutil's per-CPU times); where they cannot be read, what the 1-minute load average leaves."""
    import psutil

    ours = _our_cpus()
    try:
        busy = psutil.cpu_percent(interval=window, percpu=True)
        return sum(100.0 - busy[k] for k in ours if k < len(busy)) / 100.0
    except (OSError, RuntimeError, NotImplementedError):   # pragma: no cover - platforms without CPU times
        return max(0.0, len(ours) - os.getloadavg()[0])


#: seconds between looks at a child the job waits for; and the share of a core below which, over such a
#: look, the child counts as starved
LOOK = 0.25
STARVED = 0.5


def beside(*works: Callable[[], Any], writes: Iterable[str | os.PathLike[str]] = ()) -> list[Callable[[], Any]]:
    """Start `works`, in order, in one forked process; one function per work waits for its result (then
    remembers it). The child sends each result when done, so the first can be had before the last. A
    child that died, or that got less than `STARVED` of a core over a `LOOK` while the job waited for it,
    is stopped and the works it did not send are done in the job; `writes` names the files the works
    write, whose temporary files a stopped child leaves behind (atomic_path) and the job removes."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        os.nice(CHILD_NICENESS)
        for work in works:
            send.send(work())
        send.close()

    process = context.Process(target=child, daemon=True)
    process.start()
    send.close()
    done: list[Any] = []
    here = False      # once the job does the rest itself

    def upto(k: int) -> Any:
        nonlocal here
        while len(done) <= k:
            if not here and _sent_or_starved(receive, process):
                try:
                    done.append(receive.recv())
                    continue
                except (EOFError, OSError):   # the child died before sending this one
                    pass
            if not here:
                here = True
                _stop(process, writes)
            done.append(works[len(done)]())
        if (len(done) == len(works) or here) and not receive.closed:
            receive.close()
            process.join()
        return done[k]
    return [lambda k=k: upto(k) for k in range(len(works))]


def _sent_or_starved(receive, process) -> bool:
    """Wait until the child has sent something (or died: True) or is starved (False)."""
    import psutil

    try:
        watched = psutil.Process(process.pid)
        used = sum(watched.cpu_times()[:2])
    except psutil.Error:
        return True                     # gone: its end of the pipe says how
    while True:
        if receive.poll(LOOK):
            return True
        try:
            now = sum(watched.cpu_times()[:2])
        except psutil.Error:
            return True
        if now - used < STARVED * LOOK:
            return False
        used = now


def _stop(process, writes: Iterable[str | os.PathLike[str]]) -> None:
    """Kill the child and remove the temporary files it was writing (nothing of it is renamed after)."""
    if process.is_alive():
        process.kill()
    process.join()
    for target in map(Path, writes):
        for leftover in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
            leftover.unlink(missing_ok=True)
