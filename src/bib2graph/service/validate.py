"""`validate`: the preflight (spec, job checks, every input file read), then every artifact on disk.

Read-only. Every problem is listed (path and what is wrong); any problem makes the call a data error
(exit 2) whose details carry the full list, so a script can act on each one. What validates here
starts no job that fails on its spec or its inputs (see `preflight.py`).
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import registry
from ..errors import B2GError, DataError
from ..manifest import read_manifest
from ..networks.schema import EDGES, EVIDENCE, LAYOUT, NODES
from ..paths import SPEC_FILE
from ..skips import Skips
from ..tables import BUNDLE_TABLES, CANDIDATES, CITED, ORIGINS, SCREENING, SEEDS, SIMULATION, SOURCE_REFS, read_table
from ..temporal.schema import SLICE_TABLES, TREND_TABLES
from .artifact_schemas import schema_for, shape_problem
from .artifacts import refuse_constant
from .preflight import check_spec, external_inputs, input_problem, read_input
from .result import Result
from .workspace import Workspace

_SCHEMAS = {"seeds": SEEDS, "candidates": CANDIDATES, "screening": SCREENING, "simulation": SIMULATION, "nodes": NODES, "edges": EDGES,
            "cited": CITED, "layout": LAYOUT, "source_refs": SOURCE_REFS, "origins": ORIGINS, **BUNDLE_TABLES,
            **TREND_TABLES, **{f"slice_{k}" if k in ("nodes", "edges") else k: v for k, v in SLICE_TABLES.items()}}


def _schema(name: str, kind: str | None):
    return EVIDENCE[kind] if name.startswith("evidence:") else _SCHEMAS[name]


def _tables(spec: dict) -> list[tuple[str, object]]:
    """(path, schema) of every Parquet artifact the spec's DAG declares."""
    found = []
    for template, name in registry.table_schemas().items():
        for kind in registry.kinds(spec) if "{kind}" in template else [None]:
            found.append((template.format(kind=kind), _schema(name, kind)))
    return found


def validate_workspace(ws: Workspace) -> Result:
    problems: list[dict[str, str]] = []
    checked: list[dict[str, object]] = []
    warnings = ws.warnings()

    def attempt(path: str, check) -> object:
        try:
            value = check()
            checked.append({"path": path, "rows": value if isinstance(value, int) else None})
            return value
        except B2GError as exc:
            where = {k: exc.details[k] for k in ("line", "place") if k in exc.details}
            problems.append({"path": str(exc.details.get("file") or path), "code": exc.code,
                             "message": exc.message, **where})
            return None

    spec = attempt(SPEC_FILE, lambda: check_spec(ws))
    if spec is not None:
        skips = Skips(strict=bool(spec["strict"]))
        for item in external_inputs(ws, spec):
            problem = input_problem(item)     # as `run` and `status` say it (preflight.check_present)
            if problem is not None:
                problems.append({"path": item.name, "code": problem[0], "message": problem[1]})
            else:
                attempt(item.name, lambda item=item: read_input(item, skips))
        warnings += skips.warnings()
        inputs = len(checked)
        _artifacts(ws, spec, attempt)
        if len(checked) == inputs and not problems:     # an "ok" that checked no artifact says so
            warnings.append("no artifact is built yet (results/ holds none), so only the spec and the inputs were "
                            "checked; `b2g run` builds them" if not ws.path("results").is_file() else
                            "results is a file, not a folder: no artifact could be checked; move it away and `b2g run`")
    if problems:
        raise DataError(f"{len(problems)} problem(s): " + "; ".join(
            p["message"] if p["message"].startswith(p["path"]) else f"{p['path']}: {p['message']}"
            for p in problems[:3]),
                        code="VALIDATION_FAILED", details={"problems": problems})
    return Result(data={"workspace": ws.describe(), "checked": checked, "problems": []}, warnings=warnings)


def _artifacts(ws: Workspace, spec: dict, attempt) -> None:
    """Every table against its schema and every JSON artifact (manifests included) as JSON."""
    for relative, schema in _tables(spec):
        path = ws.path(relative)
        if path.is_file():
            attempt(relative, lambda path=path, schema=schema: len(read_table(path, schema)))
    for job in registry.jobs(spec, ws.root):
        for relative in registry.flat(job.outputs):
            path = ws.path(relative)
            if relative.endswith(".json") and path.is_file():
                attempt(relative, lambda path=path, relative=relative: _json(path, relative))


def _json(path: Path, relative: str) -> None:
    """JSON (NaN and Infinity are not), a manifest that is one, and the shape its readers need."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"not valid JSON: {exc}", code="ARTIFACT_CORRUPT") from None
    if path.name == "manifest.json" and read_manifest(path) is None:
        raise DataError("not a bib2graph manifest (inputs and outputs missing)", code="ARTIFACT_CORRUPT")
    schema = schema_for(relative)
    problem = shape_problem(found, schema) if schema else None
    if problem is not None:
        where, what = problem
        raise DataError(f"not the artifact its readers expect: at {where}, {what}",
                        code="ARTIFACT_CORRUPT", details={"place": where})
