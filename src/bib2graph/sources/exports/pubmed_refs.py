"""The cited references of PubMed XML (PubmedData/ReferenceList) parsed into `ParsedRef`s.

PubMed writes each Citation as the citing journal gave it, most often in NLM/Vancouver style —
"Gems D, Partridge L. Genetics of longevity. Annu. Rev. Physiol. 2013;75:621–644. doi: 10.1146/x." —
or, for older records, the cited work's own PubMed citation without authors or title ("Radiology. 2015
Jan;274(1):250-9"); some journals' references come in their own styles ("Rabinowitz JD, White E (2010)
Autophagy and metabolism. Science 330: 1344–1348."; APA "Altwegg, R., & Erni, B. (2008). Title.
Biological Letters, 4, 581–584."). `pubmed_xml` appends the IDs of the reference's ArticleIdList as
"doi: …" and "PMID: …", which are taken first; the rest is read by the year: in Vancouver style the
part before "YEAR[ Mon[ Day]];" is authors. title. source., the part after volume(issue):pages; when
the year follows the authors, title, source and numbers follow it.
"""

from __future__ import annotations

import re

from ...ids import normalize_doi, normalize_pmid
from .parsed_ref import ParsedRef

_PMID = re.compile(r"(?i)[.,;]?\s*\bPMID:?\s*(\d{1,9})\b\.?")
_PMCID = re.compile(r"(?i)[.,;]?\s*\bPMCID:?\s*PMC\d+\b\.?")
_DOI = re.compile(r"(?i)[.,;]?\s*(?:(?:\bdoi:?\s*|https?://(?:dx\.)?doi\.org/)(10\.\d+/\S+)|\b(10\.\d{4,9}/\S+))")
_YEAR = r"(?:1[5-9]\d\d|20\d\d)"
# Vancouver: ". 2013;75:621-44", ". 2015 Jan;274(1):250-9", ". 2008 Spring;12 Suppl 1:S5", ". 2019;"
_VANCOUVER = re.compile(rf"(?:^|(?<=[.?!])\s+|\s+)(?P<year>{_YEAR})[a-z]?(?:\s+[A-Za-z][\w\s\-/]{{0,20}}?)?\s*;\s*"
                        r"(?P<volume>[A-Za-z]?\d[\w.]*)?(?:\s+Suppl\s*\w*)?\s*(?:\((?P<issue>[^)]*)\))?\s*"
                        r"(?::\s*(?P<page>[A-Za-z]{0,3}\d[\w]*))?")
_YEAR_PAREN = re.compile(rf"\((?P<year>{_YEAR})[a-z]?\)")
_YEAR_BARE = re.compile(rf"(?<![\d/.])(?P<year>{_YEAR})(?![\d/])")
# after the title: "Science 330: 1344-1348", "Biological Letters, 4, 581-584", "Nature 370(6486):199"
_NUMBERS_AFTER = re.compile(r"(?P<source>[^.]*?[^\d\s.,][^.]*?)[\s,]+(?P<volume>[A-Za-z]?\d[\w]*)\s*"
                            r"(?:\((?P<issue>[^)]*)\))?\s*[:,]\s*(?:pp?\.\s*)?(?P<page>[A-Za-z]{0,3}\d\w*)")
_NLM_AUTHOR = re.compile(r"^[^\W\d_][\w'’\-]*(?:\s+[^\W\d_][\w'’\-]*){0,3}\s+[A-Z]{1,4}$")
_APA_AUTHOR = re.compile(r"^(?P<surname>[^\W\d_][\w'’\-]*(?:\s+[^\W\d_][\w'’\-]*){0,3}),\s*"
                         r"(?P<initials>(?:[A-Z]\.?\s?-?){1,4})$")
_ET_AL = re.compile(r"(?i),?\s*\bet\s+al\b")
_SENTENCE = re.compile(r"(?<=[^\s.])\.\s+(?=\S)")


def parse_pubmed_reference(raw: str, text: str) -> ParsedRef:
    """`text` (the reference with white space collapsed) parsed; `raw` kept as given."""
    pmid = doi = None
    if found := list(_PMID.finditer(text)):
        pmid = normalize_pmid(found[-1].group(1))
        text = _PMID.sub("", text)
    text = _PMCID.sub("", text)
    if found := _DOI.search(text):
        doi = normalize_doi((found.group(1) or found.group(2)).rstrip(".,;)]"))
        text = (text[:found.start()] + text[found.end():])
    text = _ET_AL.sub("", text).strip(" .,;")
    fields = _vancouver(text) or _author_year_first(text) or _free(text)
    return ParsedRef(raw=raw, doi=doi, pmid=pmid, **fields)


