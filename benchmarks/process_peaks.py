"""The peak resident memory of every process of a run: the command started and all its descendants.

A thread polls /proc every `interval` seconds for the processes descending from the one started and keeps,
per process, the largest VmHWM it read (Linux's high-water mark of the process's own resident set: it
only grows, so a late reading holds every earlier peak). A process born and gone between two polls is
missed, and one whose memory grew in its last moments is read a little low; `getrusage(RUSAGE_CHILDREN)`
after the run gives the exact largest peak among all of them, to compare: when it is above the largest
one polled, the table says so.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Peak:
    pid: int
    parent: int
    command: str
    peak_mb: float


def _status(pid: int) -> tuple[int, float] | None:
    """(parent pid, VmHWM in MB) of a live process, None when it is gone or has no memory (a zombie)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    if "VmHWM" not in fields:
        return None
    return int(fields["PPid"]), int(fields["VmHWM"].split()[0]) / 1024


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)


def _poll(root: int, seen: dict[int, Peak]) -> None:
    """One pass: every process whose ancestry reaches `root`, its peak kept when larger."""
    parents: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _status(int(entry))
            if found:
                parents[int(entry)] = found
    for pid, (parent, peak) in parents.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor][0]
        if ancestor != root:
            continue
        if pid not in seen:
            seen[pid] = Peak(pid, parent, _command(pid), peak)
        seen[pid].peak_mb = max(seen[pid].peak_mb, peak)


def run_watched(args: list[str], interval: float = 0.2, **popen) -> tuple[int, list[Peak], float]:
    """Run `args`; (exit status, every process's peak largest first, the exact largest peak of any
    descendant by getrusage in MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    process = subprocess.Popen(args, **popen)
    seen: dict[int, Peak] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.wait(interval):
            _poll(process.pid, seen)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    code = process.wait()
    done.set()
    watcher.join()
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    exact = largest / 1024 if largest > before else 0.0
    return code, sorted(seen.values(), key=lambda p: -p.peak_mb), exact
