"""The corpus job as it was before it filtered the pool's files in Arrow (pandas for the whole pool,
screening through a dict per work, the bibliography built whole): the reference the corpus job must
equal byte for byte (tests/unit/test_corpus_job.py). Copied from bib2graph.corpus and bib2graph.phases
at 5fe987a; `_origins`, `_duplicates` and the loop of decisions (`decide`) are unchanged there and imported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from bib2graph.atomic import write_json
from bib2graph.corpus import CorpusResult, _duplicates, _origins, decide, people_screening, prisma
from bib2graph.curation import Decision
from bib2graph.curation import read as read_decisions
from bib2graph.expressions import compile_expression, normalize_text
from bib2graph.export.bibliography import entries, write_bibliography
from bib2graph.sources.records import CONSTANT_TOPICS
from bib2graph.tables import CANDIDATES, SCREENING, SEEDS, Bundle, read_table, write_table


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
    origins = _origins(seeds, candidates, pool_ids)
    verdict_of = _screen(pool, filter_spec)
    verdicts = {w: v for w in pool_ids if (v := verdict_of(w)) is not None}
    screening = decide(origins, _duplicates(pool.works, origins), verdicts, decisions)
    corpus = pool.subset(screening.loc[screening["included"], "work_id"])
    return CorpusResult(corpus=corpus, screening=screening)


def run_corpus(spec: dict, inp: dict, out: dict) -> None:
    """The corpus job's outputs as `bib2graph.phases.run_corpus` wrote them at 5fe987a (PRISMA's `people`,
    people's screening and the stopping rule, added since)."""
    seeds, candidates = read_table(inp["seeds"], SEEDS), read_table(inp["candidates"], CANDIDATES)
    decisions = read_decisions(inp["curation"])
    result = build_corpus(Bundle.read(Path(inp["pool"][0]).parent), seeds, candidates, decisions, spec["filter"])
    result.corpus.write(Path(out["tables"][0]).parent)
    write_table(result.screening, SCREENING, out["screening"])
    write_bibliography(entries(result.corpus), out["bibliography"])
    sources = (json.loads(Path(inp["sources"]).read_text(encoding="utf-8"))["counts"]["files"]
               if inp.get("sources") else None)
    people = people_screening(result.screening["work_id"], seeds["work_id"], decisions, spec["stopping"])
    write_json(out["prisma"], prisma(seeds, candidates, result.screening, sources, people))


def run_cited(spec: dict, inp: dict, out: dict) -> None:
    """The cited job's output as `bib2graph.phases.run_cited` wrote it at 5fe987a (a files universe read
    whole; the pool's tables read whole)."""
    from bib2graph.cited import cited_works, look_up
    from bib2graph.sources.universe import FileUniverse
    from bib2graph.tables import BUNDLE_TABLES, CITED, SOURCE_REFS

    pool = {Path(path).stem: read_table(path, BUNDLE_TABLES[Path(path).stem]) for path in inp["pool"]}
    cited = next(p for p in inp["universe"] if p.endswith("/cited.parquet"))

    def lookup(work_ids):
        universe = FileUniverse(Bundle.read(Path(inp["universe"][0]).parent), read_table(cited, SOURCE_REFS))
        return look_up(universe, work_ids)

    table, _ = cited_works(pool["works"], pool["authorships"], pool["references"], spec["min_citing"],
                           spec["labels"]["max_works"], lookup if spec["labels"]["fetch"] else None)
    write_table(table, CITED, out["works"])
