"""SIGINT and SIGTERM during `b2g run --json`: one INTERRUPTED envelope (exit 5), nothing half-written,
nothing lost, and the next run resumes to the same results as a run that was never interrupted (the
built demo's: each case makes one of its networks stale)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import copy_workspace
from .helpers import b2g, check_envelope

pytestmark = pytest.mark.integration


def stale(built_demo: Path, target: Path) -> Path:
    """A copy of the demo whose keyword network (and what follows it) must be rebuilt: rebuilt, it is
    the demo's again, byte for byte."""
    root = copy_workspace(built_demo, target)
    (root / "results/networks/keywords/manifest.json").unlink()
    return root


def artifacts(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "results").rglob("*"))
            if p.is_file() and not {"logs", "benchmarks", "snapshots"} & set(p.relative_to(root).parts)}


def _job_running(root: Path) -> bool:
    """Snakemake marks a job's outputs incomplete when the job starts."""
    folder = root / ".snakemake" / "incomplete"
    return folder.is_dir() and any(folder.iterdir())


REPEATS = int(os.environ.get("B2G_SIGNAL_REPEATS", "1"))   # `make fuzz`: the Ctrl-C case 20 times
CASES = [("sigterm-to-b2g", 0)] + [("ctrl-c-to-the-group", n) for n in range(REPEATS)]   # SIGINT to b2g: as SIGTERM


@pytest.mark.long
@pytest.mark.parametrize("how, attempt", CASES, ids=[f"{how}-{n}" for how, n in CASES])
def test_an_interrupted_run_ends_in_an_envelope_and_resumes(how, attempt, built_demo, tmp_path):
    """Each attempt signals a little later into the job (not a synchronisation: where the signal lands
    varies); what b2g, Snakemake and the job print as they stop goes to the run's interruption log,
    never to the terminal."""
    root = stale(built_demo, tmp_path / "review")
    config = {p: p.read_bytes() for p in sorted((root / "config").rglob("*")) if p.is_file()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "run", "--cores", "1", "--json", "--workspace",
                             str(root)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not _job_running(root):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before a job started"
        time.sleep(0.02)
    time.sleep(0.05 * (attempt % 10))
    if how == "sigterm-to-b2g":
        proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(proc.pid, signal.SIGINT)   # what a terminal's Ctrl-C does: every process of the group
    out, err = proc.communicate(timeout=300)

    assert proc.returncode == 5, err[-3000:]
    lines = out.splitlines()
    assert len(lines) == 1, out
    envelope = json.loads(lines[0])
    check_envelope(envelope)
    assert envelope["error"]["code"] == "INTERRUPTED" and envelope["error"]["retryable"] is True
    assert "Traceback" not in err and "WorkflowError" not in err, err[-3000:]
    assert (root / ".snakemake/b2g/interrupted.log").is_file()
    assert not list((root / "results").rglob(".*.tmp"))     # nothing half-written
    assert {p: p.read_bytes() for p in sorted((root / "config").rglob("*")) if p.is_file()} == config
    assert not (root / ".snakemake/b2g/last-good").exists()

    resumed = b2g("run", "--cores", "1", "--json", "--workspace", str(root))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert artifacts(root) == artifacts(built_demo)
    assert b2g("status", "--json", "--workspace", str(root)).envelope["data"]["up_to_date"] is True
