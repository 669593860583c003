"""CSL-JSON (Zotero's, citeproc's and bib2graph's own export) as `Record`s.

A file is an array of items (a single item object is read as one). Items are decoded one at a time
from the text, so each record knows the line it starts on; an item that is not an object, or has
neither title nor DOI nor ID, is skipped and reported. Broken JSON is a whole-file error (FILE_INVALID).
The item's ``id`` becomes an identifier when it has a known shape (`work_ids`: OpenAlex ``W…``,
``WOS:…``, Scopus ``2-s2.0-…``, Lens, bib2graph's ``REC:…``), else it is kept as ``ids["csl"]``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from ... import textio
from ...errors import DataError
from ...ids import normalize_doi, normalize_issn
from ...skips import Skips
from .languages import language_code
from .record import Author, Origin, Record
from .work_ids import own_ids

_WS = re.compile(r"[ \t\n\r]*")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d|21\d\d)\b")
_PAGES = re.compile(r"\s*[-\u2013\u2014]+\s*")

#: CSL item type → OpenAlex work type.
TYPES = {"article-journal": "article", "article-magazine": "article", "article-newspaper": "article",
         "paper-conference": "article", "review": "review", "review-book": "review", "book": "book",
         "chapter": "book-chapter", "entry": "reference-entry", "entry-dictionary": "reference-entry",
         "entry-encyclopedia": "reference-entry", "thesis": "dissertation", "report": "report",
         "dataset": "dataset", "article": "preprint", "standard": "standard"}


def read_csl_json(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """Records of a CSL-JSON file, in file order."""
    text = textio.read_text(path, name)
    for number, (line, item) in enumerate(_items(text, name), 1):
        origin = Origin(file=name, record=number, line=line, format="csl-json")
        if not isinstance(item, dict):
            skips.add(name, origin.where(), f"a CSL item is a JSON object, not {type(item).__name__}; skipped")
            continue
        record = _record(item, origin)
        if not (record.title or record.doi or record.ids):
            skips.add(name, origin.where(), "the item has no title, DOI or id; skipped")
            continue
        yield record


def _items(text: str, name: str) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of the top-level array (or the one top-level object)."""
    decoder, pos, line = json.JSONDecoder(), _WS.match(text, 1 if text.startswith("\ufeff") else 0).end(), 1
    if pos < len(text) and text[pos] == "{":
        value, end = _decode(decoder, text, pos, name)
        if _WS.match(text, end).end() < len(text):
            raise _invalid(name, text, _WS.match(text, end).end(), "text after the item")
        yield text.count("\n", 0, pos) + 1, value
        return
    if pos >= len(text) or text[pos] != "[":
        raise _invalid(name, text, pos, "a CSL-JSON file is an array of items ([…])")
    pos, counted = _WS.match(text, pos + 1).end(), 0
    while pos < len(text) and text[pos] != "]":
        line += text.count("\n", counted, pos)
        counted = pos
        value, pos = _decode(decoder, text, pos, name)
        yield line, value
        pos = _WS.match(text, pos).end()
        if pos < len(text) and text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()
        elif pos < len(text) and text[pos] != "]":
            raise _invalid(name, text, pos, "expected ',' or ']' after an item")
    if pos >= len(text):
        raise _invalid(name, text, pos, "the array is not closed (truncated file?)")
    if _WS.match(text, pos + 1).end() < len(text):
        raise _invalid(name, text, _WS.match(text, pos + 1).end(), "text after the array")


def _decode(decoder: json.JSONDecoder, text: str, pos: int, name: str) -> tuple[Any, int]:
    try:
        return decoder.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise _invalid(name, text, exc.pos, exc.msg) from None


def _invalid(name: str, text: str, pos: int, message: str) -> DataError:
    line = text.count("\n", 0, pos) + 1
    return DataError(f"{name}, line {line}: not CSL-JSON ({message})", code="FILE_INVALID",
                     details={"file": name, "line": line})


