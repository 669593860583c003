"""Citation chaining in rounds, with a documented, deterministic ranking and per-work provenance.

Round r starts from its frontier (round 1: the seeds; later rounds: the works round r−1 admitted).
A *candidate* is a work outside the corpus that a frontier work references (backward) or that cites
a frontier work (forward). Each candidate is scored against the whole current corpus C:

- ``links``: the number of distinct works of C it cites or is cited by;
- ``shared``: the number of its references that some work of C also references (coupling with C).

Candidates are ranked by (links desc, shared desc, work_id asc); ``score = links + shared/(1+shared)``
orders the same way. Those with ``links ≥ min_links`` are admitted, best first, up to
``max_candidates`` per round. ``via`` lists the frontier works that led to each candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from .tables import CANDIDATES, conform


class CitationGraph(Protocol):
    """What chaining needs to know of a source."""

    ids: set[str]

    def references(self, work_id: str) -> list[str]: ...
    def cited_in_universe(self, work_id: str) -> list[str]: ...
    def citing(self, work_id: str) -> list[str]: ...


@dataclass
class ChainResult:
    candidates: pd.DataFrame
    admitted: list[str]
    rounds: list[dict[str, int]]


def _discover(graph: CitationGraph, frontier: list[str], corpus: set[str], direction: str) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for work in frontier:
        if direction in ("backward", "both"):
            for ref in graph.cited_in_universe(work):
                if ref not in corpus:
                    found.setdefault(ref, {"via": set(), "dirs": set()})
                    found[ref]["via"].add(work)
                    found[ref]["dirs"].add("backward")
        if direction in ("forward", "both"):
            for citer in graph.citing(work):
                if citer not in corpus:
                    found.setdefault(citer, {"via": set(), "dirs": set()})
                    found[citer]["via"].add(work)
                    found[citer]["dirs"].add("forward")
    return found


def _score(graph: CitationGraph, work_id: str, corpus: set[str], corpus_refs: set[str]) -> tuple[int, int]:
    refs = set(graph.references(work_id))
    links = len(refs & corpus) + len(set(graph.citing(work_id)) & corpus)
    return links, len(refs & corpus_refs)


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
        found = _discover(graph, frontier, corpus, direction)
        corpus_refs = {r for w in corpus for r in graph.references(w)}
        ranked = []
        for work_id, info in found.items():
            links, shared = _score(graph, work_id, corpus, corpus_refs)
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
        rounds.append({"round": rnd, "candidates": len(found), "admitted": len(admitted)})
    candidates = conform(pd.DataFrame(list(rows.values()), columns=list(CANDIDATES.columns)), CANDIDATES)
    admitted_all = sorted(candidates.loc[candidates["admitted"], "work_id"])
    return ChainResult(candidates=candidates, admitted=admitted_all, rounds=rounds)
