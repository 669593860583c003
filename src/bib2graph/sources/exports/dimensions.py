"""Dimensions publication exports (CSV) as Records.

Two exports are read, both found by content (detect.py): "Export full record" and "Export for
bibliometric mapping", the latter with "Cited references". Their first line is usually a note ("About
the data: Exported on …. Criteria: …"), skipped before the header; files saved again by a spreadsheet may
lack it. Columns by name: "Publication ID" (pub.123, the record's ID), "DOI", "PMID", "PMCID", "Title",
"Abstract", "Source title" (else "Anthology title"; the mapping export's "Source title/Anthology title"),
"ISSN", "MeSH terms", "Publication Date", "PubYear", "Volume", "Issue", "Pagination" ("389-393", or an
article number), "Publication Type" and "Document Type", "Authors" ("Surname, Given; …"), "Times cited",
"Keywords", the Fields of Research ("FOR (ANZSRC) Categories", "Fields of Research (ANZSRC 2020)", codes
dropped; index keywords beside MeSH, which goes to `Record.mesh`), and "Cited references"
(dimensions_refs.py). Multi-valued cells are "; "-separated.

Affiliations, as far as the columns go: "Authors Affiliations" gives each author's organisations as
Dimensions standardises them ("Smith, Jane A (Example University; Example Hospital); …"), else "Authors (Raw
Affiliation)" each author's addresses as printed; the organisations' countries come from "Research
Organizations - standardized" beside "Country of Research organization" (one country per organisation).
The mapping export lists organisations and countries without saying whose ("Authors Affiliations - Name
of Research organization", "… - Country of Research organization"): institutions of no author.

A spreadsheet that opened an export cuts a cell at 32,767 characters and writes the rest of a long
"Cited references" cell as rows of their own: such a row has no Dimensions ID in "Publication ID" and is
skipped, and the cut reference at the end of the record's cell is dropped (`dimensions_refs.is_complete`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...ids import normalize_doi, normalize_issn, normalize_pmid
from ...skips import Skips
from .affiliation import institution
from .countries import country_code
from .csvfile import Header, Row, integer, read_records, split
from .dimensions_refs import is_complete, split_references
from .record import Author, CitedRef, Institution, Origin, Record
from .references import split_outside
from .vocab import work_type

_PUB_ID = re.compile(r"^pub\.\d+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PAGES = re.compile(r"^\s*(\w+)\s*[-\u2013]\s*(\w+)\s*$")
_FOR_CODE = re.compile(r"^\d+\s+")
# Dimensions' labels that vocab.work_type does not know; "Document Type" refines "Publication Type".
_TYPES = {"research article": "article", "review article": "review", "proceeding": "article",
          "monograph": "book", "edited book": "book", "research chapter": "book-chapter"}
FOR_COLUMNS = ("FOR (ANZSRC) Categories", "Fields of Research (ANZSRC 2020)", "Fields of Research (ANZSRC 2008)",
               "Fields of Research")


def read_dimensions_csv(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a Dimensions publications export (full record or bibliometric mapping), a row at a
    time; rows that cannot be read go to `skips`."""
    return read_records(path, name, skips, "Dimensions", ("Publication ID",), _converter(name),
                        preamble=_is_note)


def _is_note(cells: list[str]) -> bool:
    """Dimensions' first line, "About the data: Exported on …", one cell before the header."""
    return bool(cells) and cells[0].lstrip("\ufeff \"").startswith("About the data")


def _converter(name: str):
    def convert(h: Header, row: Row) -> Record | str:
        get = lambda *names: h.get(row.cells, *names)  # noqa: E731
        pub_id, doi, pmid = get("Publication ID"), normalize_doi(get("DOI")), normalize_pmid(get("PMID"))
        if pub_id and not _PUB_ID.match(pub_id):
            return f"{_short(pub_id)!r} in \"Publication ID\" is not a Dimensions ID (a row cut from a long cell?)"
        if not (pub_id or doi or pmid):
            return "a row without a Publication ID, DOI or PMID"
        origin = Origin(name, row.number, row.line, "dimensions-csv")
        date = get("Publication Date")
        first, last = _pages(get("Pagination"))
        record = Record(
            origin=origin,
            ids={k: v for k, v in (("dimensions", pub_id), ("pmid", pmid), ("pmcid", get("PMCID"))) if v},
            doi=doi,
            title=get("Title"),
            year=integer(get("PubYear")) or integer((date or "")[:4]),
            publication_date=date if date and _DATE.match(date) else None,
            type=_type(get("Document Type"), get("Publication Type")),
            venue=get("Source title", "Source title/Anthology title", "Anthology title"),
            issn=normalize_issn(get("ISSN", "Source ISSN", "ISSNs")),
            volume=get("Volume"),
            issue=get("Issue"),
            first_page=first,
            last_page=last,
            cited_by_count=integer(get("Times cited")),
            abstract=get("Abstract"),
            author_keywords=split(get("Keywords", "Author Keywords"), ";"),
            index_keywords=[_FOR_CODE.sub("", c) for c in split(get(*FOR_COLUMNS), ";")],
            mesh=split(get("MeSH terms"), ";"),
            references=[CitedRef(r, row.line) for r in split_references(get("Cited references")) if is_complete(r)],
        )
        record.authors, record.institutions = _authors(h, row.cells)
        return record
    return convert


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "…"


