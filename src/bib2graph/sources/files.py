"""Reading works and seed lists from local files.

OpenAlex Work objects come as `.json` (one object, an array, or a list response ``{"results": […]}``),
`.jsonl` / `.jsonl.gz` (one object a line), or a `.zip` holding any of those (members read in name
order). BibTeX and RIS files give seed DOIs: entries without a DOI are reported by key, not dropped.
"""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..errors import DataError
from ..ids import normalize_doi, short_id

WORK_SUFFIXES = (".json", ".jsonl", ".jsonl.gz", ".json.gz", ".zip")


def _objects_from_json_text(text: str, where: str) -> Iterator[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})", code="FILE_INVALID") from None
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        value = value["results"]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise DataError(f"{where}: expected a Work object, an array of them or {{\"results\": [...]}}",
                        code="FILE_INVALID")
    for item in value:
        if isinstance(item, dict):
            yield item


def _objects_from_jsonl(text: str, where: str) -> Iterator[dict[str, Any]]:
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}:{lineno}: not valid JSON ({exc.msg})", code="FILE_INVALID") from None
            if isinstance(item, dict):
                yield item


def _objects_from_bytes(name: str, data: bytes, where: str) -> Iterator[dict[str, Any]]:
    lowered = name.lower()
    if lowered.endswith(".gz"):
        data = gzip.decompress(data)
        lowered = lowered[:-3]
    text = data.decode("utf-8-sig")
    if lowered.endswith(".jsonl"):
        yield from _objects_from_jsonl(text, where)
    elif lowered.endswith(".json"):
        yield from _objects_from_json_text(text, where)


def read_work_objects(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the OpenAlex Work objects stored in one file."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"source file {path} does not exist", code="FILE_MISSING")
    if path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                for member in sorted(archive.namelist()):
                    if not member.endswith("/"):
                        yield from _objects_from_bytes(member, archive.read(member), f"{path}!{member}")
        except zipfile.BadZipFile:
            raise DataError(f"{path}: not a readable zip archive", code="FILE_INVALID") from None
        return
    if not path.name.lower().endswith(WORK_SUFFIXES):
        raise DataError(f"{path}: unknown kind of works file (expected one of {', '.join(WORK_SUFFIXES)})",
                        code="FILE_INVALID")
    yield from _objects_from_bytes(path.name, path.read_bytes(), str(path))


@dataclass(frozen=True)
class SeedEntry:
    """One entry of a seed file: its key in the file and the identifiers it carries."""

    key: str
    work_id: str | None
    doi: str | None
    title: str | None


def read_seed_entries(path: str | Path) -> list[SeedEntry]:
    """Seed entries from BibTeX (.bib), RIS (.ris) or OpenAlex JSON files."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"seed file {path} does not exist", code="FILE_MISSING")
    suffix = path.suffix.lower()
    if suffix == ".bib":
        return _bibtex_entries(path)
    if suffix == ".ris":
        return _ris_entries(path)
    return [SeedEntry(key=short_id(w.get("id")) or "", work_id=short_id(w.get("id")),
                      doi=normalize_doi(w.get("doi")), title=w.get("title"))
            for w in read_work_objects(path)]


def _bibtex_entries(path: Path) -> list[SeedEntry]:
    import bibtexparser

    library = bibtexparser.parse_string(path.read_text(encoding="utf-8-sig", errors="replace"))
    entries = []
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        entries.append(SeedEntry(key=entry.key, work_id=short_id(fields.get("openalex")),
                                 doi=normalize_doi(fields.get("doi")), title=fields.get("title")))
    return entries


def _ris_entries(path: Path) -> list[SeedEntry]:
    import rispy

    text = path.read_text(encoding="utf-8-sig", errors="replace")
    entries = []
    for number, record in enumerate(rispy.load(io.StringIO(text)), 1):
        key = record.get("id") or f"record {number}"
        title = record.get("title") or record.get("primary_title")
        entries.append(SeedEntry(key=str(key), work_id=None, doi=normalize_doi(record.get("doi")), title=title))
    return entries
