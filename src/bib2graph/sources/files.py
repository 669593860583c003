"""Reading works and seed lists from local files.

OpenAlex Work objects come as `.json` (one object, an array, or a list response ``{"results": […]}``),
`.jsonl` (one object a line), either of them gzipped, or a `.zip` holding any of those (members read in
name order, one at a time; JSON Lines a line at a time). A file that cannot be read as a whole (a
damaged archive, undecodable bytes, a `.json` that is not JSON) is a DataError naming it and the member
or line; a record the reader can do without is passed over and reported to `skips` with its place.
BibTeX and RIS files give seed DOIs: entries without a DOI are reported by key by the seeding.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import re
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator
from urllib.parse import unquote

import orjson

from .. import textio
from ..errors import DataError
from ..ids import normalize_doi, openalex_work_id
from ..skips import Skips
from .records import scrub_surrogates, work_doi, work_id, work_title

MEMBER_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
WORK_SUFFIXES = MEMBER_SUFFIXES + (".zip",)

# What a damaged, truncated or unsupported archive or compressed stream raises while it is read (a
# UnicodeDecodeError: a member name flagged UTF-8 that is not).
_DAMAGED = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, OSError,
            UnicodeDecodeError)
# A "\uD800"-"\uDFFF" escape in JSON text: the record may hold a lone surrogate to repair.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean",
               type(None): "null"}


@dataclass(frozen=True)
class _Part:
    """A works file, or one member of a zip: how errors and skips name it."""

    file: str
    member: str | None = None

    @property
    def label(self) -> str:
        return f"{self.file}, member {self.member}" if self.member else self.file

    def where(self, place: str) -> str:
        return ", ".join(p for p in (self.member and f"member {self.member}", place) if p)

    def details(self, **more: Any) -> dict[str, Any]:
        return {"file": self.file, **({"member": self.member} if self.member else {}), **more}

    def error(self, message: str, code: str = "FILE_INVALID", **details: Any) -> DataError:
        return DataError(f"{self.label}: {message}", code=code, details=self.details(**details))

    def restate(self, exc: DataError) -> DataError:
        """`exc` (raised naming `label`) with this part's file and member in its details."""
        return DataError(exc.message, code=exc.code, details={**exc.details, **self.details()})


@contextmanager
def _readable(part: _Part) -> Iterator[None]:
    """A damaged archive or compressed stream is a DataError naming the file (and member), and so is
    undecodable text, whose error gets the file and member into its details."""
    try:
        yield
    except _DAMAGED as exc:
        raise part.error(f"damaged, truncated or unsupported data, cannot be read ({exc or type(exc).__name__})",
                         code="FILE_CORRUPT") from None
    except DataError as exc:
        if exc.code != "FILE_ENCODING":
            raise
        raise part.restate(exc) from None


def read_work_objects(path: str | Path, name: str | None = None,
                      skips: Skips | None = None) -> Iterator[dict[str, Any]]:
    """Yield the OpenAlex Work objects stored in one file; `name` is how messages name it (default: the
    path). Records without a usable ID, and repairs, go to `skips`, as does a file holding no works."""
    path, name = Path(path), str(path) if name is None else name
    skips = Skips() if skips is None else skips
    if not path.is_file():
        raise DataError(f"source file {name} does not exist", code="FILE_MISSING", details={"file": name})
    count = 0
    for part, place, item, escaped in _items(path, name, skips):
        if _accepted(part, place, item, escaped, skips):
            count += 1
            yield item
    if not count:
        skips.add(name, "", "holds no works (no JSON object with an OpenAlex work ID as its `id`)")


