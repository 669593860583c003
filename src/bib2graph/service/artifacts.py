"""What the built artifacts say a person should know: read from the jobs' manifests, never stored;
and the JSON artifacts (metrics.json, stability.json, prisma.json) read as the read verbs need them.

`run` and `status` both report these, so a corpus built while skipping malformed records, an empty
corpus or an empty network is said out loud on every call, not only in a log file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import registry
from ..errors import DataError
from ..manifest import read_manifest
from ..skips import warnings_from_rows
from .artifact_schemas import shape_problem
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


def read_json_object(path: Path, rebuild: str = "`b2g run networks`", finite: bool = False,
                     schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON artifact that holds one object, or ARTIFACT_CORRUPT naming it: text that is no JSON, or JSON
    of another shape (`[]`, `null`, `NaN`), was edited or damaged. `finite`: NaN and Infinity inside are
    damage too (Python's json reads them; no other JSON reader does). `schema` (artifact_schemas): the
    shape its reader needs, so that a damaged field is this error rather than a crash further on."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse_constant if finite else None)
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read {path}: {exc}; {rebuild} rebuilds it", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)]}) from None
    if not isinstance(found, dict):
        raise DataError(f"{path} holds {type(found).__name__}, not a JSON object; {rebuild} rebuilds it "
                        "(delete the file if it was edited by hand)", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)]})
    problem = shape_problem(found, schema) if schema else None
    if problem is not None:
        where, what = problem
        raise DataError(f"{path} is not the artifact its readers expect: at {where}, {what}; {rebuild} rebuilds it "
                        "(delete the file if it was edited by hand)", code="ARTIFACT_CORRUPT",
                        details={"files": [str(path)], "place": where})
    return found


def refuse_constant(constant: str) -> None:
    """json's parse_constant that refuses NaN and Infinity, which no JSON reader but Python's takes."""
    raise ValueError(f"{constant} is not JSON")
