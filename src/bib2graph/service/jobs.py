"""The workflow as a background job, for long-lived adapters (the local API, an MCP server).

One `RunJobs` per workspace runs `b2g run --json` as a child process, one at a time: a second start
while one runs is `RUN_IN_PROGRESS`. The child is the CLI itself, so a job does exactly what
`b2g run` does (lock, preflight, last good outputs, an envelope whatever happens), and cancelling is
SIGTERM to it, which `b2g run` turns into a graceful stop and an `INTERRUPTED` envelope. Progress is
read off Snakemake's stderr ("N of M steps (P%) done"); the last lines are kept as the job's log.

The child starts in the workspace, never in the adapter's current folder: Snakemake's planner (`status`)
moves the whole process into a temporary shadow folder while it runs, and a child born there would start
in a folder that is gone a moment later.

Every change bumps a version under one condition variable, so readers wait for the next change
(`wait_change`) instead of polling. Nothing here knows HTTP.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections import deque
from typing import Any

from ..errors import RunInterrupted, UsageError, WorkspaceLockedError
from .envelope import failure
from .perform import text_problem
from .run import PHASES, pointing_elsewhere
from .workspace import Workspace

LOG_LINES = 200
MAX_ARGS = 65_536    # characters of Snakemake arguments a run started here may pass
STOP_WAIT = 60.0    # seconds a cancelled run gets to stop when its adapter shuts down
TERMINAL = ("succeeded", "failed", "cancelled")
_STEPS = re.compile(r"(\d+) of (\d+) steps \(\d+%\) done")
_TOTAL = re.compile(r"^total\s+(\d+)\s*$")          # the last row of Snakemake's "Job stats" table


class RunInProgress(WorkspaceLockedError):
    code = "RUN_IN_PROGRESS"


def check_request(target: str | None, args: list[str]) -> list[str]:
    """The `b2g run` arguments for a target and extra arguments, or UsageError."""
    if target is not None and target not in PHASES:
        raise UsageError(f"unknown target {target!r}; one of {', '.join(PHASES)}")
    if not all(isinstance(a, str) for a in args):
        raise UsageError("args must be a list of strings")
    if sum(len(a) for a in args) > MAX_ARGS:     # past what a command line holds (the kernel's E2BIG)
        raise UsageError(f"args hold {sum(len(a) for a in args):,} characters; at most {MAX_ARGS:,}")
    problem = next((f"args[{i}] {text_problem(a)}" for i, a in enumerate(args) if text_problem(a)), None)
    if problem:
        raise UsageError(problem)
    reserved = pointing_elsewhere(args)
    if reserved:
        raise UsageError(f"{', '.join(reserved)} cannot be passed to a run started here; the server "
                         "chooses the workspace and the output")
    return ([target] if target else []) + list(args)


class RunJobs:
    """The one background run of a workspace, its progress, log and result."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._cond = threading.Condition()
        self._version = 0
        self._closed = False
        self._proc: subprocess.Popen | None = None
        self._cancelled = False
        self._job: dict[str, Any] = _idle()
        self._log: deque[str] = deque(maxlen=LOG_LINES)
        self._count = 0

    # -- reading ------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The current job as plain data (a copy)."""
        with self._cond:
            return _copy(self._job)

    def wait_change(self, seen: int, timeout: float) -> tuple[dict[str, Any], int, bool]:
        """Block until the version passes `seen` (or `timeout`, or close); (job, version, closed)."""
        with self._cond:
            self._cond.wait_for(lambda: self._version > seen or self._closed, timeout=timeout)
            return _copy(self._job), self._version, self._closed

    # -- writing ------------------------------------------------------------------------------------
    def start(self, target: str | None = None, args: list[str] | None = None) -> dict[str, Any]:
        """Start `b2g run` in the background; RunInProgress while a job runs."""
        run_args = check_request(target, list(args or []))
        with self._cond:
            if self._closed:
                raise RunInProgress("the server is shutting down; no new run starts")
            if self._job["state"] == "running":
                raise RunInProgress(f"run {self._job['id']} is still running; wait for it or cancel it")
            self._count += 1
            cmd = [sys.executable, "-m", "bib2graph", "run", "--json", "--workspace", str(self.ws.root), *run_args]
            env = {k: v for k, v in os.environ.items() if k not in ("B2G_JSON", "B2G_WORKSPACE")}
            self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL, env=env, text=True, encoding="utf-8",
                                          errors="replace", start_new_session=True, cwd=self.ws.root)
            self._cancelled = False
            self._job = {"id": self._count, "state": "running", "target": target or "all", "args": list(args or []),
                         "pid": self._proc.pid, "progress": {"done": 0, "total": None}, "log": [],
                         "exit_code": None, "result": None}
            self._log = deque(maxlen=LOG_LINES)
            self._changed()
            job = _copy(self._job)
        threading.Thread(target=self._follow, args=(self._proc,), name=f"b2g-run-{self._count}",
                         daemon=True).start()
        return job

    def cancel(self) -> dict[str, Any]:
        """Ask the running job to stop (SIGTERM: Snakemake ends gracefully); a no-op when none runs."""
        with self._cond:
            if (self._job["state"] == "running" and not self._cancelled and self._proc is not None
                    and self._proc.poll() is None):
                self._cancelled = True
                self._proc.send_signal(signal.SIGTERM)
            return _copy(self._job)

    def close(self, timeout: float | None = STOP_WAIT) -> None:
        """Shut down: no new job; cancel the running one and wait for it to end (at most `timeout` s)."""
        with self._cond:
            self._closed = True
            self._changed()
        self.cancel()
        with self._cond:
            self._cond.wait_for(lambda: self._job["state"] != "running", timeout=timeout)

    # -- the follower thread ------------------------------------------------------------------------
    def _follow(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self._line(line.rstrip("\n"))
        out = proc.stdout.read()
        code = proc.wait()
        with self._cond:
            state, result = outcome(_envelope(out), self._cancelled)
            self._job.update(state=state, result=result, exit_code=code, log=list(self._log))
            self._changed()

    def _line(self, line: str) -> None:
        with self._cond:
            self._log.append(line)
            self._job["log"] = list(self._log)
            self._job["progress"] = read_progress(line, self._job["progress"])
            self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._cond.notify_all()


def outcome(result: dict[str, Any] | None, cancelled: bool) -> tuple[str, dict[str, Any] | None]:
    """(state, envelope) of an ended run from the envelope it printed (None: none) and whether it was
    cancelled. A run cancelled before `b2g run` could answer (SIGTERM while Python was still starting)
    printed nothing; its envelope is then the INTERRUPTED one it would have printed."""
    if result is not None and result.get("ok"):
        return "succeeded", result
    if cancelled and result is None:
        return "cancelled", failure("run", RunInterrupted("cancelled before `b2g run` could answer (it was still starting)"))
    if cancelled and result["error"]["code"] == "INTERRUPTED":
        return "cancelled", result
    return "failed", result


def read_progress(line: str, progress: dict[str, Any]) -> dict[str, Any]:
    """The progress {done, total} after one line of Snakemake's output: its "N of M steps" line, or the
    total of its job table announced before the first step ends."""
    steps = _STEPS.search(line)
    total = _TOTAL.match(line.strip())
    if steps:
        return {"done": int(steps.group(1)), "total": int(steps.group(2))}
    if total and progress["total"] is None:
        return {**progress, "total": int(total.group(1))}
    return dict(progress)


def _idle() -> dict[str, Any]:
    return {"id": None, "state": "idle", "target": None, "args": [], "pid": None,
            "progress": {"done": 0, "total": None}, "log": [], "exit_code": None, "result": None}


def _copy(job: dict[str, Any]) -> dict[str, Any]:
    return {**job, "progress": dict(job["progress"]), "log": list(job["log"]), "args": list(job["args"])}


def _envelope(out: str) -> dict[str, Any] | None:
    """The run's envelope: its one line of stdout (None if the child died without printing one)."""
    lines = [line for line in out.splitlines() if line.strip()]
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
