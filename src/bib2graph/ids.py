"""Identifier forms: short OpenAlex IDs and bare DOIs. Kept free of heavy imports, since every
CLI call that takes an ID uses them."""

from __future__ import annotations

import re
from urllib.parse import unquote

_OPENALEX_PREFIXES = ("https://openalex.org/", "http://openalex.org/", "openalex.org/", "https://api.openalex.org/",
                      "http://api.openalex.org/", "api.openalex.org/")
#: an entity's URL with its type's path (``https://api.openalex.org/works/W12``, ``openalex.org/works/W12``)
_TYPED = re.compile(r"(?:works|authors|sources|institutions|concepts|topics|publishers|funders)/([wacitspf]\d+)",
                    re.IGNORECASE)
#: a DOI resolver's URL, with or without its scheme (``https://www.doi.org/``, ``dx.doi.org/``, ``doi.org/``)
_DOI_URL = re.compile(r"^(?:https?://)?(?:dx\.|www\.)?doi\.org/", re.IGNORECASE)
#: the label a DOI is written after (``doi:10.1/x``, ``DOI: 10.1/x``, ``DOI 10.1/x``)
_DOI_LABEL = re.compile(r"^doi\s*:?\s*(?=10\.)", re.IGNORECASE)


def short_id(value: str | None) -> str | None:
    """``https://openalex.org/W12`` → ``W12``; keyword IDs keep their path (``keywords/x``)."""
    if not value:
        return None
    value = str(value).strip()
    if value.startswith(_OPENALEX_PREFIXES[0]):   # the API's own form: most of a snapshot's millions
        value = value[len(_OPENALEX_PREFIXES[0]):]
    else:
        lowered = value.lower()
        for prefix in _OPENALEX_PREFIXES:
            if lowered.startswith(prefix):
                value = value[len(prefix):]
                break
    if "/" in value and (typed := _TYPED.fullmatch(value)):
        value = typed.group(1)
    if value[:1].lower() in "wacitsp" and value[1:].isdigit():
        value = value[0].upper() + value[1:]
    return value or None


def openalex_work_id(value: str | None) -> str | None:
    """The short OpenAlex work ID `value` names (``W12``, ``https://openalex.org/w12``), or None: an author's
    ``A12`` or free text is no work. (`curation.work_id_of` also takes the IDs of export files' works.)"""
    value = short_id(value)
    return value if value and _WORK.fullmatch(value) else None


_WORK = re.compile(r"W\d+")


def normalize_doi(value: str | None) -> str | None:
    """A bare, lower-case DOI (``10.1/abc``), or None when `value` holds none. A resolver's URL is read as a
    URL, its percent-escapes decoded (``https://doi.org/10.1037%2Fa0018``); a bare DOI is decoded only when
    its one slash is escaped (``10.1037%2Fa0018``): a DOI may hold ``%`` itself."""
    if not value:
        return None
    value = str(value).strip()
    url = _DOI_URL.match(value)
    if url:
        value = unquote(value[url.end():])
    else:
        value = _DOI_LABEL.sub("", value, count=1)
        if "/" not in value and "%2f" in value.lower():
            value = unquote(value)
    value = _TRAILING_TAGS.sub("", value).strip().lower().translate(_DASHES)
    return value if value.startswith("10.") else None


#: dashes a DOI copied from a PDF or a word processor holds for its hyphen-minus (U+2010 hyphen, U+2011
#: non-breaking hyphen, U+2012 figure dash, U+2013 en dash, U+2014 em dash, U+2212 minus); registered DOIs
#: spell it as U+002D
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})


#: HTML tags after a DOI, as reference managers copy them from web pages ("10.1186/2047-2382-3-19<br />")
_TRAILING_TAGS = re.compile(r"(?:\s*<\s*/?\s*[a-z][a-z0-9]*\s*/?\s*>)+\s*$", re.IGNORECASE)


_PMID_PREFIXES = ("https://pubmed.ncbi.nlm.nih.gov/", "http://pubmed.ncbi.nlm.nih.gov/",
                  "https://www.ncbi.nlm.nih.gov/pubmed/", "http://www.ncbi.nlm.nih.gov/pubmed/", "pmid:", "pmid")


def normalize_pmid(value: str | int | None) -> str | None:
    """A PubMed ID as its digits without leading zeros (``"PMID: 012345"``, a pubmed.ncbi URL → ``"12345"``),
    or None when `value` holds none."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip().rstrip("/")
    lowered = text.lower()
    for prefix in _PMID_PREFIXES:
        if lowered.startswith(prefix):
            text = text[len(prefix):].strip(" :")
            break
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        return None
    text = text.lstrip("0")
    return text or None


_ISSN = re.compile(r"(?<![\w-])(\d{4})[-\u2010-\u2013 ]?(\d{3}[\dXx])(?![\w-])")


def issns(text: str | None) -> list[str]:
    """The ISSNs a text writes, as ``NNNN-NNNC`` (upper-case check character) in the text's order, each
    once ("0148-2963", "01482963", "ISSN 1234-5678 (Print); 8765-432X"); an ISBN's digits are not taken
    for one, and the check digit is not verified (exports carry mistyped ones that still name the
    journal)."""
    return list(dict.fromkeys(f"{a}-{b.upper()}" for a, b in _ISSN.findall(str(text or ""))))


def normalize_issn(value: str | None) -> str | None:
    """The first ISSN `value` writes (`issns`), or None when it holds none."""
    return next(iter(issns(value)), None)
