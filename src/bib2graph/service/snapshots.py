"""`snapshot`, `snapshot list|diff|restore`: seal, compare and reproduce versions of a review."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from .. import registry, snapshot
from ..errors import DataError
from ..paths import CURATION_FILE, SPEC_FILE
from .dag import drifted
from .preflight import check_spec
from .outputs import user_folder
from .result import Result
from .run import run_workflow
from .workspace import Workspace, given


def sealed_files(ws: Workspace, spec: dict) -> list[str]:
    """The spec, the curation file and every output of every job but the exports, all current.

    Sealing results that are not what the spec and inputs make (a job not run, an output edited since)
    would seal a state nobody can rebuild: that is an error naming the jobs, and `b2g run` fixes it.
    """
    jobs = [job for job in registry.jobs(spec, ws.root) if job.rule != "export"]
    missing = [job.name for job in jobs if any(not ws.path(p).is_file() for p in registry.flat(job.outputs))]
    stale = [f"{d.job} ({d.reasons[0]})" for d in drifted(ws.root, spec)]
    if missing or stale:
        listed = "; ".join([f"{j} (not built)" for j in missing] + stale)
        raise DataError(f"the results are not up to date, so they cannot be sealed: {listed}; run `b2g run` first",
                        code="RESULTS_STALE", details={"missing": missing, "stale": stale})
    return [SPEC_FILE, CURATION_FILE] + [p for job in jobs for p in registry.flat(job.outputs)]


#: the longest snapshot name (UTF-8 bytes): its folder adds a hash, and a file name holds 255 bytes
MAX_NAME = 200


def create(ws: Workspace, name: str, now: str) -> Result:
    if not name.replace("-", "").replace("_", "").isalnum() or not name[0].isalnum() \
            or len(name.encode("utf-8")) > MAX_NAME:
        raise DataError(f"snapshot name {name[:MAX_NAME]!r}: use letters, digits, - and _ only, starting with a "
                        f"letter or digit (a leading - reads as an option), at most {MAX_NAME} bytes",
                        code="BAD_NAME")
    manifest, created = snapshot.seal(ws.root, name, now, sealed_files(ws, check_spec(ws)))
    warnings = ws.warnings()
    if not created:
        warnings.append(f"nothing changed since snapshot {manifest['id']}; it was kept as it is")
    return Result(data={"workspace": ws.describe(), "id": manifest["id"], "created": created,
                        "path": str(ws.path(str(snapshot.SNAPSHOTS / manifest["id"]))),
                        "counts": manifest["counts"]}, warnings=warnings)


def listing(ws: Workspace) -> Result:
    found, damaged = snapshot.list_snapshots(ws.root)
    return Result(data={"workspace": ws.describe(), "snapshots": found},
                  warnings=ws.warnings() + [f"left out: {why}" for why in damaged])


def compare(ws: Workspace, a: str, b: str) -> Result:
    return Result(data={"workspace": ws.describe(), **snapshot.diff(ws.root, a, b)}, warnings=ws.warnings())


def restore(ws: Workspace, snap_id: str, into: str | None, on_line: Callable[[str], None] | None = None) -> Result:
    """Rebuild a snapshot's networks offline in a new workspace and check them byte for byte
    (`on_line`: Snakemake's output lines, see `run.run_workflow`)."""
    target = (user_folder(ws, Path(into).expanduser(), "--into") if given("--into", into)
              else ws.path(f"results/restored/{snap_id}"))
    snapshot.prepare_restore(ws.root, snap_id, target)
    restored = Workspace(root=target, source="flag")
    try:
        run_workflow(restored, ["networks", "--rerun-triggers", "mtime"], check_inputs=False, on_line=on_line)
    except BaseException:     # a restore that could not rebuild leaves nothing behind: a retry starts afresh
        shutil.rmtree(target, ignore_errors=True)
        raise
    sealed = snapshot.network_files(ws.path(str(snapshot.SNAPSHOTS / snap_id)))
    rebuilt = snapshot.network_files(target)
    differing = sorted(k for k in set(sealed) | set(rebuilt) if sealed.get(k) != rebuilt.get(k))
    if differing:
        raise DataError(f"restored networks differ from snapshot {snap_id} in {len(differing)} file(s): "
                        + ", ".join(differing[:5]), code="RESTORE_MISMATCH", details={"differing": differing})
    return Result(data={"workspace": ws.describe(), "id": snap_id, "restored_into": str(target),
                        "identical": True, "files_compared": len(sealed)}, warnings=ws.warnings())