def read_jsonl_gz(path: str | Path, name: str, skips: Skips) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, Work object) of a gzipped JSON Lines file whatever its name ends in (the OpenAlex snapshot's
    `part_NNN.gz`), read and checked as a `.jsonl.gz` works file is: damage is a DataError naming `name`."""
    part = _Part(name)
    with _readable(part), Path(path).open("rb") as stream:
        for found, place, item, escaped in _stream_items(part, ".jsonl.gz", stream, skips):
            if _accepted(found, place, item, escaped, skips):
                yield int(place.rsplit(" ", 1)[1]), item


def _items(path: Path, name: str, skips: Skips) -> Iterator[tuple[_Part, str, Any, bool]]:
    """(part, place, parsed value, whether its text held a surrogate escape) for every record."""
    lowered, part = path.name.lower(), _Part(name)
    if lowered.endswith(".zip"):
        with _readable(part), zipfile.ZipFile(path) as archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                yield from _member_items(archive, info, name, skips)
    elif lowered.endswith(MEMBER_SUFFIXES):
        with _readable(part), path.open("rb") as stream:
            yield from _stream_items(part, lowered, stream, skips)
    else:
        raise part.error(f"unknown kind of works file (expected one of {', '.join(WORK_SUFFIXES)})")


def _member_items(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str,
                  skips: Skips) -> Iterator[tuple[_Part, str, Any, bool]]:
    lowered, part = info.filename.lower(), _Part(name, info.filename)
    if info.is_dir():
        return
    if not lowered.endswith(MEMBER_SUFFIXES) or lowered.startswith("__macosx/"):
        skips.add(name, f"member {info.filename}",
                  f"not a works file (expected one of {', '.join(MEMBER_SUFFIXES)}); ignored")
        return
    if info.flag_bits & 0x1:
        raise part.error("is encrypted; store the works without a password", code="FILE_CORRUPT")
    with _readable(part), archive.open(info) as stream:
        yield from _stream_items(part, lowered, stream, skips)


def _stream_items(part: _Part, lowered: str, stream: IO[bytes],
                  skips: Skips) -> Iterator[tuple[_Part, str, Any, bool]]:
    if lowered.endswith(".gz"):
        with gzip.open(stream) as unzipped:
            yield from _stream_items(part, lowered[:-3], unzipped, skips)
    elif lowered.endswith(".jsonl"):
        yield from _jsonl_items(part, stream, skips)
    else:
        yield from _json_items(part, stream.read())


def _jsonl_items(part: _Part, stream: IO[bytes], skips: Skips) -> Iterator[tuple[_Part, str, Any, bool]]:
    for number, line in enumerate(textio.lines(stream, part.label), 1):
        if line.strip():
            try:
                value = _loads(line)
            except (ValueError, RecursionError) as exc:
                skips.add(part.file, part.where(f"line {number}"), f"not valid JSON ({_why(exc)}); skipped")
                continue
            yield part, f"line {number}", value, bool(_SURROGATE_ESCAPE.search(line))


#: digits as one byte, so that a run of 19 (an integer orjson may read outside 64 bits as a float, where
#: `json.loads` gives an int) is a plain substring search (a regex scan cost more than orjson saves)
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
_LONG_NUMBER = b"0" * 19


def _loads(line: str) -> Any:
    """A JSON line as `json.loads` reads it: by orjson (a third of a snapshot partition's time in the
    standard library) where orjson reads it the same, else by `json.loads`, which also reads what orjson
    refuses (NaN, lone surrogates, deep nesting) or raises as before."""
    if _LONG_NUMBER not in line.encode("utf-8", "surrogatepass").translate(_DIGITS):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    return json.loads(line)


def _json_items(part: _Part, data: bytes) -> Iterator[tuple[_Part, str, Any, bool]]:
    text = textio.decode(data, part.label)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise part.error(f"line {exc.lineno}: not valid JSON ({exc.msg})", line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise part.error(f"not valid JSON ({_why(exc)})") from None
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        value = value["results"]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise part.error("expected a Work object, an array of them or {\"results\": [...]}")
    escaped = bool(_SURROGATE_ESCAPE.search(text))
    for number, item in enumerate(value, 1):
        yield part, f"record {number}", item, escaped


def _why(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)


def _accepted(part: _Part, place: str, item: Any, escaped: bool, skips: Skips) -> bool:
    """Whether `item` is a usable Work object; what is not is skipped, a lone surrogate repaired."""
    where = part.where(place)
    if not isinstance(item, dict):
        skips.add(part.file, where, f"not a JSON object but {_JSON_TYPES[type(item)]}; skipped")
        return False
    if not openalex_work_id(work_id(item)):
        found = item.get("id")
        skips.add(part.file, where, "a work without a usable `id` (an OpenAlex work ID, W…)"
                  + (f", not {str(found)[:80]!r}" if isinstance(found, (str, int)) else "")
                  + "; skipped (a file of other records: declare its format in source.formats)")
        return False
    if escaped and (repaired := scrub_surrogates(item)):
        skips.add(part.file, where, f"{repaired} lone UTF-16 surrogate(s) replaced by U+FFFD")
    return True


@dataclass(frozen=True)
class SeedEntry:
    """One entry of a seed file: its key in the file and the identifiers it carries."""

    key: str
    work_id: str | None
    doi: str | None
    title: str | None


def read_seed_entries(path: str | Path, name: str | None = None, skips: Skips | None = None) -> list[SeedEntry]:
    """Seed entries from BibTeX (.bib), RIS (.ris) or OpenAlex JSON files; `name` is how messages name
    the file (default: the path). Entries that cannot be read go to `skips`."""
    path, name = Path(path), str(path) if name is None else name
    skips = Skips() if skips is None else skips
    if not path.is_file():
        raise DataError(f"seed file {name} does not exist", code="FILE_MISSING", details={"file": name})
    suffix = path.suffix.lower()
    if suffix in (".bib", ".ris"):
        reader = _bibtex_entries if suffix == ".bib" else _ris_entries
        entries = reader(textio.read_text(path, name), name, skips)
        if not entries:
            skips.add(name, "", "holds no entries")
        return entries
    return [SeedEntry(key=work_id(w) or "", work_id=openalex_work_id(work_id(w)), doi=work_doi(w), title=work_title(w))
            for w in read_work_objects(path, name, skips)]


def _bibtex_entries(text: str, name: str, skips: Skips) -> list[SeedEntry]:
    from .exports.bibtex import bibtex_entries

    return [e for e in (_bibtex_entry(entry, name, skips) for entry in bibtex_entries(text, name, skips)) if e]


def _bibtex_entry(entry: Any, name: str, skips: Skips) -> SeedEntry | None:
    from .exports.bibtex import bibtex_doi, entry_fields

    fields, _ = entry_fields(entry)
    try:
        doi = bibtex_doi(fields)
    except RecursionError:
        skips.add(name, f"line {entry.start_line + 1}", "BibTeX `doi` or `url` nested too deeply to read; skipped")
        return None
    return SeedEntry(key=entry.key, work_id=openalex_work_id(fields.get("openalex")), doi=doi,
                     title=fields.get("title"))


def _url_doi(url: str) -> str | None:
    """The DOI of a doi.org URL, whose DOI may be percent-escaped (``10.1000%2Fab``)."""
    return normalize_doi(unquote(url))


def _ris_entries(text: str, name: str, skips: Skips) -> list[SeedEntry]:
    from .exports.ris import tag_values, tagged_doi

    entries = []
    for number, (line, block) in enumerate(_ris_records(text, name, skips), 1):
        record = _ris_record([value for _, value in block], name, line, skips)   # rispy passes L3 over
        if record is not None:
            doi = normalize_doi(record.get("doi")) or tagged_doi(tag_values(block)) or next(
                (d for d in (_url_doi(u) for u in record.get("urls", [])) if d), None)
            entries.append(SeedEntry(key=str(record.get("id") or f"record {number}"), work_id=None, doi=doi,
                                     title=record.get("title") or record.get("primary_title")))
    return entries


def _ris_records(text: str, name: str, skips: Skips) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """(first line, lines) of each TY … ER record, cut by `exports.ris.ris_blocks` (stray text and
    records without ER go to `skips`). Tags outside the RIS standard (IEEE's `VO`, say) are dropped
    quietly, but those where producers write a DOI (`ris.DOI_TAGS`): a seed needs only its identifiers
    and title, so they lose nothing. Lines end as universal newlines say (a lone CR too)."""
    import rispy

    from .exports.ris import DOI_TAGS, ris_blocks

    known = rispy.RisParser().mapping
    lines = io.StringIO(text, newline=None).read().split("\n")
    yield from ris_blocks(lines, name, skips, keep=lambda tag: tag is None or tag in known or tag in DOI_TAGS)


def _ris_record(lines: list[str], name: str, line: int, skips: Skips) -> dict[str, Any] | None:
    """One TY … ER record read by rispy; a record its internals trip over is skipped, not the file."""
    import rispy

    try:
        return rispy.RisParser(skip_unknown_tags=True).parse_lines(iter(lines))[0]
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        skips.add(name, f"line {line}", f"RIS record not read ({type(exc).__name__}: {exc}); skipped")
        return None
