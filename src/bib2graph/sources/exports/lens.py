"""Lens.org scholarly CSV exports as Records.

Columns by name ("Lens ID", "Title", "Date Published", "Publication Year", "Publication Type", "Source
Title", "Author/s", "Volume", "Issue Number", "Start Page", "End Page", "Fields of Study", "Keywords",
"MeSH Terms", "PMID", "DOI", "Microsoft Academic ID", "PMCID", "References", "Citing Works Count", …;
later exports call some of them "Year Published", "Scholarly Citation Count"). Multi-valued cells are
"; "-separated; a missing given name is the word "null" ("null Tobler"), left out. Lens gives no
affiliations; its "References" are the Lens IDs of the cited works, kept as the raw references
("000-928-794-577-264"). "Keywords" are the authors' keywords; "Fields of
Study" and "MeSH Terms", assigned by indexers, are the index keywords.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ...ids import normalize_doi, normalize_issn
from ...skips import Skips
from .csvfile import Header, Row, integer, read_records, split
from .record import Author, CitedRef, Origin, Record
from .vocab import work_type

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _name(author: str) -> str | None:
    """An author as Lens writes one, without the word `null` it puts for a missing given or family name
    ("null Tobler" is Tobler; "null null", no one); otherwise "null" became a given name and its initial N."""
    words = [w for w in author.split() if w != "null"]
    return " ".join(words) or None


def read_lens_csv(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a Lens.org scholarly CSV export, one row at a time."""
    return read_records(path, name, skips, "Lens.org", ("Lens ID",), _converter(name))


def _converter(name: str):
    def convert(h: Header, row: Row) -> Record | str:
        get = lambda *names: h.get(row.cells, *names)  # noqa: E731
        lens_id = get("Lens ID")
        if not lens_id:
            return "a row without a Lens ID"
        origin = Origin(name, row.number, row.line, "lens-csv")
        date = get("Date Published", "Publication Date")
        pmid, mag = get("PMID"), split(get("Microsoft Academic ID"), ";")
        ids = {"lens": lens_id, "pmid": pmid if pmid and pmid.isdigit() else None, "pmcid": get("PMCID"),
               "mag": mag[0] if mag else None}
        return Record(
            origin=origin,
            ids={k: v for k, v in ids.items() if v},
            doi=normalize_doi(get("DOI")),
            title=get("Title"),
            year=integer(get("Publication Year", "Year Published")),
            publication_date=date if date and _DATE.match(date) else None,
            type=work_type(get("Publication Type")),
            venue=get("Source Title"),
            issn=normalize_issn(get("ISSNs", "ISSN")),
            volume=get("Volume"),
            issue=get("Issue Number", "Issue"),
            first_page=get("Start Page"),
            last_page=get("End Page"),
            cited_by_count=integer(get("Citing Works Count", "Scholarly Citation Count")),
            abstract=get("Abstract"),
            authors=[Author(name=n) for a in split(get("Author/s", "Authors"), ";") if (n := _name(a))],
            author_keywords=split(get("Keywords"), ";"),
            index_keywords=split(get("Fields of Study"), ";") + split(get("MeSH Terms"), ";"),
            references=[CitedRef(r, row.line) for r in split(get("References"), ";")],
        )
    return convert
