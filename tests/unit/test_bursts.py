"""Kleinberg burst detection against a plain implementation written here, on real yearly counts."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.temporal.bursts import detect, states

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SETTINGS = [(2.0, 1.0, 2), (3.0, 0.5, 1), (1.5, 2.0, 1), (2.0, 0.2, 3)]


def plain_kleinberg(r: list[int], d: list[int], s: float, gamma: float):
    """Kleinberg (2003) §4, two states, written out year by year with no arrays."""
    n = len(r)
    p0 = min(sum(r) / sum(d), 1 - 1e-9)
    p = [p0, min(s * p0, 1 - 1e-9)]

    def sigma(i, t):
        if d[t] == 0:
            return 0.0
        choose = math.lgamma(d[t] + 1) - math.lgamma(r[t] + 1) - math.lgamma(d[t] - r[t] + 1)
        return -(choose + r[t] * math.log(p[i]) + (d[t] - r[t]) * math.log(1 - p[i]))

    def tau(i, j):
        return (j - i) * gamma * math.log(n) if j > i else 0.0

    cost = [tau(0, j) + sigma(j, 0) for j in (0, 1)]
    paths = [[0], [1]]
    for t in range(1, n):
        new_cost, new_paths = [], []
        for j in (0, 1):
            options = [(cost[i] + tau(i, j), i) for i in (0, 1)]
            # ties: prefer coming from the base state (docs/networks.md: ties go to the base state)
            best = min(options, key=lambda o: (o[0], o[1]))
            new_cost.append(best[0] + sigma(j, t))
            new_paths.append(paths[best[1]] + [j])
        cost, paths = new_cost, new_paths
    seq = paths[1] if cost[1] < cost[0] else paths[0]
    return seq, [sigma(0, t) - sigma(1, t) for t in range(n)]


def plain_bursts(seq, gain, item, min_duration):
    out, t = [], 0
    while t < len(seq):
        if seq[t]:
            start = t
            while t < len(seq) and seq[t]:
                t += 1
            if t - start >= min_duration:
                out.append((item, start, t - 1, sum(gain[start:t])))
        else:
            t += 1
    return out


def yearly(bundle, items: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """r (items × years) and d (works per year) from (work_id, item) rows of works with a year."""
    works = bundle.works.dropna(subset=["year"])
    years = np.arange(int(works["year"].min()), int(works["year"].max()) + 1)
    d = works["year"].astype(int).value_counts().reindex(years, fill_value=0).to_numpy()
    rows = items.merge(works[["work_id", "year"]], on="work_id").drop_duplicates(["work_id", "item"])
    table = pd.crosstab(rows["item"], rows["year"].astype(int)).reindex(columns=years, fill_value=0)
    table = table[table.sum(axis=1) >= 5].sort_index()
    return list(table.index), table.to_numpy(), d


@pytest.fixture(scope="module")
def real_series():
    path = SHARED / "synergy" / "van_der_Valk_2021" / "works_1.zip"
    bundle = bundle_from_works(read_work_objects(path))
    refs = bundle.references.rename(columns={"referenced_id": "item"})[["work_id", "item"]]
    terms = bundle.terms.assign(item=bundle.terms["field"] + ":" + bundle.terms["term_id"])[["work_id", "item"]]
    return {"references": yearly(bundle, refs), "terms": yearly(bundle, terms)}


@pytest.mark.parametrize("s,gamma,min_duration", SETTINGS)
@pytest.mark.parametrize("what", ["references", "terms"])
def test_matches_plain_kleinberg_on_real_counts(real_series, what, s, gamma, min_duration):
    names, r, d = real_series[what]
    assert len(names) > 20 and len(d) > 10
    ours = detect(r, d, s, gamma, min_duration)
    theirs = []
    for item in range(len(names)):
        seq, gain = plain_kleinberg(r[item].tolist(), d.tolist(), s, gamma)
        theirs += plain_bursts(seq, gain, item, min_duration)
    assert [(b.item, b.begin, b.end) for b in ours] == [t[:3] for t in theirs]
    assert np.allclose([b.strength for b in ours], [t[3] for t in theirs], rtol=1e-12, atol=1e-9)
    assert all(b.strength > 0 for b in ours)


def test_real_counts_have_bursts(real_series):
    """The comparison above is not vacuous: the real series burst under CiteSpace's defaults."""
    names, r, d = real_series["references"]
    assert len(detect(r, d)) >= 3


def test_viterbi_is_the_least_cost_sequence():
    """On short series, the sequence found costs no more than any of the 2^n sequences."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        d = rng.integers(0, 30, n)
        r = np.minimum(d, rng.poisson(3, n))
        if r.sum() == 0:
            continue
        s, gamma = float(rng.choice([1.5, 2, 4])), float(rng.choice([0.1, 1, 2]))
        seq, _ = plain_kleinberg(r.tolist(), d.tolist(), s, gamma)

        def total(states_):
            p0 = min(r.sum() / d.sum(), 1 - 1e-9)
            p = [p0, min(s * p0, 1 - 1e-9)]
            c, prev = 0.0, 0
            for t, j in enumerate(states_):
                c += (j - prev) * gamma * math.log(n) if j > prev else 0.0
                if d[t]:
                    c -= (math.lgamma(d[t] + 1) - math.lgamma(r[t] + 1) - math.lgamma(d[t] - r[t] + 1)
                          + r[t] * math.log(p[j]) + (d[t] - r[t]) * math.log(1 - p[j]))
                prev = j
            return c
        best = min(total(c) for c in itertools.product((0, 1), repeat=n))
        assert total(seq) == pytest.approx(best, rel=1e-12, abs=1e-9)
        ours = states(r[None, :], d, s, gamma)[0].astype(int).tolist()
        assert total(ours) == pytest.approx(best, rel=1e-12, abs=1e-9)


def test_a_burst_does_not_start_in_years_without_works():
    """Years that hold no works cost nothing in either state, so a burst entered before them and one
    entered after them cost the same: the tie goes to the base state, and the burst starts with the
    first year that has works (the 1972–2003 reported where 1978–2003 cost the same)."""
    d = np.array([50, 50, 0, 0, 0, 0, 0, 50, 50, 50, 50, 50, 50])
    r = np.array([2, 2, 0, 0, 0, 0, 0, 20, 22, 20, 21, 2, 2])
    burst = states(r[None, :], d)[0]
    assert burst[7:11].all() and not burst[:7].any() and not burst[11:].any()
    found = detect(r[None, :], d)
    assert [(b.begin, b.end) for b in found] == [(7, 10)]
    rng = np.random.default_rng(5)
    for _ in range(200):
        d = rng.integers(0, 20, 15) * (rng.random(15) > 0.4)
        r = np.minimum(d, rng.poisson(4, 15))
        if r.sum() == 0:
            continue
        burst = states(r[None, :], d)[0]
        starts = np.flatnonzero(burst & ~np.concatenate([[False], burst[:-1]]))
        assert all(d[t] > 0 for t in starts), (d.tolist(), r.tolist(), burst.astype(int).tolist())


def test_flat_series_never_bursts():
    d = np.full(12, 40)
    r = np.full((3, 12), 4)
    assert not states(r, d).any()


def test_bad_counts_are_refused():
    with pytest.raises(ValueError):
        states(np.array([[5, 1]]), np.array([3, 3]))
    with pytest.raises(ValueError):
        states(np.array([[1, 1]]), np.array([3, 3]), s=1.0)
