"""One bibliographic record as an export file gives it, before it becomes rows of the bundle tables.

Every reader (Web of Science, Scopus, PubMed, Cochrane, Dimensions, Lens, RIS, BibTeX, OpenAlex CSV) yields these, so merging,
reference matching and table building are written once. Fields hold what the file says, cleaned of
layout only (continuation lines joined, surrounding space stripped); nothing is looked up.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Origin:
    """Where a record was read: how skips, merge logs and provenance name it."""

    file: str            # as the spec names the file
    record: int          # 1-based record number within the file
    line: int            # 1-based line where the record starts (CSV: the physical line of its row)
    format: str          # readers.READERS' formats, and "scopus-ris" / "embase-ris" for RIS of those producers

    def where(self) -> str:
        return f"record {self.record}, line {self.line}"


@dataclass(frozen=True)
class Author:
    """An author in byline order. `name` is the short form the file gives (WoS AU "Owen-Smith, J",
    Scopus "Gong B."), `full_name` the long one when given (WoS AF, Scopus "Author full names")."""

    name: str
    full_name: str | None = None
    ids: tuple[tuple[str, str], ...] = ()     # (scheme, id): ("scopus", "57321683800"), ("orcid", "0000-…")
    affiliations: tuple[int, ...] = ()         # indexes into Record.institutions


@dataclass(frozen=True)
class Institution:
    name: str                 # the organisation as written (WoS C1: the first comma part, e.g. "Univ Michigan")
    address: str | None = None   # the whole affiliation string
    country: str | None = None   # ISO 3166-1 alpha-2 when the country is recognised


@dataclass(frozen=True)
class CitedRef:
    """A reference as the file writes it, with the line it is on (None when the format has no lines,
    as in a CSV cell)."""

    raw: str
    line: int | None = None


@dataclass
class Record:
    origin: Origin
    ids: dict[str, str] = field(default_factory=dict)   # "wos": "WOS:000…", "scopus": "2-s2.0-…", "lens", "openalex": "W…",
    #                                                     "dimensions": "pub.…", "cochrane": "CN-…", "embase", "pmid" (digits), "pmcid"
    doi: str | None = None            # bare lower-case (ids.normalize_doi)
    title: str | None = None
    year: int | None = None
    publication_date: str | None = None   # ISO YYYY-MM-DD when the file gives a full date
    type: str | None = None           # OpenAlex work type vocabulary: article, review, book-chapter, book, …
    language: str | None = None       # ISO 639-1 when recognised ("en"), else None
    venue: str | None = None          # full source title
    venue_abbrev: str | None = None   # WoS J9 / Scopus "Abbreviated Source Title"
    issn: str | None = None           # the source's ISSN, NNNN-NNNC (ids.normalize_issn); print before electronic
    volume: str | None = None
    issue: str | None = None
    first_page: str | None = None
    last_page: str | None = None
    cited_by_count: int | None = None
    abstract: str | None = None
    is_retracted: bool = False
    authors: list[Author] = field(default_factory=list)
    institutions: list[Institution] = field(default_factory=list)
    author_keywords: list[str] = field(default_factory=list)
    index_keywords: list[str] = field(default_factory=list)   # WoS Keywords Plus (ID), Scopus Index Keywords
    mesh: list[str] = field(default_factory=list)   # MeSH descriptor names, qualifiers and major-topic marks dropped
    references: list[CitedRef] = field(default_factory=list)
