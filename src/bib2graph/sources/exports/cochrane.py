"""Cochrane Library CENTRAL exports as plain text ("Export selected citations", format Text): what
reviewers search for controlled trials next to MEDLINE and Embase.

Each record starts with a "Record #1 of 12" line and holds "TAG: value" lines:

    Record #1 of 2
    ID: CN-01234567
    AU: Smith J
    AU: Jones AB
    TI: A randomised trial of …
    SO: The Lancet
    YR: 2019
    VL: 393
    NO: 10170
    PG: 423-433
    PM: PUBMED 30660395
    XR: EMBASE 626176371
    PT: Journal Article; Randomized Controlled Trial
    KY: *Adult; Female; Humans
    DOI: 10.1016/S0140-6736(18)32779-8
    AB: …
    US: https://www.cochranelibrary.com/central/doi/10.1002/central/CN-01234567/full
    SN: 0140-6736

A line that is not "TAG: value" continues the field before it. Authors come one an `AU` line or
";"-separated; `KY` keywords (MeSH and Emtree terms, major-topic stars dropped) go to
`index_keywords`; a PubMed ID in `PM` or among the `XR` cross-references ("PUBMED 30660395") to
`ids["pmid"]`; the CENTRAL ID to `ids["cochrane"]`. A record without its CN- ID is skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...errors import DataError
from ...ids import normalize_doi, normalize_issn, normalize_pmid
from ...skips import Skips
from . import textfile
from .languages import language_code
from .record import Author, Origin, Record
from .vocab import work_type

_HEADER = re.compile(r"^\s*Record\s*#\s*\d+\s+of\s+\d+\s*$", re.IGNORECASE)
_FIELD = re.compile(r"^([A-Z][A-Z0-9]{1,3}):(?:\s(.*)|\s*)$")
_CENTRAL_ID = re.compile(r"^CN-\d+$", re.IGNORECASE)
_PUBMED = re.compile(r"\b(?:PUBMED|MEDLINE|PMID)\b[\s:]*(\d{1,9})\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(\d{4})\b")
_PAGES = re.compile(r"^\s*(\w+)\s*[-–]+\s*(\w+)\s*$")
# How many lines of a file without any record start are read before it is called not Cochrane text.
_STRAY_LIMIT = 1000

Fields = dict[str, list[str]]


def read_cochrane(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a Cochrane CENTRAL text export, streamed; records without an ID go to `skips`."""
    count = 0
    for number, (line, fields) in enumerate(_blocks(textfile.lines(Path(path), name), name, skips), 1):
        central = _first(fields, "ID")
        if not central or not _CENTRAL_ID.match(central):
            skips.add(name, f"line {line}", "Cochrane record without its CENTRAL ID (ID: CN-…); skipped")
            continue
        count += 1
        yield _record(fields, central.upper(), Origin(name, number, line, "cochrane"))
    if not count:
        skips.add(name, "", "holds no Cochrane CENTRAL records")


def _blocks(lines: Iterator[str], name: str, skips: Skips) -> Iterator[tuple[int, Fields]]:
    """(first line, fields) of each record. A record starts at a "Record #n of m" line, or at an `ID`
    line when the record being read already has one (exports without the count lines). Text before
    the first record is reported; a file whose first lines hold no record is not this format."""
    fields: Fields | None = None
    start, last, seen, stray = 0, None, False, []
    for number, line in enumerate(lines, 1):
        field = _FIELD.match(line)
        if _HEADER.match(line) or field and field.group(1) == "ID" and (fields is None or "ID" in fields):
            if fields is not None:
                yield start, fields
            fields, start, last, seen = {}, number, None, True
            for where in stray:
                skips.add(name, f"line {where}", "text outside a Cochrane record; ignored")
            stray = []
            if not field:
                continue
        if fields is None:
            if line.strip():
                stray.append(number)
                if len(stray) > _STRAY_LIMIT:
                    break
        elif field:
            last = field.group(1)
            fields.setdefault(last, []).append((field.group(2) or "").strip())
        elif line.strip() and last is not None:
            fields[last][-1] = f"{fields[last][-1]} {line.strip()}".strip()
    if not seen and stray:
        raise DataError(f"{name}: not a Cochrane CENTRAL text export (no record starts with \"Record #1 of …\" "
                        "or \"ID: CN-…\")", code="FILE_INVALID", details={"file": name})
    if fields is not None:
        yield start, fields


def _record(f: Fields, central: str, origin: Origin) -> Record:
    first, last = _pages(_first(f, "PG"))
    year = _YEAR.search(_first(f, "YR") or "")
    ids = {"cochrane": central}
    pmid = next((p for v in f.get("PM", []) + f.get("XR", []) for p in _pmids(v)), None)
    if pmid:
        ids["pmid"] = pmid
    return Record(
        origin=origin, ids=ids, doi=normalize_doi(_first(f, "DOI")), title=_first(f, "TI"),
        year=int(year.group(1)) if year else None, type=work_type(_first(f, "PT")),
        language=language_code(_first(f, "LA")), venue=_first(f, "SO"),
        issn=normalize_issn(" ".join(f.get("SN", []))),
        volume=_first(f, "VL"), issue=_first(f, "NO"), first_page=first, last_page=last,
        abstract=_first(f, "AB"),
        authors=[Author(name=a) for a in _split(f.get("AU", []))],
        index_keywords=list(dict.fromkeys(k.lstrip("*").strip() for k in _split(f.get("KY", [])) if k.lstrip("*"))),
    )


def _pmids(value: str) -> Iterator[str]:
    for match in _PUBMED.finditer(value):
        if pmid := normalize_pmid(match.group(1)):
            yield pmid


def _pages(value: str | None) -> tuple[str | None, str | None]:
    """"423-433" as first and last page; a single page or article number as the first."""
    if not value:
        return None, None
    match = _PAGES.match(value)
    return (match.group(1), match.group(2)) if match else (value, None)


def _split(values: list[str]) -> list[str]:
    """Values of repeated lines, each also split at ";" (`AU: Smith J; Jones A`)."""
    return [p for v in values for p in (" ".join(x.split()) for x in v.split(";")) if p]


def _first(f: Fields, tag: str) -> str | None:
    value = " ".join(" ".join(f.get(tag, [])[:1]).split())
    return value or None
