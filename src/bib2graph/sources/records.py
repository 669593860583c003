"""OpenAlex Work objects → rows of the five bundle tables.

Accepts both the 2023 schema (`host_venue`, `concepts`, no `keywords`/`topics`) and the current one
(`primary_location`, `topics`, `keywords`). IDs are shortened (``https://openalex.org/W1`` → ``W1``),
DOIs are bare and lower-case (``10.1/x``), and the abstract is rebuilt from its inverted index.

Work objects come from files people hand over, so any field may hold any JSON type: a value of the
expected kind is taken, an unambiguous one converted (``"2001"`` → 2001 for a year), anything else read
as missing, so that the rows always pass the table schemas.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable

import pandas as pd

from ..ids import normalize_doi, normalize_issn, normalize_pmid, short_id
from ..skips import Skips
from ..tables import AFFILIATIONS, AUTHORSHIPS, REFERENCES, TERMS, WORKS, Bundle, conform
from ..textio import SURROGATE
from .exports.names import term_key

# OpenAlex gives ~22M mostly non-English works this same topic triple with fixed scores (a known defect).
CONSTANT_TOPICS = frozenset({"T14423", "T13154", "T14235"})

_INT = re.compile(r"\s*[+-]?[0-9]{1,18}\s*")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _short(value: Any) -> str | None:
    return short_id(value) if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    """An Int64 from an int, an integral float or a string of digits; a bool is not a number."""
    if isinstance(value, str) and _INT.fullmatch(value):
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and -2**63 < value < 2**63:
        return value
    return None


def _count(value: Any) -> int | None:
    number = _int(value)
    return number if number is not None and number >= 0 else None


def _float(value: Any) -> float | None:
    """A finite float from a number or a numeric string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def work_id(work: dict[str, Any]) -> str | None:
    """The short ID of a Work object (`id`, else `ids.openalex`); None when it has no usable one."""
    return _short(work.get("id")) or _short(_dict(work.get("ids")).get("openalex"))


def work_doi(work: dict[str, Any]) -> str | None:
    return normalize_doi(_text(work.get("doi")) or _text(_dict(work.get("ids")).get("doi")))


def work_pmid(work: dict[str, Any]) -> str | None:
    return normalize_pmid(_text(_dict(work.get("ids")).get("pmid")))


def work_year(work: dict[str, Any]) -> int | None:
    return _int(work.get("publication_year"))


def work_title(work: dict[str, Any]) -> str | None:
    return _text(work.get("title")) or _text(work.get("display_name"))


def abstract_from_index(index: Any) -> str | None:
    """Rebuild an abstract from OpenAlex's ``abstract_inverted_index`` (word → positions); positions that
    are not non-negative integers are passed over, and memory grows with their number, not their size.
    Words that share a position come in code point order."""
    at: dict[int, str] = {}
    shared = False
    for word, positions in _dict(index).items():
        if isinstance(word, str):
            for pos in _list(positions):
                if type(pos) is int and pos >= 0:
                    shared = shared or pos in at
                    at[pos] = word
    if shared:   # rare: sort (position, word) pairs, which keeps every word of a shared position
        placed = sorted((pos, word) for word, positions in _dict(index).items() if isinstance(word, str)
                        for pos in _list(positions) if type(pos) is int and pos >= 0)
        return " ".join(word for _, word in placed) or None
    return " ".join([at[pos] for pos in sorted(at)]) or None


def _venue(work: dict[str, Any]) -> tuple[str | None, str | None]:
    source = _dict(_dict(work.get("primary_location")).get("source"))
    if _short(source.get("id")) or _text(source.get("display_name")):
        return _short(source.get("id")), _text(source.get("display_name"))
    host = _dict(work.get("host_venue"))
    return _short(host.get("id")), _text(host.get("display_name"))


def _issn(work: dict[str, Any]) -> str | None:
    """The linking ISSN of the work's source (current schema: primary_location.source; 2023: host_venue)."""
    for source in (_dict(_dict(work.get("primary_location")).get("source")), _dict(work.get("host_venue"))):
        issn = normalize_issn(_text(source.get("issn_l"))) or normalize_issn(
            " ".join(x for x in _list(source.get("issn")) if isinstance(x, str)))
        if issn:
            return issn
    return None


def _mesh(wid: str, work: dict[str, Any]) -> list[dict[str, Any]]:
    """MeSH descriptors (one row per descriptor, whatever its qualifiers), keyed by the folded name as
    export readers key theirs, so that PubMed and OpenAlex records of a work give the same terms."""
    rows, seen = [], set()
    for item in _list(work.get("mesh")):
        name = _text(_dict(item).get("descriptor_name"))
        term_id = term_key(name) if name else None
        if term_id and term_id not in seen:
            seen.add(term_id)
            rows.append({"work_id": wid, "field": "mesh", "term_id": term_id, "term": " ".join(name.split()),
                         "score": None})
    return rows


def _terms(wid: str, work: dict[str, Any]) -> list[dict[str, Any]]:
    rows, seen = [], set()
    for field in ("keywords", "topics", "concepts"):
        for item in _list(work.get(field)):
            if isinstance(item, str):
                item = {"id": item, "display_name": item}
            item = _dict(item)
            name = _text(item.get("display_name")) or _text(item.get("keyword"))
            term_id = _short(item.get("id")) or (f"{field}/{name.lower()}" if name else None)
            if term_id and (field, term_id) not in seen:
                seen.add((field, term_id))
                rows.append({"work_id": wid, "field": field, "term_id": term_id, "term": name,
                             "score": _float(item.get("score"))})
    return rows


