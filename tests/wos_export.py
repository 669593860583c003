"""Web of Science plain-text exports written from OpenAlex Work objects, for tests that need a WoS file
of works whose OpenAlex records they also hold (the shared data has no such pair).

Each reference is a WoS `CR` line made from the cited work's own OpenAlex record, in the forms WoS
varies between: DOI present or not, upper-case or mixed-case surnames, initials with or without dots,
the source abbreviated or written out. A line is written only for a cited work the given universe holds
with a first author and a year.
"""

from __future__ import annotations

import hashlib
import json
import zipfile

from bib2graph.ids import normalize_doi, short_id
from bib2graph.sources.exports.names import split_name

STOP = {"OF", "THE", "AND", "IN", "FOR", "ON", "&", "A", "AN"}


def synergy_works(paths) -> dict:
    works = {}
    for path in sorted(paths):
        with zipfile.ZipFile(path) as archive:
            for name in sorted(archive.namelist()):
                for work in json.loads(archive.read(name)):
                    works[short_id(work["id"])] = work
    return works


def _pick(key: str, n: int) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % n


def _venue(work) -> str | None:
    location = work.get("primary_location") or {}
    source = (location.get("source") or {}) if isinstance(location, dict) else {}
    return source.get("display_name") or (work.get("host_venue") or {}).get("display_name")


def _abbrev(venue: str) -> str:
    """A WoS J9-like abbreviation: non-stop words cut to four letters, upper case."""
    return " ".join(w[:4] for w in venue.upper().replace(",", " ").split() if w not in STOP)[:20]


def _author(work, style: int) -> str | None:
    authors = work.get("authorships") or []
    if not authors or not (authors[0].get("author") or {}).get("display_name"):
        return None
    surname, given = split_name(authors[0]["author"]["display_name"])
    initials = "".join(p[0] for p in given.replace("-", " ").split() if p[:1].isalpha())
    if style == 0:
        return f"{surname} {initials}"
    if style == 1:
        return f"{surname.upper()} {initials[:1]}"
    return f"{surname} {'. '.join(initials)}."   # "Burt R. S.", as WoS writes some


def _cr_line(cited, citing_id: str) -> str | None:
    """One WoS CR line for `cited`, varied by the citing work so that one cited work is written in
    several forms across the export."""
    year = cited.get("publication_year")
    style = _pick(citing_id + cited["id"], 6)
    author = _author(cited, style % 3)
    if not author or not year:
        return None
    biblio = cited.get("biblio") or {}
    venue = _venue(cited) or ""
    parts = [author, str(year)]
    if venue:
        parts.append(_abbrev(venue) if style != 5 else venue.upper())
    if biblio.get("volume"):
        parts.append(f"V{biblio['volume']}")
    if biblio.get("first_page"):
        parts.append(f"P{biblio['first_page']}")
    doi = normalize_doi(cited.get("doi"))
    if doi and style not in (1, 4):      # a third of the lines carry no DOI, as older WoS references
        parts.append(f"DOI {doi.upper() if style == 3 else doi}")
    return ", ".join(parts)


def wos_record(work, works) -> tuple[list[str], set[str]]:
    """The lines of one WoS record and the cited works it holds a CR line for."""
    wid = short_id(work["id"])
    lines = ["PT J"]
    names = [(a.get("author") or {}).get("display_name") for a in work.get("authorships") or []]
    names = [n for n in names if n]
    for tag, form in (("AU", lambda s, g: f"{s}, {''.join(p[0] for p in g.split())}"), ("AF", lambda s, g: f"{s}, {g}")):
        for i, name in enumerate(names):
            lines.append(f"{tag if i == 0 else '  '} {form(*split_name(name))}")
    lines.append(f"TI {work.get('title') or work.get('display_name') or 'Untitled'}")
    if _venue(work):
        lines.append(f"SO {_venue(work).upper()}")
    cited_lines, cited = [], set()
    for ref in sorted(short_id(r) for r in work.get("referenced_works") or []):
        if ref in works:
            line = _cr_line(works[ref], wid)
            if line:
                cited_lines.append(line)
                cited.add(ref)
    for i, line in enumerate(cited_lines):
        lines.append(f"{'CR' if i == 0 else '  '} {line}")
    if work.get("publication_year"):
        lines.append(f"PY {work['publication_year']}")
    if normalize_doi(work.get("doi")):
        lines.append(f"DI {normalize_doi(work['doi'])}")
    lines.append(f"UT WOS:{int(wid[1:]):015d}")
    lines.append("ER")
    return lines, cited


def wos_export(works: list, universe: dict) -> tuple[str, dict[str, set[str]]]:
    """The export of `works` (in ID order) and, per work, the cited works it holds a CR line for."""
    lines, kept = ["FN Clarivate Analytics Web of Science", "VR 1.0"], {}
    for work in sorted(works, key=lambda w: short_id(w["id"])):
        record, cited = wos_record(work, universe)
        lines += record
        kept[short_id(work["id"])] = cited
    lines.append("EF")
    return "\n".join(lines) + "\n", kept
