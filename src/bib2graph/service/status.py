"""`status`: the state of a review, derived and never stored.

Job states come from a Snakemake dry run (complete, stale with Snakemake's reasons, missing), with the
jobs whose files drifted from their manifests forced (see `dag.drifted`); counts come from the
artifacts on disk and from `config/curation.tsv`. Reading never writes. A spec that a job would
refuse, or a missing input file, is an error: a review in that state has no honest status.
"""

from __future__ import annotations

import json
from typing import Any

from .. import curation, query, registry
from ..errors import DataError
from ..paths import CURATION_FILE
from .artifacts import artifact_warnings
from .dag import drifted, job_states
from .preflight import check_present, check_spec
from .result import Result
from .workspace import Workspace

_ORDER = {"complete": 0, "stale": 1, "missing": 2}


def _count(path) -> int | None:
    """Rows of a table, or None when it is absent or unreadable (its job is then stale or missing)."""
    try:
        return query.count(path)
    except DataError:
        return None


def _decisions(ws: Workspace, warnings: list[str]) -> dict | None:
    """The decisions, or None (and a warning: `b2g run` will refuse the file) when the file is broken."""
    try:
        return curation.read(ws.path(CURATION_FILE))
    except DataError as exc:
        warnings.append(f"{exc.message}; `b2g run` stops on this until it is fixed")
        return None


def _counts(ws: Workspace, kinds: list[str], warnings: list[str]) -> dict[str, Any]:
    results = ws.path("results")
    decisions = _decisions(ws, warnings)
    accepted = None if decisions is None else sum(d.decision == "accept" for d in decisions.values())
    pool_path = results / "chain" / "pool" / "works.parquet"
    seeds_path = results / "seed" / "seeds.parquet"
    pending = None
    try:
        if pool_path.is_file() and seeds_path.is_file() and decisions is not None:
            pending = len(query.column(pool_path, "work_id") - query.column(seeds_path, "work_id") - set(decisions))
    except DataError:
        pending = None
    nets = {}
    for kind in kinds:
        try:
            m = json.loads((results / "networks" / kind / "metrics.json").read_text(encoding="utf-8"))
            nets[kind] = {"nodes": int(m["nodes"]), "edges": int(m["edges"])}
        except (OSError, ValueError, KeyError, TypeError):
            nets[kind] = {"nodes": None, "edges": None}
    return {"seeds": _count(seeds_path), "candidates": _count(results / "chain" / "candidates.parquet"),
            "pool": _count(pool_path), "corpus": _count(results / "corpus" / "works.parquet"),
            "accepted": accepted, "rejected": None if decisions is None else len(decisions) - accepted,
            "pending": pending,
            "networks": nets}


def _screening(ws: Workspace, spec: dict, decisions: dict | None) -> dict[str, Any] | None:
    """The stopping rule's verdict on people's screening (None before the pool exists or with a broken
    curation file)."""
    from . import ranking

    if decisions is None:
        return None
    try:
        return ranking.current(ws, decisions).stop_test(spec["screening"]["stopping"]).describe()
    except DataError:
        return None


def get_status(ws: Workspace) -> Result:
    spec = check_spec(ws)
    check_present(ws, spec)
    jobs = job_states(ws.root, drifted(ws.root, spec))
    phases: dict[str, str] = {}
    for job in jobs:
        phase = registry.RULES[job.rule].phase if job.rule in registry.RULES else job.rule
        if _ORDER[job.state] >= _ORDER.get(phases.get(phase, "complete"), 0):
            phases[phase] = job.state
    stale = [j.job for j in jobs if j.state != "complete"]
    warnings = ws.warnings()
    counts = _counts(ws, registry.kinds(spec), warnings)
    decisions = _decisions(ws, [])
    return Result(data={"workspace": ws.describe(), "up_to_date": not stale, "phases": phases,
                        "jobs": [j.describe() for j in jobs], "pending_jobs": stale, "counts": counts,
                        "screening": _screening(ws, spec, decisions),
                        "curation_available": ["accept", "reject"]},
                  warnings=warnings + artifact_warnings(ws, spec))