def _vancouver(text: str) -> dict | None:
    """Authors. Title. Source. YEAR[ Mon];VOLUME(ISSUE):PAGE — the source the short parts before the year."""
    match = None
    for candidate in _VANCOUVER.finditer(text):
        match = candidate
    if match is None:
        return None
    parts = _sentences(text[:match.start()])
    # a lone part is the source ("Eur Respir J. 2016;48:370", not the author "Eur Respir J")
    author, parts = _leading_author(parts) if len(parts) > 1 else (None, parts)
    source, title = _split_source(parts)
    return {"first_author": author, "year": int(match.group("year")), "title": title, "source": source,
            "volume": match.group("volume"), "page": match.group("page")}


def _author_year_first(text: str) -> dict | None:
    """Authors (YEAR) Title. Source VOLUME: PAGE (PLOS), and APA's "Authors (YEAR). Title. Source, V, P"."""
    match = _YEAR_PAREN.search(text)
    if match is None:
        return None
    authors = text[:match.start()].strip(" .,")
    rest = text[match.end():].strip(" .,")
    if not rest:   # "Smith J. Title. Nature (2021)": the year closes a Vancouver-like reference
        first, parts = _leading_author(_sentences(authors))
        source, title = _split_source(parts)
        return {"first_author": first, "year": int(match.group("year")), "title": title, "source": source,
                "volume": None, "page": None}
    first = _first_author(authors) if authors else None
    numbers = None
    for candidate in _NUMBERS_AFTER.finditer(rest):
        numbers = candidate
    if numbers is None:
        parts = _sentences(rest)
        source = parts[-1] if len(parts) > 1 else None
        title = ". ".join(parts[:-1]) if len(parts) > 1 else (parts[0] if parts else None)
        if not authors and len(parts) > 1:
            return None
        return {"first_author": first, "year": int(match.group("year")), "title": title, "source": source,
                "volume": None, "page": None}
    body = rest[:numbers.start("volume")].rstrip(" ,")
    parts = _sentences(body)
    source, title = (parts[-1], ". ".join(parts[:-1]) or None) if parts else (None, None)
    return {"first_author": first, "year": int(match.group("year")), "title": title,
            "source": source.strip(" ,") if source else None, "volume": numbers.group("volume"),
            "page": numbers.group("page")}


def _free(text: str) -> dict:
    """Whatever a reference without a recognised layout gives: its first author and a year."""
    parts = _sentences(text)
    author, rest = _leading_author(parts)
    year = None
    for found in _YEAR_BARE.finditer(text):
        year = int(found.group("year"))
    return {"first_author": author, "year": year, "title": rest[0] if rest else None, "source": None,
            "volume": None, "page": None}


def _sentences(text: str) -> list[str]:
    """The ". "-separated parts of a text; a part that is a lone initial ("J. Smith") joins the next."""
    return [p.strip(" .,;") for p in _SENTENCE.split(text) if p.strip(" .,;")]


def _leading_author(parts: list[str]) -> tuple[str | None, list[str]]:
    """The first author of the first part when it is a list of NLM names ("Smith J, Jones K"), and
    the remaining parts."""
    if parts:
        first = _first_author(parts[0])
        if first is not None:
            return first, parts[1:]
    return None, parts


def _first_author(authors: str) -> str | None:
    """"Smith J" of "Smith J, Jones K" (NLM) or of "Smith, J., Jones, K." (APA); None when the text
    names no one that way."""
    head = authors.split(",")[0].strip()
    if _NLM_AUTHOR.match(head):
        return head
    pieces = [p.strip() for p in authors.replace("&", ",").split(",")]
    if len(pieces) > 1 and (m := _APA_AUTHOR.match(f"{pieces[0]}, {pieces[1]}".strip())):
        return f"{m.group('surname')} {re.sub(r'[^A-Z]', '', m.group('initials'))}"
    return None


def _split_source(parts: list[str]) -> tuple[str | None, str | None]:
    """(source, title) of the parts before a Vancouver year: the source is the last part and the
    single-word parts before it ("Annu. Rev. Physiol." is three parts), the title what precedes."""
    if not parts:
        return None, None
    cut = len(parts) - 1
    while cut > 0 and " " not in parts[cut - 1] and len(parts[cut - 1]) <= 12 and parts[cut - 1][:1].isupper():
        cut -= 1
    return ". ".join(parts[cut:]), ". ".join(parts[:cut]) or None
