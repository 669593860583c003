"""Editing, deleting or corrupting a file a job reads or writes, and what must follow from it.

The expected set of affected jobs is worked out here from the registry alone (the job that writes the
file, every job that reads it, and everything downstream of those), independently of how `status`
finds it. Used by the sample in `make test` and by the full matrix over every file in `make fuzz`.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import yaml

from bib2graph import registry, spec as spec_mod
from bib2graph.cli import main

MUTATIONS = ("edit", "delete", "corrupt")


def load_spec(root: Path) -> dict:
    return spec_mod.load(root / "config/research.yaml")


def every_file(root: Path) -> list[str]:
    """Every file a job of the workspace's DAG reads or writes, relative to the workspace."""
    spec = load_spec(root)
    found = set()
    for job in registry.jobs(spec, root):
        for path in registry.flat(job.outputs) + registry.flat(job.inputs):
            path = Path(path)
            if path.is_absolute() and not path.is_relative_to(root):
                continue            # shipped with bib2graph: not the workspace's to edit
            found.add(str(path.relative_to(root) if path.is_absolute() else path))
    return sorted(found)


def affected(root: Path, relative: str) -> set[str]:
    """The jobs that must run again once `relative` changed: its writer, its readers, and their dependents."""
    jobs = registry.jobs(load_spec(root), root)

    def names(job, io_):
        return {str(Path(p).relative_to(root)) if Path(p).is_relative_to(root) else p for p in registry.flat(io_)}

    hit = {j.name for j in jobs if relative in names(j, j.outputs) | names(j, j.inputs)}
    grown = True
    while grown:
        made = {p for j in jobs if j.name in hit for p in names(j, j.outputs)}
        more = {j.name for j in jobs if names(j, j.inputs) & made} - hit
        hit |= more
        grown = bool(more)
    return hit


def is_external(root: Path, relative: str) -> bool:
    return not relative.startswith("results/")


def mutate(root: Path, relative: str, how: str) -> None:
    """`edit`: a valid change of content; `corrupt`: bytes that are not what they were; `delete`."""
    path = root / relative
    if how == "delete":
        path.unlink()
    elif how == "corrupt":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] + b"\x00garbage\x00" + data[len(data) // 2:])
    elif relative.endswith(".json"):
        value = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(value, list):          # CSL-JSON: a list of items
            value.append({"id": "edited-by-hand", "type": "article"})
        else:
            value["edited_by_hand"] = True
        path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    elif relative == "config/curation.tsv":
        with path.open("a", encoding="utf-8") as fh:
            fh.write("W2000180785\treject\toff-topic\tme\t2026-01-01\n")
    elif relative.endswith(".yaml"):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        spec["name"] = spec.get("name", "") + " (edited)"
        path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    else:   # tables, GraphML, CSV, HTML: a well-formed file of other content is its writer's to undo
        with path.open("ab") as fh:
            fh.write(b"\n")


def call(args: list[str], root: Path) -> dict:
    """`b2g ARGS --json --workspace ROOT` in this process; the envelope."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(args + ["--json", "--workspace", str(root)])
    return json.loads(out.getvalue())


def stale_jobs(root: Path) -> set[str] | dict:
    """The jobs `b2g status` names as not complete (or its error envelope)."""
    env = call(["status"], root)
    if not env["ok"]:
        return env
    return {j["job"] for j in env["data"]["jobs"] if j["state"] != "complete"}
