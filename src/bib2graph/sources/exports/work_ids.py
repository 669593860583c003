"""The scheme of a work ID as bib2graph writes it into its bibliographies (BibTeX `bib2graph-id`, RIS
`ID`/`AN`, CSL-JSON `id`), so that reading a bibliography back gives each work the ID it had.

A corpus built from export files holds OpenAlex IDs (``W…``), Web of Science UTs (``WOS:…``), Scopus
EIDs (``2-s2.0-…``), Lens IDs (``123-456-789-012-345``), Dimensions IDs (``pub.1234``), Cochrane
CENTRAL IDs (``CN-01234567``), Embase accession numbers (``L2040010236``) and bib2graph's own derived
IDs (``REC:…``, ``REF:…``); each goes back to the `Record.ids` scheme its reader gives it first.
"""

from __future__ import annotations

import hashlib
import re

from ...ids import short_id

_SCHEMES = (
    ("openalex", re.compile(r"^W\d+$")),
    ("wos", re.compile(r"^WOS:\S+$")),
    ("scopus", re.compile(r"^2-s2\.0-\d+$")),
    ("lens", re.compile(r"^\d{3}-\d{3}-\d{3}-\d{3}-\d{2}[\dX]$")),
    ("dimensions", re.compile(r"^pub\.\d+$")),
    ("embase", re.compile(r"^L\d{8,12}$")),
    ("cochrane", re.compile(r"^CN-\d+$")),
    ("bib2graph", re.compile(r"^(?:REC|REF):\S+$")),
)


def derived_id(prefix: str, basis: str) -> str:
    """bib2graph's own ID for a work no database named: `prefix` (``REC``: a record, ``REF``: a cited
    reference) and the first 12 hex digits of the SHA-1 of what identifies it, stable across runs."""
    return f"{prefix}:" + hashlib.sha1(basis.encode("utf-8")).hexdigest()[:12].upper()


def id_scheme(value: str | None) -> tuple[str, str] | None:
    """(scheme, ID) of a work ID of a known shape (an OpenAlex URL is shortened), else None."""
    if not value or not value.strip():
        return None
    value = value.strip()
    short = short_id(value) if value.lower().startswith(("https://openalex.org/", "http://openalex.org/")) else value
    for scheme, shape in _SCHEMES:
        if shape.match(short):
            return scheme, short
    return None


def own_ids(value: str | None, fallback: str | None = None) -> dict[str, str]:
    """The ids a bibliography's work ID gives a Record: its scheme's, else `fallback`'s (when given)."""
    found = id_scheme(value)
    if found:
        return {found[0]: found[1]}
    return {fallback: value.strip()} if fallback and value and value.strip() else {}
