"""What the Snakemake DAG says of a workspace: for every job, complete, stale (and why) or missing.

This is the only module that reaches into Snakemake's internals (the DAG of a dry run); status is
derived from it and from the artifacts, never stored. The dry run takes no lock, so it answers
while a run holds the workspace, and it runs in a shadow folder of links to the workspace, so that
whatever Snakemake would create (its `.snakemake/` folders) lands there and the workspace is only read.

Snakemake judges staleness by file times plus its own records of params and input sets; those records
are written when a job *ends*, failed or not, so they cannot be trusted once a failed job's last good
outputs are put back. b2g therefore asks Snakemake about file times only (`RERUN_TRIGGERS`) and reads
everything else from each job's manifest (`drifted`): an output edited or corrupted in place, an input
replaced by another file (older or not), a different set of inputs, a damaged manifest, a job whose
recorded spec is not today's. Those jobs are forced, in the dry run as in `b2g run`, so Snakemake
itself works out everything downstream of them.
"""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import registry
from ..atomic import sha256_text
from ..errors import DataError, SpecError
from ..manifest import changed_files, name_of, read_manifest
from ..paths import snakefile


@dataclass(frozen=True)
class JobState:
    job: str        # rule, or rule:wildcard for per-kind jobs
    rule: str
    state: str      # complete | stale | missing
    reasons: tuple[str, ...]  # Snakemake's reasons, in its fixed order

    def describe(self) -> dict:
        return {"job": self.job, "rule": self.rule, "state": self.state, "reasons": list(self.reasons)}


RERUN_TRIGGERS = ("mtime",)   # `--rerun-triggers`; the manifests judge the rest


@dataclass(frozen=True)
class Drift:
    """A job whose files are not what its manifest recorded, and why."""

    job: str
    manifest: str   # relative to the workspace: the file `--forcerun` names to force the job
    reasons: tuple[str, ...]


def drifted(root: Path, spec: dict) -> list[Drift]:
    """The jobs whose outputs, inputs or spec differ from what their manifest recorded."""
    found = []
    for job in registry.jobs(spec, root):
        path = root / job.manifest
        if not path.exists():
            continue                # a missing output: Snakemake sees that itself
        manifest = read_manifest(path)
        if manifest is None:
            reasons = [f"{job.manifest} is damaged or was edited"]
        else:
            reasons = [f"{name} changed since the job {'wrote' if name in manifest['outputs'] else 'read'} it"
                       for name in changed_files(root, job.name, manifest)]
            if manifest.get("spec_hash") != sha256_text(job.params):
                reasons.append("its part of the spec is not the one its outputs were made with")
            if set(manifest["inputs"]) != _present_inputs(root, job):
                reasons.append("its input files are not the ones it read")
        if reasons:
            found.append(Drift(job.name, job.manifest, tuple(reasons)))
    return found


def _present_inputs(root: Path, job: registry.Job) -> set[str]:
    """The names a manifest would give the job's inputs that exist now (missing ones Snakemake reports)."""
    paths = [root / p for p in registry.flat(job.inputs)]   # absolute paths stay absolute
    return {name_of(p, root) for p in paths if p.is_file()}


def _state(dag, job) -> tuple[str, tuple[str, ...]]:
    if not dag.needrun(job):
        return "complete", ()
    reason = dag.reason(job)
    names = tuple(reason.get_names())
    if reason.missing_output and not any(Path(str(f)).exists() for f in job.output):
        return "missing", names
    return "stale", names


@contextlib.contextmanager
def _shadow(root: Path):
    """A temporary folder of links to `root`'s entries, and to the folders of its `.snakemake/`."""
    with tempfile.TemporaryDirectory(prefix="b2g-status-") as tmp:
        shadow = Path(tmp)
        for entry in root.iterdir():
            if entry.name != ".snakemake":
                (shadow / entry.name).symlink_to(entry)
        state = root / ".snakemake"
        if state.is_dir():
            (shadow / ".snakemake").mkdir()
            for entry in state.iterdir():
                (shadow / ".snakemake" / entry.name).symlink_to(entry)
        yield shadow


def job_states(root: Path, drifts: list[Drift] = ()) -> list[JobState]:
    """Dry-run the workflow in `root` (read-only, through a shadow) and report every job making files;
    `drifts` are forced, and their reasons replace Snakemake's "forced"."""
    with _shadow(root) as shadow:
        states = _job_states(shadow, {d.manifest for d in drifts})
    why = {d.job: d.reasons for d in drifts}
    return [JobState(s.job, s.rule, "stale", why[s.job] + tuple(r for r in s.reasons if r != "forced"))
            if s.job in why else s for s in states]


def _job_states(root: Path, forced: set[str]) -> list[JobState]:
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import RerunTrigger
    from snakemake.settings.types import (ConfigSettings, DAGSettings, OutputSettings, Quietness,
                                          ResourceSettings)

    quiet = io.StringIO()
    logging.getLogger("snakemake").setLevel(logging.ERROR)
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        try:
            with SnakemakeApi(OutputSettings(dryrun=True, quiet={Quietness.ALL})) as api:
                wf_api = api.workflow(snakefile=snakefile(), workdir=root,
                                      resource_settings=ResourceSettings(cores=1),
                                      config_settings=ConfigSettings())
                wf_api.dag(DAGSettings(targets={"all"}, forcerun=forced,
                                       rerun_triggers={RerunTrigger.parse_choice(t) for t in RERUN_TRIGGERS}))
                wf = wf_api._workflow
                wf._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True, nolock=True)
                wf._build_dag()
                dag = wf.dag
                states = []
                for job in dag.jobs:
                    if not job.output:
                        continue
                    wildcards = "".join(f":{v}" for v in job.wildcards_dict.values())
                    state, reasons = _state(dag, job)
                    states.append(JobState(job=job.rule.name + wildcards, rule=job.rule.name,
                                           state=state, reasons=reasons))
        except SpecError:
            raise
        except Exception as exc:  # Snakemake wraps spec errors raised while parsing the Snakefile
            cause = exc
            while cause is not None and not isinstance(cause, SpecError):
                cause = cause.__cause__ or cause.__context__
            if cause is not None:
                raise cause from None
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DataError(f"Snakemake cannot plan the workflow: {first}", code="WORKFLOW_INVALID") from None
    return sorted(states, key=lambda s: s.job)
