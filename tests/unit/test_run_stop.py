"""Stopping Snakemake (service.run._snakemake) when it does not stop: a run must end, never hang holding
the workspace's lock (seen once in eleven SIGTERMs: Snakemake deadlocked in its own signal handler)."""

from __future__ import annotations

import os
import signal
import sys
import threading

import psutil
import pytest

from bib2graph.service import run

#: a stand-in for a Snakemake that ignores the request to stop, with a job of its own that does too
DEAF = ("import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "job = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)'])\n"
        "print(job.pid, flush=True)\n"
        "time.sleep(600)\n")


def _run_deaf(signals: list[int], tmp_path, monkeypatch) -> tuple[tuple[int, bool], int]:
    """Run the stand-in through `_snakemake`, send ourselves `signals` once it has started (distinct ones: two
    of a kind pending at once are one); its (exit, interrupted) and its job's pid."""
    monkeypatch.chdir(tmp_path)
    lines: list[str] = []
    started = threading.Event()

    def on_line(line: str) -> None:
        lines.append(line)
        started.set()

    def signal_us() -> None:
        started.wait(60)
        for sig in signals:
            os.kill(os.getpid(), sig)

    sender = threading.Thread(target=signal_us)
    sender.start()
    lock = os.open(os.devnull, os.O_RDONLY)
    try:
        found = run._snakemake([sys.executable, "-c", DEAF], dict(os.environ), lock, on_line)
    finally:
        os.close(lock)
        sender.join()
    return found, int(lines[0])


@pytest.mark.long
@pytest.mark.parametrize("signals, grace", [([signal.SIGTERM], 1.0), ([signal.SIGTERM, signal.SIGINT], 600.0)],
                         ids=["one-signal-then-the-grace", "a-second-signal"])
def test_a_snakemake_that_does_not_stop_is_killed_with_its_jobs(signals, grace, tmp_path, monkeypatch):
    """One signal: after STOP_GRACE seconds; a second signal: at once (the grace, 600 s, never ends here:
    the stand-in would sleep as long)."""
    monkeypatch.setattr(run, "STOP_GRACE", grace)
    (code, interrupted), job = _run_deaf(signals, tmp_path, monkeypatch)
    assert interrupted and code == -signal.SIGKILL
    try:                           # SIGKILL is delivered when the job is next scheduled: wait for its end
        _, alive = psutil.wait_procs([psutil.Process(job)], timeout=60)
    except psutil.NoSuchProcess:
        alive = []
    assert not alive
