"""`status`: the state of a review, derived and never stored.

Job states come from a Snakemake dry run (complete, stale with Snakemake's reasons, missing);
counts come from the artifacts on disk and from `config/curation.tsv`. Reading never writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import curation, query, spec as spec_mod
from ..paths import CURATION_FILE
from .dag import job_states
from .result import Result
from .workspace import Workspace

PHASE_OF_RULE = {"seed": "seed", "chain": "chain", "corpus": "corpus", "network": "networks",
                 "export": "exports", "report": "report"}
_ORDER = {"complete": 0, "stale": 1, "missing": 2}


def _counts(ws: Workspace, kinds: list[str]) -> dict[str, Any]:
    results = ws.path("results")
    decisions = curation.read(ws.path(CURATION_FILE))
    accepted = sum(d.decision == "accept" for d in decisions.values())
    pool_path = results / "chain" / "pool" / "works.parquet"
    seeds_path = results / "seed" / "seeds.parquet"
    pending = None
    if pool_path.is_file() and seeds_path.is_file():
        pool_ids = query.column(pool_path, "work_id")
        pending = len(pool_ids - query.column(seeds_path, "work_id") - set(decisions))
    nets = {}
    for kind in kinds:
        metrics = results / "networks" / kind / "metrics.json"
        if metrics.is_file():
            m = json.loads(metrics.read_text(encoding="utf-8"))
            nets[kind] = {"nodes": m["nodes"], "edges": m["edges"]}
        else:
            nets[kind] = {"nodes": None, "edges": None}
    return {"seeds": query.count(seeds_path),
            "candidates": query.count(results / "chain" / "candidates.parquet"),
            "pool": query.count(pool_path),
            "corpus": query.count(results / "corpus" / "works.parquet"),
            "accepted": accepted, "rejected": len(decisions) - accepted, "pending": pending,
            "networks": nets}


def get_status(ws: Workspace) -> Result:
    spec = spec_mod.load(ws.spec_path)
    kinds = sorted(spec["networks"])
    jobs = job_states(ws.root)
    phases: dict[str, str] = {}
    for job in jobs:
        phase = PHASE_OF_RULE.get(job.rule, job.rule)
        if _ORDER[job.state] >= _ORDER.get(phases.get(phase, "complete"), 0):
            phases[phase] = job.state
    stale = [j.job for j in jobs if j.state != "complete"]
    return Result(data={"workspace": ws.describe(), "up_to_date": not stale, "phases": phases,
                        "jobs": [j.describe() for j in jobs], "pending_jobs": stale,
                        "counts": _counts(ws, kinds),
                        "curation_available": ["accept", "reject"]},
                  warnings=ws.warnings())
