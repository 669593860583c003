"""Citation chaining in rounds, with a documented, deterministic ranking and per-work provenance.

Round r starts from its frontier (round 1: the seeds; later rounds: the works round r−1 admitted).
A *candidate* is a work outside the corpus that a frontier work references (backward) or that cites
a frontier work (forward). Each candidate is scored against the whole current corpus C:

- ``links``: the number of distinct works of C it cites or is cited by;
- ``shared``: the number of its references that some work of C also references (coupling with C).

Candidates are ranked by (links desc, shared desc, work_id asc); ``score = links + shared/(1+shared)``
orders the same way. Those with ``links ≥ min_links`` are admitted, best first, up to
``max_candidates`` per round. ``via`` lists the frontier works that led to each candidate.

``max_citing`` caps the citing works one frontier work may bring forward: it keeps those that cite
the most corpus works, ties by ID (not the first ones a page happens to list). Chaining stops early
(saturation) when a round admits fewer than ``min_new`` works.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from .tables import CANDIDATES, conform


class CitationGraph(Protocol):
    """What chaining asks of a source, in batches (a remote source answers each call in few requests)."""

    def references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """All referenced works of each work (inside the source or not)."""

    def reachable_references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The referenced works of each work that the source can deliver: backward chaining's reach."""

    def citing(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The works of the source that cite each work: forward chaining's reach."""


@dataclass
class ChainResult:
    candidates: pd.DataFrame
    admitted: list[str]
    rounds: list[dict[str, int]]


def _cap_citing(graph: CitationGraph, citing: dict[str, list[str]], corpus: set[str],
                limit: int | None) -> dict[str, list[str]]:
    """Keep, per cited work, the `limit` citing works outside the corpus with most links to it (ties by ID)."""
    if limit is None:
        return citing
    outside = {work: [c for c in cs if c not in corpus] for work, cs in citing.items()}
    refs = graph.references(sorted({c for cs in outside.values() for c in cs}))
    links = {c: len(set(r) & corpus) for c, r in refs.items()}
    return {work: sorted(cs, key=lambda c: (-links.get(c, 0), c))[:limit] for work, cs in outside.items()}


def _discover(graph: CitationGraph, frontier: list[str], corpus: set[str], direction: str,
              max_citing: int | None = None) -> dict[str, dict]:
    found: dict[str, dict] = {}

    def note(work_id: str, via: str, how: str) -> None:
        entry = found.setdefault(work_id, {"via": set(), "dirs": set()})
        entry["via"].add(via)
        entry["dirs"].add(how)

    if direction in ("backward", "both"):
        for work, refs in graph.reachable_references(frontier).items():
            for ref in refs:
                if ref not in corpus:
                    note(ref, work, "backward")
    if direction in ("forward", "both"):
        for work, citers in _cap_citing(graph, graph.citing(frontier), corpus, max_citing).items():
            for citer in citers:
                if citer not in corpus:
                    note(citer, work, "forward")
    return found


def chain(graph: CitationGraph, seeds: list[str], params: dict[str, Any]) -> ChainResult:
    """Grow the corpus from `seeds` for `params['depth']` rounds in `params['direction']`."""
    direction, depth = params["direction"], params["depth"]
    corpus = set(seeds)
    frontier = sorted(seeds)
    rows: dict[str, dict[str, Any]] = {}
    rounds: list[dict[str, int]] = []
    for rnd in range(1, depth + 1):
        if direction == "none" or not frontier:
            break
        found = _discover(graph, frontier, corpus, direction, params.get("max_citing"))
        # nothing new found: the corpus's references (a whole export's with seed.all) need not be read
        corpus_refs = graph.references(sorted(corpus)) if found else {}
        referenced_by_corpus = {r for refs in corpus_refs.values() for r in refs}
        cited_by = {}  # candidate -> corpus works citing it
        for work, refs in corpus_refs.items():
            for ref in refs:
                if ref in found:
                    cited_by.setdefault(ref, set()).add(work)
        cand_refs = graph.references(sorted(found))
        ranked = []
        for work_id, info in found.items():
            refs = set(cand_refs.get(work_id, []))
            links = len(refs & corpus) + len(cited_by.get(work_id, ()))
            shared = len(refs & referenced_by_corpus)
            ranked.append((-links, -shared, work_id, links, shared, info))
        ranked.sort()
        admitted = []
        for _, _, work_id, links, shared, info in ranked:
            ok = links >= params["min_links"] and len(admitted) < params["max_candidates"]
            if ok:
                admitted.append(work_id)
            dirs = info["dirs"]
            rows[work_id] = {"work_id": work_id, "round": rnd,
                             "direction": "both" if len(dirs) == 2 else next(iter(dirs)),
                             "via": " ".join(sorted(info["via"])), "links": links,
                             "score": round(links + shared / (1 + shared), 6), "admitted": ok}
        corpus.update(admitted)
        frontier = sorted(admitted)
        saturated = len(admitted) < params.get("min_new", 0)
        rounds.append({"round": rnd, "candidates": len(found), "admitted": len(admitted),
                       "saturated": saturated})
        if saturated:
            break
    candidates = conform(pd.DataFrame(list(rows.values()), columns=list(CANDIDATES.columns)), CANDIDATES)
    admitted_all = sorted(candidates.loc[candidates["admitted"], "work_id"])
    return ChainResult(candidates=candidates, admitted=admitted_all, rounds=rounds)
