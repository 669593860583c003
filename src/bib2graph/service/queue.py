"""`queue`: the works awaiting a person's decision, likely includes first, and whether to stop.

The queue is the pooled works that are not seeds and have no decision in `config/curation.tsv`. Once
there is an include (a seed not rejected, or an accepted work) and an exclude (a rejected work), they
are ranked by the screening model fitted on those decisions (bib2graph.screening; settings in the
spec's `screening.model`), and each says why it ranks there: the terms that weigh most and the included
works it is linked to. Before, they come in work ID order, as `b2g curate dump` lists them. Each says
why it is in the pool, in words, from its chaining step (`results/chain/candidates.parquet`), and the
answer carries the stopping rule's verdict (`screening.stopping`).

`before`: the queue as it stood just before the decision on that work was recorded (decisions ordered
by `decided_at`, ties by work ID): the ranking shown then, reproduced from the curation file and the spec.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import curation
from ..errors import DataError, UsageError
from ..paths import CURATION_FILE
from ..screening import model
from . import ranking
from .curate import known_works, resolve_one
from .result import Result
from .workspace import Workspace, given

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


def records(ws: Workspace, ids: list[str]) -> list[dict[str, Any]]:
    """The record and chaining step of each pooled work of `ids`, in that order."""
    return ranking.records(ws).get(ids) if ids else []


def _decisions_before(decisions: dict, work_id: str, pooled: bool) -> dict:
    """The decisions recorded before the one on `work_id` (ordered by decided_at, ties by work ID); a
    pooled work without a decision (pending, a seed) is a usage slip, any other ID unknown."""
    if work_id not in decisions and pooled:
        raise UsageError(f"{work_id} has no recorded decision (it is pending, or a seed); `before` names a "
                         "decided work", details={"before": work_id})
    if work_id not in decisions:
        raise DataError(f"{work_id} is no pooled work with a recorded decision; `before` names a decided work",
                        code="UNKNOWN_ID", details={"unknown": [work_id]})
    order = sorted(decisions, key=lambda w: (decisions[w].decided_at or "", w))
    return {w: decisions[w] for w in order[:order.index(work_id)]}


def _ranked(ws: Workspace, spec: dict, now, limit: int) -> tuple[list[str], dict[str, float], Any]:
    """The first `limit` pending works, best first, their scores, and the fitted model (None before it
    can be fitted)."""
    if not now.trainable:
        return now.waiting[:limit], {}, None
    fitted = ranking.fitted(ws, now, spec["screening"]["model"])
    index = fitted.features.index()
    rows, scores = model.rank(fitted, np.fromiter((index[w] for w in now.waiting), dtype=np.int64,
                                                  count=len(now.waiting)))
    ids = fitted.features.work_ids[rows[:limit]].tolist()
    return ids, dict(zip(ids, scores[:limit].tolist())), fitted


def _order_note(now, fitted) -> dict[str, Any]:
    if fitted is None:
        return {"by": "work_id", "includes": len(now.includes), "excludes": len(now.excludes),
                "note": "in work ID order until there is an include (a seed or an accepted work) and an "
                        "exclude (a rejected work); then the screening model ranks the queue"}
    return {"by": "model", "includes": len(now.includes), "excludes": len(now.excludes),
            "note": "ranked by the screening model fitted on the decisions so far (LinearSVC over text, its "
                    "latent themes, citation neighbourhood and chaining provenance; spec screening.model), "
                    "likely includes first; ties by work ID"}


def screening_queue(ws: Workspace, limit: int = 50, before: str | None = None) -> Result:
    """The first `limit` works awaiting a decision, best first once the model can rank them, each with its
    abstract (when held), why it is here and why it ranks there; and the stopping rule's verdict."""
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, not {limit}")
    spec = ranking.spec(ws)
    decisions = curation.read(ws.path(CURATION_FILE))
    if given("--before", before, "a decided work") is not None:
        known = known_works(ws)
        found = resolve_one(before, known)       # a DOI or PMID too
        named = found or curation.work_id_of(before) or before
        decisions = _decisions_before(decisions, named, pooled=found is not None)
    now = ranking.current(ws, decisions)
    ordered, scores, fitted = _ranked(ws, spec, now, limit)
    shown = records(ws, ordered)
    whys = (dict(zip((r["work_id"] for r in shown),
                     model.explain(fitted, [fitted.features.index()[r["work_id"]] for r in shown])))
            if fitted is not None else {})
    names = _short_names(ws, {v for r in shown for v in (r["via"] or "").split()[:SHOWN_VIA]}
                         | {link["work_id"] for why in whys.values() for link in why["linked_includes"]})
    works = []
    for position, r in enumerate(shown, 1):
        why = whys.get(r["work_id"])
        for link in why["linked_includes"] if why else []:
            link["name"] = names.get(link["work_id"])
        works.append({"rank": position, "work_id": r["work_id"], "doi": r["doi"], "title": r["title"],
                      "year": r["year"], "venue": r["venue"], "authors": [a for a in r["authors"] if a],
                      "abstract": r["abstract"] or None, "why_here": why_here(r, names),
                      "score": scores.get(r["work_id"]), "why_ranked": why})
    stop = now.stop_test(spec["screening"]["stopping"]).describe()
    return Result(data={"workspace": ws.describe(), "pending": len(now.waiting), "order": _order_note(now, fitted),
                        "stopping": stop, "before": before, "works": works},
                  warnings=ws.warnings())


def _short_names(ws: Workspace, ids: set[str]) -> dict[str, str]:
    """"Surname year" of the pooled works among `ids` (first author by position), for a reader who
    does not know works by their IDs."""
    from ..networks.work_labels import surname

    names = {}
    for r in records(ws, sorted(ids)):
        short = " ".join(part for part in (surname(r["first_author"]),
                                           str(r["year"]) if r["year"] is not None else "") if part)
        if short:
            names[r["work_id"]] = short
    return names