def _people(wid: str, work: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Authorship and affiliation rows; `position` counts the authorships that are objects."""
    authorships, affiliations = [], []
    for position, authorship in enumerate(a for a in _list(work.get("authorships")) if isinstance(a, dict)):
        author = _dict(authorship.get("author"))
        authorships.append({
            "work_id": wid, "position": position, "author_id": _short(author.get("id")),
            "author_name": _text(author.get("display_name")) or _text(authorship.get("raw_author_name")),
            "author_position": _text(authorship.get("author_position")),
        })
        seen = set()
        for inst in (_dict(i) for i in _list(authorship.get("institutions"))):
            inst_id = _short(inst.get("id"))
            if inst_id and inst_id not in seen:
                seen.add(inst_id)
                affiliations.append({
                    "work_id": wid, "position": position, "institution_id": inst_id,
                    "institution_name": _text(inst.get("display_name")),
                    "country_code": _text(inst.get("country_code")),
                })
    return authorships, affiliations


def work_rows(work: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | None:
    """The rows one Work object contributes to each bundle table; None without a usable ID."""
    wid = work_id(work)
    if not wid:
        return None
    # a work listed among its own references is no citation, in any network: dropped here, as the
    # export readers' ingest drops it
    references = sorted({r for r in (_short(x) for x in _list(work.get("referenced_works"))) if r} - {wid})
    venue_id, venue = _venue(work)
    authorships, affiliations = _people(wid, work)
    return {
        "works": [{
            "work_id": wid,
            "doi": work_doi(work),
            "pmid": work_pmid(work),
            "title": work_title(work),
            "year": work_year(work),
            "publication_date": _text(work.get("publication_date")),
            "type": _text(work.get("type")),
            "language": _text(work.get("language")),
            "venue_id": venue_id,
            "venue": venue,
            "issn": _issn(work),
            "cited_by_count": _count(work.get("cited_by_count")),
            "n_references": len(references),
            "is_retracted": _flag(work.get("is_retracted")),
            "abstract": abstract_from_index(work.get("abstract_inverted_index")),
            "updated_date": _text(work.get("updated_date")),
        }],
        "authorships": authorships,
        "affiliations": affiliations,
        "references": [{"work_id": wid, "referenced_id": r} for r in references],
        "terms": _terms(wid, work) + _mesh(wid, work),
    }


def scrub_surrogates(value: Any) -> int:
    """Replace lone surrogates by U+FFFD in every string (keys too) of a parsed JSON value, in place; how
    many there were. Iterative, so that a deeply nested value cannot exhaust the stack."""
    count, stack = 0, [value]

    def scrub(item: Any) -> Any:
        nonlocal count
        if isinstance(item, str):
            item, found = SURROGATE.subn("\ufffd", item)
            count += found
        else:
            stack.append(item)
        return item

    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            items = list(node.items())
            node.clear()
            node.update((scrub(key), scrub(item)) for key, item in items)
        elif isinstance(node, list):
            node[:] = [scrub(item) for item in node]
    return count


def _has_surrogates(rows: dict[str, list[dict[str, Any]]]) -> bool:
    return any(isinstance(value, str) and SURROGATE.search(value)
               for table in rows.values() for row in table for value in row.values())


def bundle_from_works(works: Iterable[Any], skips: Skips | None = None) -> Bundle:
    """Normalise Work objects into a Bundle; a work seen twice keeps its most recently updated record.

    Records are named as the OpenAlex API's in `skips`: a work without a usable ID is skipped, one with
    a lone surrogate repaired. Files report theirs with file and line as they are read, so that what
    reaches this point from a file is already clean.
    """
    skips = Skips() if skips is None else skips
    chosen: dict[str, tuple[str, dict[str, list[dict[str, Any]]]]] = {}
    for number, work in enumerate(works, 1):
        rows = work_rows(work) if isinstance(work, dict) else None
        if rows is None:
            skips.add("OpenAlex API", f"record {number}", "not a Work object with a usable `id`; skipped")
            continue
        if _has_surrogates(rows):  # rare: repair the object itself, so that repaired keys stay unique
            repaired = scrub_surrogates(work)
            rows = work_rows(work)
            skips.add("OpenAlex API", f"work {rows['works'][0]['work_id']}",
                      f"{repaired} lone UTF-16 surrogate(s) replaced by U+FFFD")
        wid = rows["works"][0]["work_id"]
        updated = rows["works"][0]["updated_date"] or ""
        if wid not in chosen or updated > chosen[wid][0]:
            chosen[wid] = (updated, rows)
    return bundle_from_rows(rows for _, rows in chosen.values())


def bundle_from_rows(works: Iterable[dict[str, list[dict[str, Any]]]]) -> Bundle:
    """The Bundle of the `work_rows` of distinct works."""
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in ("works", "authorships", "affiliations",
                                                                     "references", "terms")}
    for rows in works:
        for name, table_rows in rows.items():
            tables[name].extend(table_rows)
    schemas = {"works": WORKS, "authorships": AUTHORSHIPS, "affiliations": AFFILIATIONS,
               "references": REFERENCES, "terms": TERMS}
    return Bundle(**{name: conform(pd.DataFrame(tables[name], columns=list(schemas[name].columns)),
                                   schemas[name]) for name in schemas})
