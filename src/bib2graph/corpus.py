"""The corpus: the pool of seeded and chained works, deduplicated, filtered and curated.

Nothing is deleted. Every pooled work gets one row in the screening table saying why it is in or
out; the corpus tables hold the included works only. The order of verdicts is:

1. duplicates (same DOI, else same PMID, as a work kept earlier: seeds first, then earlier rounds, then
   smaller ID);
2. filters, in this order: year, type, language, retracted, citations, include and exclude term
   expressions (over title, abstract and terms), the constant-topic guard; the first failing one is named;
3. human decisions: `reject` excludes, `accept` includes even a filtered work. A human decision
   always wins over a filter, never over deduplication.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
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
    """work_id → the work it duplicates, for works sharing a DOI with a better-placed one, else a PMID
    (two works with different DOIs are never duplicates, whatever PMIDs they carry)."""
    merged = works[["work_id", "doi", "pmid"]].merge(origins[["work_id", "origin", "round"]], on="work_id")
    merged["rank"] = (merged["origin"] != "seed").astype(int)
    dupes = _first_by(merged[merged["doi"].notna()], "doi")
    rest = merged[merged["pmid"].notna() & ~merged["work_id"].isin(dupes.keys())]
    doi_of = dict(zip(rest["work_id"], rest["doi"]))
    dupes.update((w, k) for w, k in _first_by(rest, "pmid").items()
                 if not (isinstance(doi_of[w], str) and isinstance(doi_of[k], str)))
    return dupes


def _first_by(rows: pd.DataFrame, key: str) -> dict[str, str]:
    """work_id → the best-placed work (seed, earlier round, smaller ID) of its `key`, for all others."""
    rows = rows.sort_values([key, "rank", "round", "work_id"], kind="mergesort")
    keep = rows.groupby(key, sort=False)["work_id"].transform("first")
    return {w: k for w, k in zip(rows["work_id"], keep) if w != k}


#: The works columns every screening reads; `screen_columns` adds the texts when expressions ask for them.
SCREEN_COLUMNS = ["work_id", "doi", "pmid", "year", "type", "language", "is_retracted", "cited_by_count"]


def screen_columns(spec: dict[str, Any]) -> tuple[list[str], list[str] | None]:
    """(works columns, terms columns or None) that screening under the filter `spec` reads: the job
    reads these alone, so a million abstracts are read only when include/exclude expressions match text."""
    texts = bool(spec.get("include") or spec.get("exclude"))
    works = SCREEN_COLUMNS + (["title", "abstract"] if texts else [])
    terms = ["work_id", "field", "term_id"] + (["term"] if texts else [])
    return works, terms if texts or spec.get("exclude_constant_topics") else None


def _texts(works: pd.DataFrame, terms: pd.DataFrame, work_ids) -> dict[str, str]:
    """Title, abstract and term names of `work_ids`, normalised for expression matching (only the works
    the other filters passed: the text of the others is never asked)."""
    wanted = set(work_ids)
    terms = terms[terms["work_id"].isin(wanted)]
    names = terms.groupby("work_id")["term"].agg(lambda t: " ".join(x for x in t if isinstance(x, str)))
    works = works[works["work_id"].isin(wanted)]
    return {w: normalize_text(" ".join(x for x in (title, abstract, names.get(w, "")) if isinstance(x, str)))
            for w, title, abstract in zip(works["work_id"], works["title"], works["abstract"])}


def _constant_topic_works(terms: pd.DataFrame) -> set[str]:
    topics = terms[terms["field"] == "topics"].groupby("work_id")["term_id"].agg(frozenset)
    return {w for w, t in topics.items() if t == CONSTANT_TOPICS}


def _failing(values: pd.Series, passed) -> np.ndarray:
    """True where `passed` (a comparison of `values`) is false or unknown: a missing year or citation
    count fails a bound on it."""
    return ~np.asarray(pd.array(passed, dtype="boolean").fillna(False), dtype=bool) | values.isna().to_numpy()


def _filter_steps(works: pd.DataFrame, spec: dict[str, Any]) -> list[tuple[str, np.ndarray]]:
    """(verdict, failing mask) of each metadata filter the spec sets, in the order verdicts are named."""
    steps = []
    if spec["year_min"] is not None:
        steps.append(("filter:year_min", _failing(works["year"], works["year"] >= spec["year_min"])))
    if spec["year_max"] is not None:
        steps.append(("filter:year_max", _failing(works["year"], works["year"] <= spec["year_max"])))
    if spec["types"]:
        steps.append(("filter:types", ~works["type"].isin(spec["types"]).to_numpy(dtype=bool)))
    if spec["languages"]:
        language = works["language"]
        steps.append(("filter:languages", (language.notna() & ~language.isin(spec["languages"])).to_numpy(dtype=bool)))
    if spec["exclude_retracted"]:
        steps.append(("filter:retracted", works["is_retracted"].to_numpy(dtype=bool)))
    if spec["min_citations"]:
        cites = works["cited_by_count"]
        steps.append(("filter:min_citations", _failing(cites, cites >= spec["min_citations"])))
    return steps


def _verdicts(works: pd.DataFrame, terms: pd.DataFrame | None, spec: dict[str, Any]) -> dict[str, str]:
    """work_id → the first filter step it fails, for the works failing one: the metadata filters by whole
    columns (a million works, no dict per row), then the expressions and the topic guard on the rest."""
    verdict = np.full(len(works), None, dtype=object)
    for step, failing in _filter_steps(works, spec):
        verdict[failing & (verdict == None)] = step   # noqa: E711 (element-wise)
    found = {w: v for w, v in zip(works["work_id"], verdict) if v is not None}
    passing = [w for w, v in zip(works["work_id"], verdict) if v is None]
    include = compile_expression(spec["include"], "filter.include") if spec.get("include") else None
    exclude = compile_expression(spec["exclude"], "filter.exclude") if spec.get("exclude") else None
    texts = _texts(works, terms, passing) if include or exclude else {}
    constant = _constant_topic_works(terms) if spec.get("exclude_constant_topics") else set()
    for work_id in passing:
        if include is not None and not include(texts[work_id]):
            found[work_id] = "filter:include"
        elif exclude is not None and exclude(texts[work_id]):
            found[work_id] = "filter:exclude"
        elif work_id in constant:
            found[work_id] = "filter:constant_topics"
    return found


def screen(works: pd.DataFrame, terms: pd.DataFrame | None, seeds: pd.DataFrame, candidates: pd.DataFrame,
           decisions: dict[str, Decision], filter_spec: dict[str, Any]) -> pd.DataFrame:
    """The screening table of the pooled `works` (at least the `screen_columns` of `filter_spec`; `terms`
    too when they name any): one verdict per work. Pure, no I/O, so the corpus job can feed it just the
    columns it needs and the tests can feed it whole bundles."""
    origins = _origins(seeds, candidates, list(works["work_id"]))
    return decide(origins, _duplicates(works, origins), _verdicts(works, terms, filter_spec), decisions)


def decide(origins: pd.DataFrame, dupes: dict[str, str], verdicts: dict[str, str],
           decisions: dict[str, Decision]) -> pd.DataFrame:
    """The screening table from each work's origin, the works it duplicates, the filter step it fails (the
    failing ones only) and people's decisions, in the order of verdicts the module docstring gives."""
    dup_col, filt_col, excl_col, dec_col, reason_col, incl_col = [], [], [], [], [], []
    for work_id in origins["work_id"]:
        duplicate_of = dupes.get(work_id)
        verdict = None if duplicate_of else verdicts.get(work_id)
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
    screening = origins.assign(duplicate_of=dup_col, filter_verdict=filt_col, excluded_by=excl_col,
                               decision=dec_col, decision_reason=reason_col, included=incl_col)
    return conform(screening, SCREENING)