def _type(document: str | None, publication: str | None) -> str | None:
    for label in (document, publication):
        if label and label.strip():
            return _TYPES.get(" ".join(label.split()).lower()) or work_type(label)
    return None


def _pages(pagination: str | None) -> tuple[str | None, str | None]:
    """("389", "393") for "389-393"; an article number ("e0123", "neurintsurg-2020-016238") is the first
    page alone."""
    if not pagination:
        return None, None
    match = _PAGES.match(pagination)
    return (match.group(1), match.group(2)) if match else (pagination, None)


# ------------------------------------------------------------------------------------------ affiliations

def _authors(h: Header, cells: list[str]) -> tuple[list[Author], list[Institution]]:
    get = lambda *names: h.get(cells, *names)  # noqa: E731
    names = split(get("Authors"), ";")
    countries = _countries(split(get("Research Organizations - standardized"), ";"),
                           split(get("Country of Research organization"), ";"))
    institutions: list[Institution] = []
    where: dict[str, int] = {}

    def add(org: str, raw: bool) -> int:
        if org not in where:
            where[org] = len(institutions)
            institutions.append(institution(org) if raw else Institution(name=org, country=countries.get(org)))
        return where[org]

    standard = get("Authors Affiliations")
    raw = get("Authors (Raw Affiliation)")
    per_author = _per_author(standard, names) if standard and "(" in standard else _per_author(raw, names)
    is_raw = not (standard and "(" in standard)
    linked: dict[int, list[int]] = {}
    for index, orgs in per_author:
        for org in orgs:
            linked.setdefault(index, []).append(add(org, is_raw))
    listed = split(get("Authors Affiliations - Name of Research organization"), ";")
    for org, country in zip(listed, _aligned(listed, split(get("Authors Affiliations - Country of Research "
                                                                "organization"), ";"))):
        countries.setdefault(org, country_code(country) if country else None)
        add(org, False)
    authors = [Author(name=n, full_name=n, affiliations=tuple(dict.fromkeys(linked.get(i, []))))
               for i, n in enumerate(names)]
    return authors, institutions


def _countries(orgs: list[str], countries: list[str]) -> dict[str, str | None]:
    """Organisation → ISO country, when the two cells pair up one to one."""
    return {org: country_code(country) for org, country in zip(orgs, _aligned(orgs, countries)) if country}


def _aligned(items: list[str], values: list[str]) -> list[str | None]:
    return list(values) if len(values) == len(items) else [None] * len(items)


def _per_author(cell: str | None, names: list[str]) -> list[tuple[int, list[str]]]:
    """(author index, organisations) of a "Name (Org; Org); Name (Org)" cell: by position when it has
    one entry per author, else by name; -1 for an entry no author matches."""
    entries = [_entry(part) for part in _top_level(cell or "")]
    entries = [(n, orgs) for n, orgs in entries if n or orgs]
    if len(entries) == len(names):
        return [(i, orgs) for i, (_, orgs) in enumerate(entries)]
    index = {" ".join(n.split()).lower(): i for i, n in reversed(list(enumerate(names)))}
    return [(index.get(" ".join(n.split()).lower(), -1), orgs) for n, orgs in entries]


def _entry(part: str) -> tuple[str, list[str]]:
    """("Smith, Jane A", ["Example University", "Example Hospital"]) of "Smith, Jane A (Example University;
    Example Hospital)"; the organisations are the last top-level parenthesis."""
    part = part.strip()
    if not part.endswith(")"):
        return part, []
    depth = 0
    for i in range(len(part) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(part[i], 0)
        if depth == 0:
            return part[:i].strip(), [o.strip() for o in _top_level(part[i + 1:-1]) if o.strip()]
    return part, []


def _top_level(text: str) -> list[str]:
    """`text` split at the ";" outside parentheses."""
    return [p for p in split_outside(text, ";", "()") if p.strip()]
