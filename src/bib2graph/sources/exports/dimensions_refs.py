"""Dimensions' cited references (the "Cited references" cell of an "Export for bibliometric mapping"),
cut into references and parsed.

Dimensions writes each reference as ten "|"-separated fields and joins references with ";":

    [Smith, Jane A.; Doe, John]|[ur.0100000001.01; ]|Journal of Made-up Examples|2017|13|2|389-393|
    10.1000/example.2017.04.006|pub.1000000001|12

authors ("Surname, Given" in square brackets, "[]" when none), their Dimensions researcher IDs (in
brackets), source title, year, volume, issue, pagination, DOI, the cited work's Dimensions ID and its
citation count. There is no title. Since the author lists hold "; " too, references are cut at a ";"
followed by "[". The DOI is what resolves a reference; without one, first author, year, source, volume
and page make its key (references.py).
"""

from __future__ import annotations

import re

from ...ids import normalize_doi
from .parsed_ref import ParsedRef

FIELDS = 10            # authors, author IDs, source, year, volume, issue, pages, DOI, publication ID, times cited
_TAIL = FIELDS - 3     # the fields after the source
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)$")
_SPLIT = re.compile(r";(?=\[)")


def split_references(cell: str | None) -> list[str]:
    """The references of a "Cited references" cell, as written (cut at each ";" before a "[")."""
    return [part.strip() for part in _SPLIT.split(cell or "") if part.strip()]


def is_complete(reference: str) -> bool:
    """Whether a reference's DOI field is closed (nine fields or more): the last reference of a cell that
    a spreadsheet cut at its 32,767-character limit stops short of it, or inside its DOI ("10.11")."""
    return reference.count("|") >= FIELDS - 2


def parse_dimensions_reference(raw: str, text: str) -> ParsedRef:
    """`text` (the reference with its spaces collapsed) as a ParsedRef: first author as "Surname IN",
    year, source, volume, first page and DOI; the fields a cut reference lacks are None."""
    parts = [p.strip() for p in text.split("|")]
    if len(parts) >= FIELDS:      # a "|" inside the source title: the fields after it are counted from the end
        parts = parts[:2] + ["|".join(parts[2:len(parts) - _TAIL])] + parts[len(parts) - _TAIL:]
    parts += [""] * (FIELDS - len(parts))
    authors, _ids, source, year, volume, _issue, pages, doi = parts[:8]
    return ParsedRef(
        raw=raw,
        first_author=first_author(authors),
        year=int(year) if _YEAR.match(year) else None,
        source=source or None,
        volume=volume or None,
        page=re.split(r"\s*[-\u2013]\s*", pages, maxsplit=1)[0] or None,
        doi=normalize_doi(doi),
    )


def first_author(authors: str) -> str | None:
    """ "[Smith, Jane A.; Doe, John]" → "Smith JA": the first surname and its initials."""
    names = authors.strip().lstrip("[").rstrip("]").split(";")
    surname, _, given = names[0].partition(",")
    surname = " ".join(surname.split())
    if not surname:
        return None
    initials = "".join(word[0] for word in re.split(r"[\s.\-]+", given) if word and word[0].isalpha())
    return f"{surname} {initials}" if initials else surname
