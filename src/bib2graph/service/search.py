"""`search`: find pooled works by title words, author names, DOI or OpenAlex ID.

Matching ignores case and accents. Every word of the query must occur in the title (a title match) or
in the authors' names (an author match); a query that is a DOI in any form (`10.…`, `doi:…`,
`https://doi.org/…`) or an OpenAlex ID (`W…`, its URL) also matches that work exactly. Ranking is
fixed: exact ID or DOI first, then title matches, then author matches; ties by year (newest first),
then work ID. `state` says where the work stands now: a recorded decision wins over the last
screening (accept: included, reject: excluded), a screened work is included or excluded as the corpus
phase decided, and a work not screened yet is pending.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .. import curation, query
from ..errors import DataError, UsageError
from ..ids import normalize_doi, short_id
from ..paths import CURATION_FILE
from .result import Result
from .workspace import Workspace

MAX_LIMIT = 1000
MAX_WORDS = 20
POOL = "results/chain/pool"


def fold(text: str) -> str:
    """Lower case without accents: what both sides of a match are reduced to (DuckDB's strip_accents)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def pool_paths(ws: Workspace) -> tuple[str, str]:
    """(works, authorships) of the pool; before the chain phase there is nothing to search."""
    works, authors = ws.path(f"{POOL}/works.parquet"), ws.path(f"{POOL}/authorships.parquet")
    if not works.is_file() or not authors.is_file():
        raise DataError("no pooled works yet; `b2g run chain` pools them", code="ARTIFACT_MISSING",
                        details={"file": str(works)})
    return str(works), str(authors)


def states(ws: Workspace, work_ids: list[str]) -> dict[str, str]:
    """included / excluded / pending for each work: the decision if any, else the last screening."""
    screening = ws.path("results/corpus/screening.parquet")
    screened = dict(query.rows("SELECT work_id, included FROM read_parquet(?) "
                               "WHERE work_id IN (SELECT unnest(?::VARCHAR[]))",
                               [str(screening), work_ids])) if screening.is_file() and work_ids else {}
    decisions = curation.read(ws.path(CURATION_FILE))
    out = {}
    for work_id in work_ids:
        decision = decisions.get(work_id)
        if decision is not None:
            out[work_id] = "included" if decision.decision == "accept" else "excluded"
        elif work_id in screened:
            out[work_id] = "included" if screened[work_id] else "excluded"
        else:
            out[work_id] = "pending"
    return out


def _all_words(column: str, words: list[str]) -> str:
    return " AND ".join([f"contains({column}, ?)"] * len(words))


def search_works(ws: Workspace, text: str, limit: int = 20) -> Result:
    """The pooled works matching `text`, best first (see the module's docstring for the order)."""
    words = fold(text).split()
    if not words:
        raise UsageError("say what to search for: title words, an author's name, a DOI or an OpenAlex ID")
    if len(words) > MAX_WORDS:
        raise UsageError(f"at most {MAX_WORDS} words in a search, not {len(words)}")
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, not {limit}")
    works, authors = pool_paths(ws)
    doi = normalize_doi(text.strip()) or ""
    work_id = "" if doi else (short_id(text.strip()) or "")
    found = query.records(f"""
        WITH a AS (SELECT work_id, list(author_name ORDER BY position) AS authors,
                          strip_accents(lower(string_agg(author_name, ' '))) AS names
                   FROM read_parquet(?) GROUP BY work_id),
             w AS (SELECT w.work_id, w.title, w.year, w.doi, w.venue, coalesce(a.authors, []) AS authors,
                          CASE WHEN w.work_id = ? OR w.doi = ? THEN 0
                               WHEN {_all_words("strip_accents(lower(coalesce(w.title, '')))", words)} THEN 1
                               WHEN {_all_words("coalesce(a.names, '')", words)} THEN 2 END AS rank
                   FROM read_parquet(?) w LEFT JOIN a ON a.work_id = w.work_id)
        SELECT work_id, title, year, doi, authors, venue FROM w WHERE rank IS NOT NULL
        ORDER BY rank, year DESC NULLS LAST, work_id LIMIT ?""",
                          [authors, work_id, doi, *words, *words, works, limit])
    state = states(ws, [w["work_id"] for w in found])
    rows: list[dict[str, Any]] = [{**w, "authors": [a for a in w["authors"] if a], "state": state[w["work_id"]]}
                                  for w in found]
    return Result(data={"workspace": ws.describe(), "query": text, "works": rows}, warnings=ws.warnings())
