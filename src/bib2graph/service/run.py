"""`run`: validate the spec and curation file, then hand the workspace to Snakemake.

Snakemake runs as a child process on the packaged workflow with the workspace as its working
directory; its output goes to stderr so that stdout stays free for the envelope. A job that fails
with a bib2graph error leaves `results/logs/<job>.error.json`, which becomes this call's error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from filelock import FileLock, Timeout

from .. import curation, spec as spec_mod
from ..errors import B2GError, DataError, UsageError, WorkspaceLockedError
from ..paths import CURATION_FILE, snakefile
from ..rules import ERROR_DIR
from .result import Result
from .workspace import Workspace

PHASES = ("seed", "chain", "corpus", "networks", "exports", "report", "all")
# The verbs that advance the review, as the DAG targets they run up to, and the manifests they report.
VERB_TARGETS = {"seed": ("seed", ["results/seed/manifest.json"]),
                "chain": ("chain", ["results/chain/manifest.json"]),
                "filter": ("corpus", ["results/corpus/manifest.json"]),
                "build": ("networks", None),
                "export": ("exports", None)}
RUN_LOCK = ".snakemake/b2g-run.lock"
_PARALLELISM_FLAGS = ("--cores", "-c", "--jobs", "-j", "--profile", "--workflow-profile", "--executor", "-e")


def snakemake_command(ws: Workspace, targets: list[str], extra: list[str]) -> list[str]:
    """The Snakemake command line for a run: the workspace's `profiles/default` when it has one
    (as Snakemake does at a workflow's root), else `--cores all` unless the caller chose parallelism."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile()), "--directory", str(ws.root),
           "--rerun-incomplete"]
    profile = ws.root / "profiles" / "default"
    chosen = any(arg.split("=")[0] in _PARALLELISM_FLAGS for arg in extra)
    if profile.is_dir() and "--workflow-profile" not in extra:
        cmd += ["--workflow-profile", str(profile)]
    elif not chosen:
        cmd += ["--cores", "all"]
    return cmd + targets + extra  # targets first: options such as --forcerun take several values


def _job_error() -> B2GError | None:
    for path in sorted(ERROR_DIR.glob("*.error.json")):
        info = json.loads(path.read_text(encoding="utf-8"))
        err = B2GError(f"{info['job']}: {info['message']}", code=info["code"], subcode=info.get("subcode"),
                       details=info.get("details") or {})
        err.exit_code, err.retryable = info["exit_code"], info.get("retryable", False)
        return err
    return None


def preflight(ws: Workspace) -> dict:
    """Everything checked before Snakemake starts: a bad spec changes nothing under results/."""
    spec = spec_mod.load(ws.spec_path)
    curation.read(ws.path(CURATION_FILE))
    return spec


def _run_lock(ws: Workspace) -> FileLock:
    """One `b2g run` per workspace. The OS drops this lock when its holder dies, even by SIGKILL."""
    ws.path(".snakemake").mkdir(exist_ok=True)
    lock = FileLock(str(ws.path(RUN_LOCK)))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise WorkspaceLockedError(f"another `b2g run` is working in {ws.root}; wait for it to finish") from None
    return lock


def _clear_stale_snakemake_lock(ws: Workspace, base: list[str], warnings: list[str]) -> None:
    """Snakemake's own lock survives a killed run; holding the run lock, we know it is stale."""
    locks = ws.path(".snakemake/locks")
    if locks.is_dir() and any(locks.iterdir()):
        subprocess.call(base + ["--unlock"], stdout=sys.stderr.fileno(), stdin=subprocess.DEVNULL)
        warnings.append("cleared the lock a stopped run left behind; incomplete outputs are rebuilt")


def run_workflow(ws: Workspace, args: list[str], refresh: bool = False) -> Result:
    """Run the workflow (or up to one phase) in the workspace with extra Snakemake arguments.

    `refresh` re-fetches from OpenAlex on purpose: the fetch phases run again and ignore the store.
    """
    targets = [a for a in args if a in PHASES]
    extra = [a for a in args if a not in PHASES]
    if len(targets) > 1:
        raise UsageError(f"name at most one phase to run up to, got {', '.join(targets)}")
    preflight(ws)
    warnings = ws.warnings()
    if refresh:
        extra = extra + ["--forcerun", "seed", "chain"]
    lock = _run_lock(ws)
    previous = Path.cwd()
    os.chdir(ws.root)
    try:
        if not ws.path(CURATION_FILE).exists():
            curation.record(ws.path(CURATION_FILE), [])
        cmd = snakemake_command(ws, targets, extra)
        _clear_stale_snakemake_lock(ws, snakemake_command(ws, [], []), warnings)
        for stale in ERROR_DIR.glob("*.error.json"):
            stale.unlink()
        env = {**os.environ, "B2G_REFRESH": "1" if refresh else ""}
        returncode = subprocess.call(cmd, stdout=sys.stderr.fileno(), stdin=subprocess.DEVNULL, env=env)
        if returncode != 0:
            raise _job_error() or DataError(
                f"Snakemake stopped with exit status {returncode}; its messages are above (stderr) and in "
                f"{ws.root}/.snakemake/log/", code="WORKFLOW_FAILED")
    finally:
        os.chdir(previous)
        lock.release()
    return Result(data={"workspace": ws.describe(), "targets": targets or ["all"],
                        "snakemake_args": extra, "results": str(ws.path("results"))},
                  warnings=warnings)


def run_verb(ws: Workspace, verb: str, args: list[str]) -> Result:
    """`b2g seed|chain|filter|build|export`: run up to that phase and report its counts."""
    target, manifests = VERB_TARGETS[verb]
    result = run_workflow(ws, [target] + [a for a in args if a not in PHASES])
    if manifests is None:
        manifests = sorted(str(p.relative_to(ws.root)) for p in ws.path("results/networks").glob("*/manifest.json"))
    result.data["counts"] = {str(Path(m).parent.relative_to("results")): json.loads(
        ws.path(m).read_text(encoding="utf-8"))["counts"] for m in manifests if ws.path(m).is_file()}
    return result
