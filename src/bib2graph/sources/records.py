"""OpenAlex Work objects → rows of the five bundle tables.

Accepts both the 2023 schema (`host_venue`, `concepts`, no `keywords`/`topics`) and the current one
(`primary_location`, `topics`, `keywords`). IDs are shortened (``https://openalex.org/W1`` → ``W1``),
DOIs are bare and lower-case (``10.1/x``), and the abstract is rebuilt from its inverted index.
"""

from __future__ import annotations

from typing import Any, Iterable

import pandas as pd

from ..ids import normalize_doi, short_id
from ..tables import AFFILIATIONS, AUTHORSHIPS, REFERENCES, TERMS, WORKS, Bundle, conform

# OpenAlex gives ~22M mostly non-English works this same topic triple with fixed scores (a known defect).
CONSTANT_TOPICS = frozenset({"T14423", "T13154", "T14235"})


def abstract_from_index(index: dict[str, list[int]] | None) -> str | None:
    """Rebuild an abstract from OpenAlex's ``abstract_inverted_index`` (word → positions)."""
    if not index:
        return None
    placed = sorted((pos, word) for word, positions in index.items() for pos in positions)
    return " ".join(word for _, word in placed) or None


def _venue(work: dict[str, Any]) -> tuple[str | None, str | None]:
    source = ((work.get("primary_location") or {}).get("source")) or {}
    if source.get("id") or source.get("display_name"):
        return short_id(source.get("id")), source.get("display_name")
    host = work.get("host_venue") or {}
    return short_id(host.get("id")), host.get("display_name")


def _terms(work_id: str, work: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for field in ("keywords", "topics", "concepts"):
        for item in work.get(field) or []:
            if isinstance(item, str):
                item = {"id": item, "display_name": item}
            name = item.get("display_name") or item.get("keyword")
            term_id = short_id(item.get("id")) or (f"{field}/{name.lower()}" if name else None)
            if term_id:
                rows.append({"work_id": work_id, "field": field, "term_id": term_id, "term": name,
                             "score": float(item["score"]) if item.get("score") is not None else None})
    return rows


def work_rows(work: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The rows one Work object contributes to each bundle table."""
    work_id = short_id(work.get("id")) or short_id((work.get("ids") or {}).get("openalex"))
    if not work_id:
        raise ValueError("an OpenAlex work without an `id`")
    references = sorted({r for r in (short_id(x) for x in work.get("referenced_works") or []) if r})
    venue_id, venue = _venue(work)
    rows: dict[str, list[dict[str, Any]]] = {
        "works": [{
            "work_id": work_id,
            "doi": normalize_doi(work.get("doi") or (work.get("ids") or {}).get("doi")),
            "title": work.get("title") or work.get("display_name"),
            "year": work.get("publication_year"),
            "publication_date": work.get("publication_date"),
            "type": work.get("type"),
            "language": work.get("language"),
            "venue_id": venue_id,
            "venue": venue,
            "cited_by_count": work.get("cited_by_count"),
            "n_references": len(references),
            "is_retracted": bool(work.get("is_retracted") or False),
            "abstract": abstract_from_index(work.get("abstract_inverted_index")),
            "updated_date": work.get("updated_date"),
        }],
        "authorships": [],
        "affiliations": [],
        "references": [{"work_id": work_id, "referenced_id": r} for r in references],
        "terms": _terms(work_id, work),
    }
    for position, authorship in enumerate(work.get("authorships") or []):
        author = authorship.get("author") or {}
        rows["authorships"].append({
            "work_id": work_id, "position": position, "author_id": short_id(author.get("id")),
            "author_name": author.get("display_name") or authorship.get("raw_author_name"),
            "author_position": authorship.get("author_position"),
        })
        seen = set()
        for inst in authorship.get("institutions") or []:
            inst_id = short_id(inst.get("id"))
            if inst_id and inst_id not in seen:
                seen.add(inst_id)
                rows["affiliations"].append({
                    "work_id": work_id, "position": position, "institution_id": inst_id,
                    "institution_name": inst.get("display_name"), "country_code": inst.get("country_code"),
                })
    return rows


def bundle_from_works(works: Iterable[dict[str, Any]]) -> Bundle:
    """Normalise Work objects into a Bundle; a work seen twice keeps its most recently updated record."""
    chosen: dict[str, tuple[str, dict[str, list[dict[str, Any]]]]] = {}
    for work in works:
        rows = work_rows(work)
        work_id = rows["works"][0]["work_id"]
        updated = rows["works"][0]["updated_date"] or ""
        if work_id not in chosen or updated > chosen[work_id][0]:
            chosen[work_id] = (updated, rows)
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in ("works", "authorships", "affiliations",
                                                                     "references", "terms")}
    for _, rows in chosen.values():
        for name, table_rows in rows.items():
            tables[name].extend(table_rows)
    schemas = {"works": WORKS, "authorships": AUTHORSHIPS, "affiliations": AFFILIATIONS,
               "references": REFERENCES, "terms": TERMS}
    return Bundle(**{name: conform(pd.DataFrame(tables[name], columns=list(schemas[name].columns)),
                                   schemas[name]) for name in schemas})
