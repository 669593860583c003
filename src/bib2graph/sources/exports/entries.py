"""One record of one file as merging sees it: its table rows, its identity keys and its rank.

OpenAlex Work objects and export records (Web of Science, Scopus, …) become the same `Entry`, so that
merging, reference resolution and provenance are written once. References stay raw here; they are
parsed and resolved once every work of the universe is known (ingest.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from ...ids import normalize_issn, normalize_pmid
from .names import author_key, display_name, fold, full_form, term_key, title_key
from .record import Record
from .work_ids import derived_id, id_scheme

# Which source wins a merged work's ID and fields: OpenAlex first (its IDs are what chaining and the API
# speak), then the curated citation indexes, then reference-manager files.
RANK = {"openalex-json": 0, "openalex-csv": 0, "wos": 1, "wos-tab": 1, "scopus-csv": 2, "scopus-ris": 2,
        "pubmed": 2, "pubmed-xml": 2, "embase-ris": 2, "dimensions-csv": 3, "cochrane": 3, "lens-csv": 3,
        "ris": 4, "bibtex": 4, "csl-json": 4}
# A record's own ID, by the scheme that names it best.
ID_SCHEMES = ("openalex", "bib2graph", "wos", "scopus", "dimensions", "embase", "cochrane", "lens")
WORK_FIELDS = ("doi", "pmid", "title", "year", "publication_date", "type", "language", "venue_id", "venue",
               "issn", "cited_by_count", "is_retracted", "abstract", "updated_date")
MIN_TITLE_KEY = 12   # shorter titles ("Introduction", "Editorial") say too little to merge works by


@dataclass
class Entry:
    file: str
    format: str
    record: int
    line: int
    order: int                      # read order over all files: the tie-break after rank
    native_id: str
    work: dict[str, Any]            # WORK_FIELDS
    authors: list[dict[str, Any]] = field(default_factory=list)        # authorship rows without work_id
    affiliations: list[dict[str, Any]] = field(default_factory=list)   # affiliation rows without work_id
    terms: list[tuple] = field(default_factory=list)   # TERMS rows without work_id: (field, term_id, term, score)
    referenced_ids: list[str] = field(default_factory=list)            # OpenAlex: resolved already
    raw_references: list[tuple[str, int | None]] = field(default_factory=list)   # exports: (raw, line)
    parsed_references: bool = False   # referenced_ids hold the identities of raw_references (ingest.py)
    cites: bool = False               # its references went to a ReferenceTable, which holds them (ingest.py)
    venue_abbrev: str | None = None
    volume: str | None = None
    first_page: str | None = None

    @property
    def scheme(self) -> str | None:
        """The database that issued the native ID (None for an ID derived from the record's content)."""
        found = id_scheme(self.native_id)
        if found is None:
            return self.format
        return None if found[0] == "bib2graph" else found[0]

    @property
    def doi(self) -> str | None:
        return self.work.get("doi")

    @property
    def rank(self) -> int:
        return RANK.get(self.format, 5)

    def merge_keys(self) -> list[str]:
        """The keys under which two entries are one work: the same native ID, DOI, PMID, or title, year
        and first author."""
        keys = [f"id:{self.native_id}"]
        if self.work.get("doi"):
            keys.append(f"doi:{self.work['doi']}")
        if self.work.get("pmid"):
            keys.append(f"pmid:{self.work['pmid']}")
        title, year = title_key(self.work.get("title")), self.work.get("year")
        first = author_key(self.authors[0]["author_name"]) if self.authors else None
        if len(title) >= MIN_TITLE_KEY and year is not None and first:
            keys.append(f"title:{title}|{year}|{first}")
        return keys

    def first_author(self) -> str | None:
        return self.authors[0]["author_name"] if self.authors else None


def native_id(record: Record) -> str:
    """The record's own ID by `ID_SCHEMES`, else one derived from what identifies the work (DOI, else
    PMID, else title, year and first author, else the file and record number), stable across runs."""
    for scheme in ID_SCHEMES:
        if record.ids.get(scheme):
            return record.ids[scheme]
    first = author_key(full_form(record.authors[0].name, record.authors[0].full_name)) if record.authors else ""
    pmid = normalize_pmid(record.ids.get("pmid"))
    basis = (f"doi:{record.doi}" if record.doi else
             f"pmid:{pmid}" if pmid else
             f"title:{title_key(record.title)}|{record.year}|{first}" if record.title else
             f"record:{record.origin.file}|{record.origin.record}")
    return derived_id("REC", basis)


def _term_rows(field_name: str, terms: list[str]) -> list[tuple]:
    """Keyword rows, folded to lower case and interned (a keyword recurs across thousands of records);
    our own bibliographies' cluster tags (``b2g:cluster-3``) read back from a file are not keywords."""
    rows, seen = [], set()
    for term in terms:
        if term.startswith("b2g:"):
            continue
        term_id = sys.intern(term_key(term))
        if term_id and term_id not in seen:
            seen.add(term_id)
            rows.append((field_name, term_id, sys.intern(" ".join(term.split())), None))
    return rows


def _institution_id(name: str) -> str:
    return "inst:" + fold(name).replace(" ", "-")


def _author_id(author) -> str | None:
    scopus = dict(author.ids).get("scopus")
    if scopus:
        return f"scopus:{scopus}"
    key = author_key(full_form(author.name, author.full_name))
    return f"name:{key.replace(' ', '-')}" if key else None


def entry_from_record(record: Record, order: int) -> Entry:
    """The rows one export record gives: authors as "Surname, Given", authors' IDs from Scopus author
    IDs where given (else their folded name), institutions by folded name, keywords as terms."""
    o = record.origin
    work = {"doi": record.doi, "pmid": normalize_pmid(record.ids.get("pmid")), "title": record.title, "year": record.year,
            "publication_date": record.publication_date, "type": record.type, "language": record.language,
            "venue_id": None, "venue": record.venue or record.venue_abbrev,
            "issn": normalize_issn(record.issn), "cited_by_count": record.cited_by_count,
            "is_retracted": record.is_retracted, "abstract": record.abstract, "updated_date": None}
    authors, affiliations = [], []
    for position, author in enumerate(record.authors):
        authors.append({"position": position, "author_id": _author_id(author),
                        "author_name": display_name(full_form(author.name, author.full_name)),
                        "author_position": "first" if position == 0 else
                        "last" if position == len(record.authors) - 1 else "middle"})
        seen = set()
        for index in author.affiliations:
            if 0 <= index < len(record.institutions):
                inst = record.institutions[index]
                inst_id = _institution_id(inst.name)
                if inst_id != "inst:" and inst_id not in seen:
                    seen.add(inst_id)
                    affiliations.append({"position": position, "institution_id": inst_id,
                                         "institution_name": inst.name, "country_code": inst.country})
    referenced = [r.raw for r in record.references if o.format == "openalex-csv"]
    return Entry(file=o.file, format=o.format, record=o.record, line=o.line, order=order,
                 native_id=native_id(record), work=work, authors=authors, affiliations=affiliations,
                 terms=_term_rows("author_keywords", record.author_keywords)
                 + _term_rows("index_keywords", record.index_keywords) + _term_rows("mesh", record.mesh),
                 referenced_ids=referenced,
                 raw_references=[] if referenced else [(r.raw, r.line) for r in record.references],
                 venue_abbrev=record.venue_abbrev, volume=record.volume, first_page=record.first_page)