def _text(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return value.strip() or None if isinstance(value, str) else None


def _record(item: dict, origin: Origin) -> Record:
    first, last = _pages(_text(item.get("page")))
    year, date = _issued(item.get("issued"))
    return Record(origin=origin, ids=_ids(item), doi=_doi(item), title=_text(item.get("title")), year=year,
                  publication_date=date, type=TYPES.get(str(item.get("type")), "other"),
                  language=_language(_text(item.get("language"))), venue=_text(item.get("container-title")),
                  venue_abbrev=_text(item.get("container-title-short")) or _text(item.get("journalAbbreviation")),
                  issn=_issn(item.get("ISSN")),
                  volume=_text(item.get("volume")), issue=_text(item.get("issue")), first_page=first,
                  last_page=last, abstract=_text(item.get("abstract")),
                  authors=[a for a in map(_author, _list(item.get("author"))) if a],
                  author_keywords=_keywords(item.get("keyword")))


def _issn(value: Any) -> str | None:
    """The first ISSN of CSL's "ISSN", a string ("1234-5678, 8765-4321") or a list of them."""
    values = value if isinstance(value, list) else [value]
    return normalize_issn(" ".join(str(v) for v in values if isinstance(v, (str, int))))


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _ids(item: dict) -> dict[str, str]:
    ids = own_ids(_text(item.get("id")), fallback="csl")
    pmid = _text(item.get("PMID"))
    if pmid:
        ids["pmid"] = pmid
    return ids


def _doi(item: dict) -> str | None:
    doi = normalize_doi(_text(item.get("DOI")))
    url = _text(item.get("URL")) or ""
    return doi or (normalize_doi(url) if "doi.org/" in url.lower() else None)


def _issued(value: Any) -> tuple[int | None, str | None]:
    """(year, ISO date when year, month and day are all given) of a CSL date."""
    if not isinstance(value, dict):
        return None, None
    parts = _list(value.get("date-parts"))
    first = parts[0] if parts and isinstance(parts[0], list) else []
    numbers = []
    for part in first[:3]:
        try:
            numbers.append(int(part))
        except (TypeError, ValueError):
            break
    if numbers:
        date = "{:04d}-{:02d}-{:02d}".format(*numbers) if len(numbers) == 3 else None
        return numbers[0], date
    found = _YEAR.search(str(value.get("raw") or value.get("literal") or ""))
    return (int(found.group(1)), None) if found else (None, None)


def _author(value: Any) -> Author | None:
    """``Family, Given`` (particles and suffix kept) or the literal name."""
    if not isinstance(value, dict):
        return None
    literal = _text(value.get("literal"))
    family = " ".join(p for p in (_text(value.get("non-dropping-particle")), _text(value.get("family"))) if p)
    given = " ".join(p for p in (_text(value.get("given")), _text(value.get("dropping-particle"))) if p)
    suffix = _text(value.get("suffix"))
    if not family:
        name = literal or given
        return Author(name=name, full_name=name) if name else None
    name = ", ".join(p for p in (family, given, suffix) if p)
    return Author(name=name, full_name=name)


def _language(value: str | None) -> str | None:
    """CSL writes languages as BCP 47 tags: ``en-US`` is ``en``; a name ("English") is looked up too."""
    tag = re.fullmatch(r"([A-Za-z]{2,3})(?:[-_]\w+)+", value or "")
    return language_code(tag.group(1) if tag else value)


def _keywords(value: Any) -> list[str]:
    """CSL's `keyword` is one string (Zotero joins tags with ", "); a list is read too."""
    items = _list(value) if isinstance(value, list) else re.split(r"[,;]", value) if isinstance(value, str) else []
    return [k for k in (_text(i) for i in items) if k]


def _pages(value: str | None) -> tuple[str | None, str | None]:
    if not value:
        return None, None
    parts = _PAGES.split(value, maxsplit=1)
    return parts[0] or None, (parts[1] if len(parts) > 1 else None) or None

