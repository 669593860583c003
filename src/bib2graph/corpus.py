"""The corpus: the pool of seeded and chained works, deduplicated, filtered and curated.

Nothing is deleted. Every pooled work gets one row in the screening table saying why it is in or
out; the corpus tables hold the included works only. The order of verdicts is:

1. duplicates (same DOI as a work kept earlier: seeds first, then earlier rounds, then smaller ID);
2. filters, in this order: year, type, language, retracted, citations, include and exclude term
   expressions (over title, abstract and terms), the constant-topic guard; the first failing one is named;
3. human decisions: `reject` excludes, `accept` includes even a filtered work. A human decision
   always wins over a filter, never over deduplication.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from .curation import Decision
from .expressions import compile_expression, normalize_text
from .sources.records import CONSTANT_TOPICS
from .tables import SCREENING, Bundle, conform


@dataclass
class CorpusResult:
    corpus: Bundle
    screening: pd.DataFrame


def _origins(seeds: pd.DataFrame, candidates: pd.DataFrame, pool_ids: list[str]) -> pd.DataFrame:
    """How each pooled work came in: seed, chain or monitor, with its round and what brought it (looked
    up in dicts: a million works are a million look-ups, not a million table scans)."""
    seeded_by = dict(zip(seeds["work_id"], seeds["seeded_by"]))
    admitted = candidates[candidates["admitted"]]
    cands = {w: (d, r, v) for w, d, r, v in zip(admitted["work_id"], admitted["direction"], admitted["round"],
                                                 admitted["via"])}
    rows = []
    for work_id in pool_ids:
        if work_id in seeded_by:
            rows.append((work_id, "seed", 0, seeded_by[work_id]))
        else:
            direction, round_, via = cands[work_id]
            rows.append((work_id, "monitor" if direction == "monitor" else "chain", int(round_),
                         f"{direction}: {via}"))
    return pd.DataFrame(rows, columns=["work_id", "origin", "round", "via"])


def _duplicates(works: pd.DataFrame, origins: pd.DataFrame) -> dict[str, str]:
    """work_id → the work it duplicates, for works sharing a DOI with a better-placed one."""
    merged = works[["work_id", "doi"]].merge(origins[["work_id", "origin", "round"]], on="work_id")
    merged = merged[merged["doi"].notna()]
    merged["rank"] = (merged["origin"] != "seed").astype(int)
    merged = merged.sort_values(["doi", "rank", "round", "work_id"], kind="mergesort")
    keep = merged.groupby("doi", sort=False)["work_id"].transform("first")
    return {w: k for w, k in zip(merged["work_id"], keep) if w != k}


def _texts(pool: Bundle) -> dict[str, str]:
    """Title, abstract and term names of each work, normalised for expression matching."""
    terms = pool.terms.groupby("work_id")["term"].agg(lambda t: " ".join(x for x in t if isinstance(x, str)))
    return {w: normalize_text(" ".join(x for x in (title, abstract, terms.get(w, "")) if isinstance(x, str)))
            for w, title, abstract in zip(pool.works["work_id"], pool.works["title"], pool.works["abstract"])}


def _constant_topic_works(pool: Bundle) -> set[str]:
    topics = pool.terms[pool.terms["field"] == "topics"].groupby("work_id")["term_id"].agg(frozenset)
    return {w for w, t in topics.items() if t == CONSTANT_TOPICS}


def _screen(pool: Bundle, spec: dict[str, Any]):
    """A function work → the first filter step it fails (None when it passes them all)."""
    include = compile_expression(spec["include"], "filter.include") if spec.get("include") else None
    exclude = compile_expression(spec["exclude"], "filter.exclude") if spec.get("exclude") else None
    texts = _texts(pool) if include or exclude else {}
    constant = _constant_topic_works(pool) if spec.get("exclude_constant_topics") else set()
    columns = ["work_id", "year", "type", "language", "is_retracted", "cited_by_count"]
    works = {row["work_id"]: row for row in pool.works[columns].to_dict("records")}

    def verdict(work_id: str) -> str | None:
        step = _filter_verdict(works[work_id], spec)
        if step is None and include is not None and not include(texts[work_id]):
            step = "filter:include"
        if step is None and exclude is not None and exclude(texts[work_id]):
            step = "filter:exclude"
        if step is None and work_id in constant:
            step = "filter:constant_topics"
        return step
    return verdict


def _filter_verdict(work: dict[str, Any], spec: dict[str, Any]) -> str | None:
    year = work["year"]
    if spec["year_min"] is not None and (pd.isna(year) or year < spec["year_min"]):
        return "filter:year_min"
    if spec["year_max"] is not None and (pd.isna(year) or year > spec["year_max"]):
        return "filter:year_max"
    if spec["types"] and work["type"] not in spec["types"]:
        return "filter:types"
    if spec["languages"] and isinstance(work["language"], str) and work["language"] not in spec["languages"]:
        return "filter:languages"
    if spec["exclude_retracted"] and work["is_retracted"]:
        return "filter:retracted"
    cites = work["cited_by_count"]
    if spec["min_citations"] and (pd.isna(cites) or cites < spec["min_citations"]):
        return "filter:min_citations"
    return None


def build_corpus(pool: Bundle, seeds: pd.DataFrame, candidates: pd.DataFrame,
                 decisions: dict[str, Decision], filter_spec: dict[str, Any]) -> CorpusResult:
    """Screen every pooled work and keep the included ones."""
    pool_ids = list(pool.works["work_id"])
    screening = _origins(seeds, candidates, pool_ids)
    dupes = _duplicates(pool.works, screening)
    verdict_of = _screen(pool, filter_spec)
    dup_col, filt_col, excl_col, dec_col, reason_col, incl_col = [], [], [], [], [], []
    for work_id in screening["work_id"]:
        duplicate_of = dupes.get(work_id)
        verdict = None if duplicate_of else verdict_of(work_id)
        decision = decisions.get(work_id)
        if decision is not None and decision.decision == "reject":
            verdict = verdict or "curation"
        included = duplicate_of is None and (
            (decision is not None and decision.decision == "accept") or verdict is None)
        dup_col.append(duplicate_of)
        filt_col.append(verdict if verdict != "curation" else None)
        excl_col.append(None if included else (verdict or "duplicate"))
        dec_col.append(decision.decision if decision else None)
        reason_col.append(decision.reason if decision else None)
        incl_col.append(included)
    screening = screening.assign(duplicate_of=dup_col, filter_verdict=filt_col, excluded_by=excl_col,
                                 decision=dec_col,
                                 decision_reason=reason_col, included=incl_col)
    screening = conform(screening, SCREENING)
    corpus = pool.subset(screening.loc[screening["included"], "work_id"])
    return CorpusResult(corpus=corpus, screening=screening)


def prisma(seeds: pd.DataFrame, candidates: pd.DataFrame, screening: pd.DataFrame,
           sources: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """PRISMA 2020-style counts of one corpus build; every step adds up (checked, not assumed).

    `sources` (a files source): per file the records read and those removed as duplicates of a work
    another record gave (the `sources` job's merge), PRISMA's "records identified from databases" and
    "duplicate records removed" per database; their difference is the universe seeds are drawn from.

    identified (seeds + each chaining round) − duplicates = screened;
    screened − excluded by each filter − excluded by people = included (people's accepts of filtered
    works are counted as reinstated and are not in any filter's exclusions).
    """
    duplicates = int(screening["duplicate_of"].notna().sum())
    screened = screening[screening["duplicate_of"].isna()]
    excluded = screened[~screened["included"]]
    by_filter = {k: int(v) for k, v in excluded["excluded_by"].value_counts().sort_index().items()
                 if k.startswith("filter:")}
    by_people = int((excluded["excluded_by"] == "curation").sum())
    reinstated = int((screened["included"] & screened["filter_verdict"].notna()).sum())
    per_round = candidates[candidates["admitted"]].groupby("round").size()
    identified = {"seeds": len(seeds), "rounds": [{"round": int(r), "admitted": int(n)} for r, n in per_round.items()]}
    total = identified["seeds"] + sum(r["admitted"] for r in identified["rounds"])
    included = int(screened["included"].sum())
    counts = {"identified": {**identified, "total": total}, "duplicates_removed": duplicates,
              "screened": len(screened), "excluded_by_filter": by_filter, "excluded_by_people": by_people,
              "reinstated_by_people": reinstated, "included": included}
    if sources is not None:
        counts["sources"] = {"files": sources, "records": sum(f["records"] for f in sources),
                             "duplicates_removed": sum(f["duplicates"] for f in sources)}
    if total != len(screening) or len(screened) - sum(by_filter.values()) - by_people != included:
        raise RuntimeError(f"PRISMA counts do not add up: {counts}")
    return counts
