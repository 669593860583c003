"""The CSV the OpenAlex web interface exports, as Records.

Its columns are the Work object's dotted paths ("id", "display_name", "publication_year",
"primary_location.source.display_name", "authorships.author.display_name", "authorships.countries",
"referenced_works", …); multi-valued cells join values with "|", one per author for the authorship
columns (an author without an institution leaves an empty value). The newer export names some columns
for people ("Work ID", "Title", "Year", "Source", "Author", "Author IDs", "Institution"): both are read.
"authorships.institutions.display_name" has one value per author only when every author has exactly
one institution; then each author is linked to it (with that author's country), otherwise the
institutions are kept unlinked. Cited works are kept as raw OpenAlex IDs ("W2041556541").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...ids import normalize_doi, normalize_issn, short_id
from ...skips import Skips
from .csvfile import Header, Row, integer, read_records
from .languages import language_code
from .record import Author, CitedRef, Institution, Origin, Record
from .vocab import work_type

_WORK = re.compile(r"^W\d+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def read_openalex_csv(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of an OpenAlex CSV export, one row at a time."""
    return read_records(path, name, skips, "OpenAlex", ("id", "Work ID"), _converter(name))


def _values(cell: str | None) -> list[str]:
    """The "|"-joined values of a cell, empty ones kept so that positions stay aligned."""
    return [v.strip() for v in cell.split("|")] if cell else []


def _converter(name: str):
    def convert(h: Header, row: Row) -> Record | str:
        get = lambda *names: h.get(row.cells, *names)  # noqa: E731
        work = short_id(get("id", "Work ID"))
        if not work or not _WORK.match(work):
            return "a row without an OpenAlex work ID (W…)"
        date = get("publication_date", "Publication Date")
        pmid = (get("ids.pmid", "PMID") or "").rstrip("/").rsplit("/", 1)[-1]
        record = Record(
            origin=Origin(name, row.number, row.line, "openalex-csv"),
            ids={k: v for k, v in (("openalex", work), ("pmid", pmid if pmid.isdigit() else None)) if v},
            doi=normalize_doi(get("doi", "DOI")),
            title=get("display_name", "title", "Title"),
            year=integer(get("publication_year", "Year")),
            publication_date=date if date and _DATE.match(date) else None,
            type=work_type(get("type", "Type")),
            language=language_code(get("language", "Language")),
            venue=get("primary_location.source.display_name", "host_venue.display_name", "Source"),
            issn=normalize_issn(get("primary_location.source.issn_l", "host_venue.issn_l", "ISSN-L",
                                     "primary_location.source.issn", "host_venue.issn", "ISSN")),
            volume=get("biblio.volume", "Volume"),
            issue=get("biblio.issue", "Issue"),
            first_page=get("biblio.first_page", "First Page"),
            last_page=get("biblio.last_page", "Last Page"),
            cited_by_count=integer(get("cited_by_count", "Cited By Count", "Citations")),
            abstract=get("abstract", "Abstract"),
            is_retracted=(get("is_retracted", "Is Retracted") or "").lower() == "true",
            author_keywords=[k for k in _values(get("keywords.display_name", "Keywords")) if k],
            index_keywords=[k for k in _values(get("concepts.display_name", "mesh.descriptor_name")) if k],
            references=[CitedRef(w, row.line) for w in _works(get("referenced_works", "Referenced Works"))],
        )
        record.authors, record.institutions = _authorships(h, row.cells)
        return record
    return convert


def _works(cell: str | None) -> list[str]:
    found = (short_id(v) for v in re.split(r"[|;,\s]+", cell or ""))
    return [w for w in found if w and _WORK.match(w)]


def _authorships(h: Header, cells: list[str]) -> tuple[list[Author], list[Institution]]:
    get = lambda *names: h.get(cells, *names)  # noqa: E731
    names = _values(get("authorships.author.display_name", "Author", "Authors"))
    ids = _values(get("authorships.author.id", "Author IDs"))
    orcids = _values(get("authorships.author.orcid", "ORCID"))
    countries = _values(get("authorships.countries", "Countries"))
    places = _values(get("authorships.institutions.display_name", "Institution", "Institutions"))
    aligned = len(places) == len(names)
    institutions: list[Institution] = []
    where: dict[tuple[str, str | None], int] = {}
    authors = []
    for i, name in enumerate(names):
        if not name:
            continue
        scheme_ids = [("openalex", short_id(ids[i]) or "")] if i < len(ids) and ids[i] else []
        if i < len(orcids) and orcids[i]:
            scheme_ids.append(("orcid", orcids[i].rstrip("/").rsplit("/", 1)[-1]))
        links: tuple[int, ...] = ()
        if aligned and places[i]:
            country = countries[i].upper() if i < len(countries) and len(countries[i]) == 2 else None
            key = (places[i], country)
            if key not in where:
                where[key] = len(institutions)
                institutions.append(Institution(name=places[i], country=country))
            links = (where[key],)
        authors.append(Author(name=name, ids=tuple(scheme_ids), affiliations=links))
    if not aligned:
        institutions = [Institution(name=p) for p in dict.fromkeys(p for p in places if p)]
    return authors, institutions
