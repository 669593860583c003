"""What the built artifacts say a person should know: read from the jobs' manifests, never stored.

`run` and `status` both report these, so a corpus built while skipping malformed records, an empty
corpus or an empty network is said out loud on every call, not only in a log file.
"""

from __future__ import annotations

from typing import Any

from .. import registry
from ..manifest import read_manifest
from ..skips import warnings_from_rows
from .workspace import Workspace


def artifact_warnings(ws: Workspace, spec: dict[str, Any]) -> list[str]:
    """Skipped input records, an empty corpus, empty networks: from the manifests on disk."""
    skipped: list[dict[str, Any]] = []
    warnings: list[str] = []
    for job in registry.jobs(spec, ws.root):
        manifest = read_manifest(ws.path(job.manifest))
        if manifest is None:
            continue
        skipped += [row for row in manifest.get("skipped") or [] if row not in skipped]
        counts = manifest.get("counts") or {}
        if job.rule == "corpus" and counts.get("included") == 0:
            excluded = ", ".join(f"{k}: {v}" for k, v in sorted((counts.get("excluded") or {}).items()))
            warnings.append(f"the corpus includes no work: all {counts.get('pool')} pooled works were excluded "
                            f"({excluded}); loosen the filters or accept works")
        if job.rule == "network" and counts.get("nodes") == 0:
            warnings.append(f"the {job.kind} network is empty: no node passed its thresholds "
                            f"(networks.{job.kind}.min_occurrences) in this corpus")
    return warnings_from_rows(skipped) + warnings
