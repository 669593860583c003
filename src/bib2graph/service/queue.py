"""`queue`: the works awaiting a person's decision, for screening one at a time.

The queue is the pooled works that are not seeds and have no decision in `config/curation.tsv`, in the
order of `b2g curate dump` (work ID), so the GUI, the spreadsheet and `status`'s `pending` count agree.
Each says why it is here, in words, from its chaining step (`results/chain/candidates.parquet`).
"""

from __future__ import annotations

from typing import Any

from .. import curation, query
from ..errors import UsageError
from ..paths import CURATION_FILE
from .result import Result
from .search import pool_paths
from .workspace import Workspace

MAX_LIMIT = 10_000
SHOWN_VIA = 3
_HOW = {"backward": "referenced by {via}", "forward": "cites {via}", "both": "cites or is referenced by {via}",
        "monitor": "a new work citing {via} (found by `b2g monitor`)"}


def why_here(step: dict[str, Any] | None, names: dict[str, str] | None = None) -> str:
    """A candidate's chaining step in words: whom it is linked to (ID, and "Surname year" when the pool
    knows the work), in which round, how strongly."""
    if not step or step.get("direction") is None:
        return "pooled without a recorded chaining step"
    via = (step.get("via") or "").split()
    shown = [f"{v} ({names[v]})" if names and names.get(v) else v for v in via[:SHOWN_VIA]]
    named = ", ".join(shown) + (f" and {len(via) - SHOWN_VIA} more" if len(via) > SHOWN_VIA else "")
    how = _HOW.get(step["direction"], step["direction"] + " from {via}").format(via=named or "the corpus")
    return (f"{how}; chaining round {step['round']}, {step['links']} link(s) to the frontier, "
            f"score {step['score']:.4g}")


def pending_rows(ws: Workspace, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many works await a decision, the first `limit` of them in work ID order with their record
    and chaining step); decided works and seeds are left out by DuckDB, so a large pool stays cheap."""
    works, authors = pool_paths(ws)
    results = ws.path("results")
    seeds, candidates = results / "seed/seeds.parquet", results / "chain/candidates.parquet"
    decided = sorted(curation.read(ws.path(CURATION_FILE)))
    waiting = "w.work_id NOT IN (SELECT unnest(?::VARCHAR[]))" + \
        (" AND w.work_id NOT IN (SELECT work_id FROM read_parquet(?))" if seeds.is_file() else "")
    where = [decided] + ([str(seeds)] if seeds.is_file() else [])
    pending = query.rows(f"SELECT count(*) FROM read_parquet(?) w WHERE {waiting}", [works, *where])[0][0]
    step = ("c.round, c.direction, c.via, c.links, c.score" if candidates.is_file() else
            "NULL AS round, NULL AS direction, NULL AS via, NULL AS links, NULL AS score")
    join = "LEFT JOIN read_parquet(?) c ON c.work_id = w.work_id AND c.admitted" if candidates.is_file() else ""
    params = [authors, works, *([str(candidates)] if candidates.is_file() else []), *where, limit]
    found = query.records(f"""
        SELECT w.work_id, w.doi, w.title, w.year, w.venue,
               coalesce((SELECT list(a.author_name ORDER BY a.position) FROM read_parquet(?) a
                         WHERE a.work_id = w.work_id), []) AS authors,
               w.abstract, {step}
        FROM read_parquet(?) w {join} WHERE {waiting} ORDER BY w.work_id LIMIT ?""", params)
    return pending, found


def screening_queue(ws: Workspace, limit: int = 50) -> Result:
    """The first `limit` works awaiting a decision, each with its abstract (when held) and why it is here."""
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, not {limit}")
    pending, rows = pending_rows(ws, limit)
    names = _short_names(ws, {v for r in rows for v in (r["via"] or "").split()[:SHOWN_VIA]})
    works = [{"work_id": r["work_id"], "doi": r["doi"], "title": r["title"], "year": r["year"],
              "venue": r["venue"], "authors": [a for a in r["authors"] if a],
              "abstract": r["abstract"] or None, "why_here": why_here(r, names)} for r in rows]
    return Result(data={"workspace": ws.describe(), "pending": pending, "works": works},
                  warnings=ws.warnings())


def _short_names(ws: Workspace, ids: set[str]) -> dict[str, str]:
    """"Surname year" of the pooled works among `ids` (first author by position), for a reader who
    does not know works by their IDs."""
    if not ids:
        return {}
    from ..networks.work_labels import surname

    works, authors = pool_paths(ws)
    found = query.rows("""
        SELECT w.work_id, w.year,
               (SELECT a.author_name FROM read_parquet(?) a WHERE a.work_id = w.work_id AND a.author_name IS NOT NULL
                ORDER BY a.position LIMIT 1)
        FROM read_parquet(?) w WHERE w.work_id IN (SELECT unnest(?::VARCHAR[]))""", [authors, works, sorted(ids)])
    names = {}
    for work_id, year, author in found:
        short = " ".join(part for part in (surname(author), str(year) if year is not None else "") if part)
        if short:
            names[work_id] = short
    return names
