"""Scopus CSV exports as Records: the old 30-column layout and the current 45-46-column ones.

Columns are found by name. Known quirks of real exports:
- authors are separated by ", " in older exports ("Amah T.E., Kamat M., Oliveira A., Jr.") and by
  "; " in newer ones; "Author full names" ("Yao, Yuwei (57908119400)") carry Scopus author IDs;
- "Authors with affiliations" has one "; "-separated entry per author, the author's name first
  ("Tonyali, S., Dept…" in old exports, "Yao Y., School…" in new ones) and the author's several
  affiliations joined by ", ": they are told apart by the "Affiliations" column, which lists each
  distinct affiliation once;
- a row may hold more cells than the header when a record has more funding texts than the header's
  "Funding Text 1…n" columns: the extra cells sit after the last funding-text column, so the columns
  after it are counted from the row's end.
References are one cell, split as `scopus_refs.split_references` says.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlparse

from ...ids import normalize_doi, normalize_issn, normalize_pmid
from ...skips import Skips
from .affiliation import institution
from .csvfile import Header, Row, integer, read_records, split
from .languages import language_code
from .record import Author, CitedRef, Institution, Origin, Record
from .scopus_refs import split_references
from .vocab import marks_retracted, work_type

_NO_AUTHOR = "[no author name available]"
_NO_ABSTRACT = "[no abstract available]"
_NAME_SUFFIX = re.compile(r"^(?:jr|sr|ii|iii|iv)\.?$", re.IGNORECASE)
_INITIALS = re.compile(r"(?:[^\W\d_][^\W\d_]?\.[\s-]?)+")     # "J.R.", "Ch.", "J.-P.", "Š."
_FULL_NAME = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")


def read_scopus_csv(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a Scopus CSV export, one row at a time; rows that cannot be read go to `skips`."""
    return read_records(path, name, skips, "Scopus", ("EID", "Source title", "Authors with affiliations"),
                        _record(name))


def _record(name: str):
    def convert(header: Header, row: Row) -> Record | str:
        cells = _aligned(header, row.cells)
        if isinstance(cells, str):
            return cells
        return _from_cells(header, cells, Origin(name, row.number, row.line, "scopus-csv"))
    return convert


def _aligned(header: Header, cells: list[str]) -> list[str] | str:
    """Cells in header order; surplus funding-text cells are dropped (see the module doc)."""
    extra = len(cells) - len(header)
    if extra == 0:
        return cells
    funding = [i for i, n in enumerate(header.names) if n.startswith("funding text")]
    if extra > 0 and funding:
        last = funding[-1]
        return cells[:last + 1] + cells[last + 1 + extra:]
    return f"{len(cells)} cells where the header has {len(header)}"


def _from_cells(h: Header, cells: list[str], origin: Origin) -> Record:
    get = lambda *names: h.get(cells, *names)  # noqa: E731
    doc_type = get("Document Type")
    abstract = get("Abstract")
    record = Record(
        origin=origin,
        ids={k: v for k, v in (("scopus", get("EID") or _link_eid(get("Link"))),
                               ("pmid", normalize_pmid(get("PubMed ID")))) if v},   # not "NA" (bibliometrix)
        doi=normalize_doi(get("DOI")),
        title=get("Title"),
        year=integer(get("Year")),
        type=work_type(doc_type),
        language=language_code(get("Language of Original Document")),
        venue=get("Source title"),
        venue_abbrev=get("Abbreviated Source Title"),
        issn=normalize_issn(get("ISSN")),
        volume=get("Volume"),
        issue=get("Issue"),
        first_page=get("Page start") or get("Art. No."),
        last_page=get("Page end") if get("Page start") else None,
        cited_by_count=_cited_by(h, cells),
        abstract=None if abstract and abstract.lower() == _NO_ABSTRACT else abstract,
        is_retracted=marks_retracted(doc_type),
        author_keywords=split(get("Author Keywords"), ";"),
        index_keywords=split(get("Index Keywords"), ";"),
        references=[CitedRef(r, origin.line) for r in split_references(get("References"))],
    )
    record.authors, record.institutions = _authors(h, cells)
    return record


def _link_eid(link: str | None) -> str | None:
    """The EID in a record's Scopus link (…record.uri?eid=2-s2.0-…&…), for exports without "EID"."""
    found = parse_qs(urlparse(link).query).get("eid") if link else None
    return found[0] if found else None


def _cited_by(h: Header, cells: list[str]) -> int | None:
    """Scopus leaves "Cited by" empty for an uncited work: 0 when the column is there."""
    if not h.has("Cited by"):
        return None
    return integer(h.get(cells, "Cited by")) or 0


