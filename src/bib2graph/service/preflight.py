"""The preflight: everything that can be known to be wrong before Snakemake starts a job.

Predictable bad input never starts a job, so it never costs the last good outputs. Three levels:

- the spec: its schema, then the checks every job of the DAG runs on the very params its rule will
  receive (`checks.check`), so `b2g validate` accepts no spec that a job would refuse;
- the external inputs: every file outside `results/` that a job reads (source, seed, thesaurus and
  labels files, `config/curation.tsv`, the monitor's pending works) exists;
- their content: each one is read by the reader its job uses, so a broken file is an error naming it
  (and the line) now, and records a reader would skip are warnings now (errors under `strict: true`).

`status` runs the first two (cheap); `validate` and `run` all three (`check_spec`, `check_present`,
`read_inputs`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .. import __version__, checks, curation, monitor, registry, spec as spec_mod, textio
from ..atomic import sha256_file, write_json
from ..errors import DataError
from ..paths import PREFLIGHT_CACHE, SPEC_FILE
from ..skips import Skips, warnings_from_rows
from .workspace import Workspace


@dataclass(frozen=True)
class ExternalInput:
    """One file from outside `results/`: what role it plays, where the spec names it, and its path."""

    role: str
    place: str     # where to fix it: `source.files.0`, `networks.keywords.thesaurus`, or the file itself
    name: str      # as the spec (or the workspace layout) names it
    path: Path
    format: str | None = None   # a source file's declared format (source.formats)


_SPEC_LISTS = {"sources": ("source", "files"), "seed_files": ("seed", "files")}


def _named(role: str, spec: dict[str, Any], paths: list[str], root: Path,
           kind: str | None = None) -> list[tuple[str, str]]:
    """(place, name) of each path: where the spec names the file, or the file itself."""
    if role in _SPEC_LISTS:
        section, key = _SPEC_LISTS[role]
        return [(f"{section}.{key}.{n}", name) for n, name in enumerate(spec[section][key])]
    if role == "thesaurus":
        return [(f"networks.{kind}.thesaurus", spec["networks"][kind]["thesaurus"])]
    if role == "source_thesaurus":
        return [("source.thesaurus", spec["source"]["thesaurus"])]
    if role == "labels":
        return [("screening.simulation.labels", spec["screening"]["simulation"]["labels"])]
    if role == "partition":   # below the snapshot folder, named as the spec's path leads to it
        from ..sources.snapshot_layout import partition_file

        folder = spec["source"]["snapshot"]["path"]
        relative = partition_file(kind, spec_mod.resolve_path(root, folder))
        return [("source.snapshot.path", (Path(folder) / relative).as_posix())]
    return [(name, name) for name in (Path(p).relative_to(root).as_posix() for p in paths)]


def external_inputs(ws: Workspace, spec: dict[str, Any]) -> list[ExternalInput]:
    """Every external input of the DAG, once each, in DAG order."""
    found: dict[tuple[str, str], ExternalInput] = {}
    for job in registry.jobs(spec, ws.root):
        for role, paths in registry.external_inputs(spec, job.rule, job.kind, ws.root).items():
            for path, (place, name) in zip(paths, _named(role, spec, paths, ws.root, job.kind)):
                declared = spec["source"]["formats"].get(name) if role == "sources" else None
                found.setdefault((role, path), ExternalInput(role, place, name, Path(path), declared))
    return list(found.values())


def check_spec(ws: Workspace) -> dict[str, Any]:
    """The spec, filled and validated, and accepted by the checks of every job it makes."""
    spec = spec_mod.load(ws.spec_path, SPEC_FILE)
    for job in registry.jobs(spec, ws.root):
        checks.check(job.rule, json.loads(job.params))
    return spec


def input_problem(item: ExternalInput) -> tuple[str, str] | None:
    """(code, message) when the input is not a regular file there: FILE_INVALID for a folder, a device,
    a FIFO or a socket (a FIFO was said not to exist), FILE_MISSING for nothing there or a link to nothing."""
    said = {"folder": ("FILE_INVALID", "is a folder; name the files in it, one by one"),
            "special": ("FILE_INVALID", "is not a regular file (a device, a FIFO or a socket); name a file"),
            "dangling": ("FILE_MISSING", "is a link that leads nowhere (to a missing file, or a loop of links)"),
            "nothing": ("FILE_MISSING", "does not exist")}.get(textio.kind_of(item.path))
    return (said[0], f"{item.name} ({item.place}) {said[1]}") if said else None


def check_present(ws: Workspace, spec: dict[str, Any]) -> None:
    """A missing external input is an error naming every missing file and where the spec names it; a
    folder or a device where a file is named, FILE_INVALID (as the contract's error table says)."""
    problems = [(i, problem) for i in external_inputs(ws, spec) if (problem := input_problem(i))]
    invalid = [(i, problem) for i, problem in problems if problem[0] == "FILE_INVALID"]
    if invalid:
        item, (code, message) = invalid[0]
        raise DataError(message, code=code, details={"file": item.name, "place": item.place})
    missing = [i for i, _ in problems]
    if missing:
        listed = "; ".join(f"{i.name} ({i.place})" for i in missing)
        first = missing[0]
        raise DataError(f"input file(s) missing: {listed}", code="FILE_MISSING",
                        details={"file": first.name, "place": first.place,
                                 "missing": [{"file": i.name, "place": i.place} for i in missing]})


def _reader(role: str) -> Callable[[ExternalInput, Skips], Any]:
    from ..sources.files import read_jsonl_gz, read_seed_entries
    from ..sources.ingest import read_entries, read_source_folding
    from ..screening.labels import read as read_labels
    from ..thesaurus import read_thesaurus

    return {
        "sources": lambda i, skips: sum(1 for _ in read_entries([i.path], [i.name], [i.format], skips)),
        "seed_files": lambda i, skips: read_seed_entries(i.path, name=i.name, skips=skips),
        "thesaurus": lambda i, skips: read_thesaurus(i.path),
        "source_thesaurus": lambda i, skips: read_source_folding(i.path),
        "curation": lambda i, skips: curation.read(i.path),
        "pending": lambda i, skips: monitor.read_pending_file(i.path),
        "partition": lambda i, skips: sum(1 for _ in read_jsonl_gz(i.path, i.name, skips)),
        "labels": lambda i, skips: read_labels(i.path, set(), {}),
    }[role]


def read_input(item: ExternalInput, skips: Skips) -> None:
    """Read one external input as its job will; a broken file is a DataError naming it and its place."""
    try:
        _reader(item.role)(item, skips)
    except DataError as exc:   # name the file as the spec does, wherever the reader was pointed
        exc.message = exc.message.replace(str(item.path), item.name)
        exc.args = (exc.message,)
        exc.details = {**exc.details, "file": item.name, "place": item.place}
        raise


def read_inputs(ws: Workspace, spec: dict[str, Any]) -> list[str]:
    """Read every external input; return the warnings of the records the readers would skip.

    A file read before with the same bytes, role, name and `strict` is not read again: its skips come
    from `.snakemake/b2g/preflight.json` (readers are deterministic), so a run over a large source file
    costs a hash, not a parse. Only files that read without error are remembered.
    """
    strict = bool(spec["strict"])
    cache_path = ws.path(str(PREFLIGHT_CACHE))
    stored = _read_cache(cache_path)
    known = dict(stored)
    seen: dict[str, list[dict[str, str]]] = {}
    for item in external_inputs(ws, spec):
        if item.role == "partition":   # a snapshot's gigabytes are read once, by their own jobs (validate reads them)
            continue
        key = "|".join((__version__, item.role, item.name, str(item.format), str(strict), sha256_file(item.path)))
        if key not in known:
            skips = Skips(strict=strict)
            read_input(item, skips)
            known[key] = skips.as_rows()
        seen[key] = known[key]
    if seen != stored:
        try:
            write_json(cache_path, seen)
        except OSError:   # a cache: a read-only workspace only reads again next time
            pass
    return warnings_from_rows([row for rows in seen.values() for row in rows])


def _read_cache(path: Path) -> dict[str, list[dict[str, str]]]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
