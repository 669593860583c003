import pandas as pd

from bib2graph.chain import chain
from bib2graph.corpus import build_corpus
from bib2graph.curation import Decision
from bib2graph.spec import validate
from bib2graph.tables import SEEDS, conform

from ..conftest import DEMO_LABELS, included_ids

FILTERS = validate({})["filter"]


def _pool(universe, n_seeds=10):
    seeds = included_ids(DEMO_LABELS)[:n_seeds]
    result = chain(universe, seeds, {"direction": "both", "depth": 1, "max_candidates": 1000, "min_links": 1})
    seed_table = conform(pd.DataFrame({"work_id": seeds, "seeded_by": "id"}), SEEDS)
    return universe.records(seeds + result.admitted), seed_table, result.candidates


def test_every_pooled_work_is_screened_and_included_by_default(demo_universe):
    pool, seeds, cands = _pool(demo_universe)
    result = build_corpus(pool, seeds, cands, {}, FILTERS)
    assert len(result.screening) == len(pool.works)
    assert set(result.corpus.works.work_id) == set(result.screening[result.screening.included].work_id)
    assert set(result.screening[result.screening.origin == "seed"].work_id) == set(seeds.work_id)


def test_reject_excludes_and_accept_beats_a_filter(demo_universe):
    pool, seeds, cands = _pool(demo_universe)
    victim = sorted(pool.works.work_id)[3]
    years = pool.works.set_index("work_id")["year"]
    old = years.idxmin()
    filters = {**FILTERS, "year_min": int(years.min()) + 1}
    decisions = {victim: Decision(victim, "reject", "off-topic"), old: Decision(old, "accept", "classic")}
    result = build_corpus(pool, seeds, cands, decisions, filters)
    screen = result.screening.set_index("work_id")
    assert not screen.loc[victim, "included"]
    assert screen.loc[victim, "decision_reason"] == "off-topic"
    assert victim not in set(result.corpus.works.work_id)
    assert victim not in set(result.corpus.references.work_id)
    assert screen.loc[old, "included"]  # human accept wins over filter:year_min
    others = screen[(screen.index != old) & (pool.works.set_index("work_id").loc[screen.index, "year"]
                                             < filters["year_min"])]
    assert (others.excluded_by == "filter:year_min").all() and not others.included.any()


def test_duplicate_dois_keep_the_seed(demo_universe):
    pool, seeds, cands = _pool(demo_universe)
    seed_id = seeds.work_id.iloc[0]
    other = sorted(set(pool.works.work_id) - set(seeds.work_id))[0]
    works = pool.works.copy()
    doi = works.loc[works.work_id == seed_id, "doi"].iloc[0] or "10.9999/dup"
    works.loc[works.work_id.isin([seed_id, other]), "doi"] = doi
    pool.works = works
    result = build_corpus(pool, seeds, cands, {}, FILTERS)
    screen = result.screening.set_index("work_id")
    assert screen.loc[other, "duplicate_of"] == seed_id and not screen.loc[other, "included"]
    assert screen.loc[seed_id, "included"]


def test_term_filters_and_prisma_add_up_on_a_real_corpus(demo_universe):
    from bib2graph.corpus import prisma

    pool, seeds, cands = _pool(demo_universe, n_seeds=40)
    works = pool.works.set_index("work_id")
    victim = sorted(works.index)[0]
    filters = {**FILTERS, "include": "perirhinal OR hippocamp*", "exclude": "review",
               "year_min": 1990}
    decisions = {victim: Decision(victim, "reject", "off-topic")}
    result = build_corpus(pool, seeds, cands, decisions, filters)
    screen = result.screening.set_index("work_id")
    counts = prisma(seeds, cands, result.screening)
    assert counts["identified"]["total"] == len(pool.works) == len(screen)
    assert counts["screened"] - sum(counts["excluded_by_filter"].values()) - counts["excluded_by_people"] \
        == counts["included"] == len(result.corpus.works)
    for step, n in counts["excluded_by_filter"].items():
        assert n == int((screen.excluded_by == step).sum())
    assert counts["excluded_by_filter"].get("filter:include", 0) > 0
    for work_id, row in screen.iterrows():
        text = " ".join(str(x) for x in (works.loc[work_id, "title"], works.loc[work_id, "abstract"]) if x).lower()
        if row.excluded_by == "filter:exclude":
            assert "review" in text


def test_constant_topic_guard(demo_universe):
    import pandas as pd

    from bib2graph.sources.records import CONSTANT_TOPICS

    pool, seeds, cands = _pool(demo_universe)
    target = sorted(set(pool.works.work_id) - set(seeds.work_id))[0]
    extra = pd.DataFrame({"work_id": target, "field": "topics", "term_id": sorted(CONSTANT_TOPICS),
                          "term": "x", "score": 0.9})
    pool.terms = pd.concat([pool.terms, extra], ignore_index=True)
    off = build_corpus(pool, seeds, cands, {}, FILTERS).screening.set_index("work_id")
    on = build_corpus(pool, seeds, cands, {}, {**FILTERS, "exclude_constant_topics": True}).screening
    on = on.set_index("work_id")
    assert off.loc[target, "included"] and on.loc[target, "excluded_by"] == "filter:constant_topics"
    assert int((~on.included).sum()) == 1