def _authors(h: Header, cells: list[str]) -> tuple[list[Author], list[Institution]]:
    names = author_names(h.get(cells, "Authors"))
    full = [_FULL_NAME.match(f) for f in split(h.get(cells, "Author full names"), ";")]
    ids = [i for i in split(h.get(cells, "Author(s) ID"), ";") if i.isdigit()]
    linked = _affiliations(names, _unescaped(h.get(cells, "Authors with affiliations")),
                           _unescaped(h.get(cells, "Affiliations")))
    institutions: list[Institution] = []
    where: dict[str, int] = {}
    authors = []
    for i, short in enumerate(names):
        full_name, scopus_id = None, ids[i] if len(ids) == len(names) else None
        if len(full) == len(names):
            match = full[i]
            full_name = (match.group(1) if match else None) or None
            scopus_id = (match.group(2) if match else None) or scopus_id
        indexes = []
        for address in linked.get(i, []):
            if address not in where:
                where[address] = len(institutions)
                institutions.append(institution(address))
            indexes.append(where[address])
        authors.append(Author(name=short, full_name=full_name,
                              ids=(("scopus", scopus_id),) if scopus_id else (),
                              affiliations=tuple(dict.fromkeys(indexes))))
    for address in linked.get(-1, []):
        if address not in where:
            where[address] = len(institutions)
            institutions.append(institution(address))
    return authors, institutions


def _unescaped(cell: str | None) -> str | None:
    """Old exports leave HTML character references in addresses ("Ghent University &#x2013; imec"),
    whose ";" would split an address."""
    return html.unescape(cell) if cell and "&" in cell else cell


def author_names(cell: str | None) -> list[str]:
    """The byline: "; "-separated in newer exports, ", "-separated in older ones, where a name suffix
    ("Oliveira A., Jr.") is its own part and joins the name before it, and where some exports write
    "Surname, I." ("Wang, B., Seiler, J.R."): when every other part is initials alone, each joins the
    surname before it."""
    if not cell or cell.strip().lower() == _NO_AUTHOR:
        return []
    if ";" in cell:
        return split(cell, ";")
    parts = split(cell, ",")
    core = [part for part in parts if not _NAME_SUFFIX.match(part)]
    paired = (len(core) % 2 == 0 and all(map(_initials, core[1::2])) and not any(map(_initials, core[::2])))
    names: list[str] = []
    surname = False          # the last name is a surname waiting for its initials
    for part in parts:
        if names and (surname or _NAME_SUFFIX.match(part)):
            names[-1] = f"{names[-1]}, {part}"
            surname = False
        else:
            names.append(part)
            surname = paired
    return names


def _affiliations(names: list[str], cell: str | None, listed: str | None) -> dict[int, list[str]]:
    """Author index -> affiliation addresses; -1 holds those no author could be linked to."""
    entries = split(cell, ";")
    known = sorted(set(split(listed, ";")), key=len, reverse=True)
    out: dict[int, list[str]] = {}
    forms = _name_forms(names)
    for position, entry in enumerate(entries):
        index, rest = _entry_author(forms, entry, position, len(entries) == len(names))
        for address in _split_addresses(rest, known):
            out.setdefault(index, [])
            if address not in out[index]:
                out[index].append(address)
    return out


def _initials(part: str) -> bool:
    """Whether a byline part is initials alone ("B.", "J.-P.", "Š."), upper case first."""
    return bool(_INITIALS.fullmatch(part)) and part[0].isupper()


def _name_forms(names: list[str]) -> dict[str, list[int]]:
    """Byline names in their new ("Gong B.") and old ("Gong, B.") forms -> author indexes."""
    forms: dict[str, list[int]] = {}
    for index, name in enumerate(names):
        for form in dict.fromkeys((name, _old_form(name))):
            if form:
                forms.setdefault(form, []).append(index)
    return forms


def _entry_author(forms: dict[str, list[int]], entry: str, position: int, aligned: bool) -> tuple[int, str]:
    """(author index, affiliation text) of one "Name, affiliation" entry: its first one or two comma
    parts matched against the byline's names (the author at the entry's position first, as namesakes
    are common), else the author at its position when entries and authors pair up."""
    parts = entry.split(",", 2)
    for form in (",".join(parts[:2]), parts[0]) if len(parts) > 1 else (parts[0],):
        if indexes := forms.get(form.strip()):
            return (position if position in indexes else indexes[0]), entry[len(form) + 1:].strip()
    if not aligned:
        return -1, _drop_name(entry)
    return position, _drop_name(entry)


def _old_form(name: str) -> str | None:
    """"Abd Rahman S.O." as old exports write it in affiliations: "Abd Rahman, S.O."."""
    head, _, initials = name.rpartition(" ")
    return f"{head}, {initials}" if head else None


def _drop_name(entry: str) -> str:
    """An entry whose name matches no byline name: drop "Surname, I.," or "Surname I.,"."""
    parts = entry.split(", ")
    if len(parts) > 1 and _initials(parts[1]):
        return ", ".join(parts[2:])
    return ", ".join(parts[1:]) if len(parts) > 1 else ""


def _split_addresses(text: str, known: list[str]) -> list[str]:
    """An author's affiliations, joined by ", " in the entry, cut at the addresses the "Affiliations"
    column lists (longest first); text no listed address starts is one address to its end."""
    text, out = text.strip(), []
    while text:
        match = next((k for k in known if text == k or text.startswith(k + ", ")), None)
        if match is None:
            out.append(text)
            break
        out.append(match)
        text = text[len(match) + 2:].strip()
    return out