def build_corpus(pool: Bundle, seeds: pd.DataFrame, candidates: pd.DataFrame,
                 decisions: dict[str, Decision], filter_spec: dict[str, Any]) -> CorpusResult:
    """Screen every pooled work and keep the included ones (in memory: the corpus job screens from a few
    columns and filters the pool's files instead, to the same bytes)."""
    screening = screen(pool.works, pool.terms, seeds, candidates, decisions, filter_spec)
    corpus = pool.subset(screening.loc[screening["included"], "work_id"])
    return CorpusResult(corpus=corpus, screening=screening)


def people_screening(pool, seeds, decisions: dict[str, Decision], stopping_spec: dict[str, Any]) -> dict[str, Any]:
    """People's screening of the works to screen (pooled, not seeds) for PRISMA: how many were screened,
    and where the stopping rule of `stopping_spec` (the spec's `screening.stopping`) first said stop."""
    from .screening.state import state
    from .screening.stopping import screened_by_people

    now = state(pool, seeds, decisions)
    return screened_by_people([label for _, label in now.sequence], now.to_screen,
                              float(stopping_spec["recall"]), float(stopping_spec["confidence"]))


def prisma(seeds: pd.DataFrame, candidates: pd.DataFrame, screening: pd.DataFrame,
           sources: list[dict[str, Any]] | None = None, people: dict[str, Any] | None = None) -> dict[str, Any]:
    """PRISMA 2020-style counts of one corpus build; every step adds up (checked, not assumed).

    `people` (`people_screening`): the works people screened one by one and the stopping rule's say.

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
    if people is not None:
        counts["people"] = people
    if total != len(screening) or len(screened) - sum(by_filter.values()) - by_people != included:
        raise RuntimeError(f"PRISMA counts do not add up: {counts}")
    return counts
