import pandas as pd

from bib2graph.chain import chain

from ..conftest import DEMO_LABELS, included_ids

BOTH = {"direction": "both", "depth": 1, "max_candidates": 10_000, "min_links": 1}


def _neighbours(universe, works):
    """Independent reading of depth-1 chaining: universe works citing or cited by `works`."""
    refs = universe.bundle.references
    inside = refs[refs.referenced_id.isin(universe.ids)]
    cited = set(inside[inside.work_id.isin(works)].referenced_id)
    citing = set(inside[inside.referenced_id.isin(works)].work_id)
    return (cited | citing) - set(works), cited - set(works), citing - set(works)


def test_depth_one_admits_exactly_the_citation_neighbours(demo_universe):
    seeds = included_ids(DEMO_LABELS)
    result = chain(demo_universe, seeds, BOTH)
    expected, cited, citing = _neighbours(demo_universe, seeds)
    assert set(result.admitted) == expected
    cands = result.candidates.set_index("work_id")
    for work_id in expected:
        row = cands.loc[work_id]
        assert row["round"] == 1
        want = "both" if work_id in cited and work_id in citing else ("backward" if work_id in cited else "forward")
        assert row["direction"] == want
        refs = set(demo_universe.references([work_id])[work_id])
        via = set(row["via"].split())
        assert via and via <= set(seeds)
        assert all(v in refs or work_id in demo_universe.references([v])[v] for v in via)


def test_direction_restricts(demo_universe):
    seeds = included_ids(DEMO_LABELS)
    _, cited, citing = _neighbours(demo_universe, seeds)
    assert set(chain(demo_universe, seeds, {**BOTH, "direction": "backward"}).admitted) == cited
    assert set(chain(demo_universe, seeds, {**BOTH, "direction": "forward"}).admitted) == citing
    assert chain(demo_universe, seeds, {**BOTH, "direction": "none"}).admitted == []


def test_cap_keeps_the_best_ranked(demo_universe):
    seeds = included_ids(DEMO_LABELS)
    full = chain(demo_universe, seeds, BOTH).candidates
    capped = chain(demo_universe, seeds, {**BOTH, "max_candidates": 5})
    ranked = full.sort_values(["links", "score", "work_id"], ascending=[False, False, True])
    assert capped.admitted == sorted(ranked.work_id.head(5))
    assert int(capped.candidates.admitted.sum()) == 5


def test_depth_two_chains_from_round_one(demo_universe):
    seeds = included_ids(DEMO_LABELS)[:5]
    one = chain(demo_universe, seeds, BOTH)
    two = chain(demo_universe, seeds, {**BOTH, "depth": 2})
    round2 = two.candidates[(two.candidates["round"] == 2) & two.candidates.admitted]
    expected, _, _ = _neighbours(demo_universe, one.admitted)
    assert set(round2.work_id) == expected - set(seeds) - set(one.admitted)
    assert all(set(v.split()) <= set(one.admitted) for v in round2.via)


def test_chaining_is_deterministic(demo_universe):
    seeds = included_ids(DEMO_LABELS)
    a = chain(demo_universe, seeds, {**BOTH, "max_candidates": 7}).candidates
    b = chain(demo_universe, list(reversed(seeds)), {**BOTH, "max_candidates": 7}).candidates
    pd.testing.assert_frame_equal(a, b)


def test_max_citing_keeps_the_best_linked_citers(demo_universe):
    seeds = included_ids(DEMO_LABELS)
    forward = {**BOTH, "direction": "forward"}
    free = chain(demo_universe, seeds, forward)
    capped = chain(demo_universe, seeds, {**forward, "max_citing": 1})
    citing = demo_universe.citing(seeds)
    refs = demo_universe.references(sorted({c for cs in citing.values() for c in cs}))
    expected = set()
    for seed, citers in citing.items():
        outside = [c for c in citers if c not in seeds]
        if outside:
            expected.add(min(outside, key=lambda c: (-len(set(refs[c]) & set(seeds)), c)))
    assert set(capped.admitted) == expected
    assert len(capped.admitted) < len(free.admitted)


def test_saturation_stops_early(demo_universe):
    seeds = included_ids(DEMO_LABELS)[:5]
    result = chain(demo_universe, seeds, {**BOTH, "depth": 4, "min_new": 10_000})
    assert len(result.rounds) == 1 and result.rounds[0]["saturated"] is True
