"""`ParsedRef`, a cited reference's fields as an export writes them: the one type every reference
parser returns (references.py for WoS, Scopus and generic text; pubmed_refs.py; dimensions_refs.py).

A module of its own so that references.py can dispatch to the PubMed and Dimensions parsers and they
can build its type without importing references.py back.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ParsedRef:
    """A cited reference's fields as written (DOI bare and lower-case, year an int)."""

    raw: str
    first_author: str | None = None
    year: int | None = None
    source: str | None = None
    volume: str | None = None
    page: str | None = None
    doi: str | None = None
    title: str | None = None
    pmid: str | None = None     # digits (ids.normalize_pmid), where the export gives one (PubMed XML, Dimensions)
    native: str | None = None   # "<scheme>:<ID>", a database's own ID of the cited work, where that is all the
    #                             export gives ("lens:…": Lens writes its references as Lens IDs)
