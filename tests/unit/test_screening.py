"""The screening core (issue 21): the stopping rule against a brute-force reading of its definition and
its calibration on random orders, the metrics against plain reference computations, the state of
screening, the labels reader's errors, and the model's determinism on a real pool (SYNERGY Sep_2021).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from bib2graph.curation import Decision
from bib2graph.errors import DataError
from bib2graph.screening import features, labels, metrics, model, simulation, state, stopping

BUNDLED = Path(__file__).resolve().parents[2] / "src/bib2graph/data/synergy/Sep_2021"
MODEL = {"text": {"fields": ["title", "abstract", "keywords"], "ngram_max": 2, "min_df": 1, "max_df": 0.95},
         "network": {"enabled": True, "weight": 0.7, "min_df": 2}, "provenance": {"enabled": True, "weight": 0.3},
         "latent": {"enabled": True, "components": 75, "weight": 1.0}, "C": 0.11, "balance_ratio": 9.8, "seed": 42}


# -- the stopping rule ------------------------------------------------------------------------------

def brute_p(seen: list[int], N: int, tau: float) -> float:
    """The definition, term by term, in exact arithmetic: for every k, the hypergeometric chance of at
    most c_k includes among the last k, from an urn of N − n + k works holding c_k + m includes."""
    n, r = len(seen), sum(seen)
    if r == 0:
        return 1.0
    m = math.floor(r / tau) + 1 - r
    best = Fraction(1)
    for k in range(1, n + 1):
        c = sum(seen[n - k:])
        urn = N - n + k
        K = c + m
        if K > urn:
            return 0.0
        p = sum(Fraction(math.comb(K, i) * math.comb(urn - K, k - i), math.comb(urn, k)) for i in range(c + 1))
        best = min(best, p)
    return float(best)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=40), st.integers(0, 30),
       st.sampled_from([0.8, 0.9, 0.95]))
def test_p_value_is_the_definition(seen, unseen, tau):
    N = len(seen) + unseen
    assert stopping.p_value(seen, N, tau) == pytest.approx(brute_p(seen, N, tau), rel=1e-9, abs=1e-12)


@pytest.mark.long
def test_the_rule_is_calibrated_on_random_orders():
    """Screening in a random order (the rule's null model): where it first says stop, recall is ≥ 95% in
    at least 95% of the runs that stopped."""
    rng = np.random.Generator(np.random.PCG64(7))
    held = stopped = 0
    for _ in range(150):
        N, R = 120, int(rng.integers(5, 30))
        order = rng.permutation(np.r_[np.ones(R, dtype=np.int64), np.zeros(N - R, dtype=np.int64)])
        at = stopping.first_stop(order, N, 0.95, 0.95)
        if at is not None:
            stopped += 1
            held += order[:at].sum() / R >= 0.95
    assert stopped >= 100 and held / stopped >= 0.95


def test_more_to_screen_is_where_the_rule_first_says_stop():
    seen = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1] + [0] * 5
    N = 200
    verdict = stopping.test(seen, N)
    assert not verdict.stop and verdict.more_to_screen is not None
    k = verdict.more_to_screen
    assert stopping.p_value(seen + [0] * k, N) < 0.05 <= stopping.p_value(seen + [0] * (k - 1), N)
    assert verdict.excludes_in_a_row == 5
    assert stopping.test([0, 0], 1000).more_to_screen is None      # no include yet: nothing can show recall
    described = stopping.test(seen + [0] * k, N).describe()
    assert described["stop"] and described["verdict"].startswith("safe to stop")


# -- metrics -----------------------------------------------------------------------------------------

def reference_wss(seq: list[int], r: float) -> float:
    """WSS as asreview-insights defines it, by counting: positions where k includes are reached."""
    N, R = len(seq), sum(seq)
    chance = [round(x) for x in np.linspace(0, R, N)]
    k = max(j for j in range(0, R + 1) if j / R <= r + 1e-12)
    if k == 0:
        return 0.0
    ours = next(i for i in range(N) if sum(seq[:i + 1]) >= k)
    theirs = next(i for i in range(N) if chance[i] >= k)
    return (theirs - ours) / N


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=2, max_size=80).filter(lambda s: sum(s) > 0))
def test_metrics_are_their_definitions(seq):
    assert metrics.wss(seq, 0.95) == pytest.approx(reference_wss(seq, 0.95))
    N, R = len(seq), sum(seq)
    assert metrics.recall_at(seq, 0.1) == pytest.approx(sum(seq[:math.floor(0.1 * N)]) / R)
    positions = [i + 1 for i, v in enumerate(seq) if v]
    assert metrics.atd(seq) == pytest.approx((sum(positions) / R, sum(positions) / R / N))
    assert metrics.recall_curve(seq)[-1] == 1.0


def test_a_perfect_order_saves_what_it_should():
    seq = [1] * 20 + [0] * 180
    assert metrics.wss(seq) == pytest.approx((np.searchsorted(np.round(np.linspace(0, 20, 200)), 19) - 18) / 200)
    assert metrics.recall_at(seq) == 1.0
    with pytest.raises(ValueError):
        metrics.wss([0, 0, 0])


# -- state ---------------------------------------------------------------------------------------------

def test_state_orders_decisions_by_time_then_id_and_counts_seeds_as_includes():
    decisions = {"W5": Decision("W5", "accept", "", "a", "2026-01-02T00:00:00Z"),
                 "W3": Decision("W3", "reject", "", "a", "2026-01-01T00:00:00Z"),
                 "W4": Decision("W4", "reject", "", "a", "2026-01-01T00:00:00Z"),
                 "W2": Decision("W2", "reject", "", "a", ""),              # no time: first
                 "W1": Decision("W1", "reject", "", "a", "2026-01-03T00:00:00Z"),   # a seed rejected
                 "W99": Decision("W99", "accept", "", "a", "")}           # outside the pool: left out
    now = state.state({f"W{i}" for i in range(1, 9)}, {"W1", "W8"}, decisions)
    assert now.includes == ["W5", "W8"] and now.excludes == ["W1", "W2", "W3", "W4"]
    assert now.sequence == [("W2", 0), ("W3", 0), ("W4", 0), ("W5", 1)]
    assert now.to_screen == 6 and now.waiting == ["W6", "W7"] and now.trainable
    assert not state.state({"W1", "W2"}, {"W1"}, {}).trainable


# -- labels ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, line, words", [
    ("openalex_id,label_included\nW1,2\n", 2, "label"),
    ("title,label_included\nx,1\n", 1, "openalex_id"),
    ("openalex_id,doi,label_included\n,,1\n", 2, "no"),
    ("openalex_id,label_included\nW1,1\nW1,0\n", 3, "W1"),
])
def test_a_bad_labels_file_names_its_line(tmp_path, text, line, words):
    path = tmp_path / "labels.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        labels.read(path, {"W1"}, {})
    assert caught.value.code == "LABELS_INVALID" and caught.value.details["line"] == line
    assert words.lower() in str(caught.value).lower()


def test_a_cell_past_the_csv_modules_limit_is_labels_invalid(tmp_path):
    """It was INTERNAL. The limit is the process's (other code may raise it): set to the default here."""
    import csv

    path = tmp_path / "labels.csv"
    path.write_text("openalex_id,label_included\nW1,1\nW2," + "x" * 200_000 + "\n", encoding="utf-8")
    before = csv.field_size_limit(131_072)
    try:
        with pytest.raises(DataError) as caught:
            labels.read(path, {"W1"}, {})
    finally:
        csv.field_size_limit(before)
    assert caught.value.code == "LABELS_INVALID" and caught.value.details["line"] == 3
    assert "not readable as CSV" in caught.value.message


def test_a_labels_path_that_is_no_file_is_refused_unread(tmp_path):
    """A folder, a device (/dev/zero was read until memory ran out) or a FIFO (read would wait for a
    writer forever) is no labels file."""
    fifo = tmp_path / "labels.fifo"
    os.mkfifo(fifo)
    for path, says in ((tmp_path, "is a folder"), (Path("/dev/zero"), "not a regular file"),
                       (fifo, "not a regular file")):
        with pytest.raises(DataError) as caught:
            labels.read(path, {"W1"}, {})
        assert caught.value.code == "LABELS_INVALID" and says in caught.value.message
        assert caught.value.details["file"] == str(path)


@pytest.mark.parametrize("text", ["openalex_id;doi;label_included\nW1;;1\n;10.1/AB;0\n",
                                  "sep=;\nopenalex_id;doi;label_included\nW1;;1\n;10.1/AB;0\n",
                                  "openalex_id\tdoi\tlabel_included\nW1\t\t1\n\t10.1/AB\t0\n"])
def test_labels_saved_by_a_european_excel_or_as_text_are_read(tmp_path, text):
    path = tmp_path / "labels.csv"
    path.write_text(text, encoding="utf-8")
    found = labels.read(path, {"W1", "W2"}, {"10.1/ab": "W2"})
    assert found.table.to_dict("list") == {"work_id": ["W1", "W2"], "label": [1, 0]}


def test_labels_match_by_id_then_doi_and_count_the_rest(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("openalex_id,doi,label_included\nhttps://openalex.org/W1,,1\n,10.1/AB,0\nW7,,1\n",
                    encoding="utf-8")
    found = labels.read(path, {"W1", "W2"}, {"10.1/ab": "W2"})
    assert found.table.to_dict("list") == {"work_id": ["W1", "W2"], "label": [1, 0]}
    assert (found.rows, found.unmatched) == (3, 1)


# -- the model on a real pool -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sep():
    """SYNERGY's Sep_2021 (CC0, bundled): its works as a pool, and its labels."""
    found = features.build(*_tables(), None, MODEL)
    truth = pd.read_csv(BUNDLED / "labels.csv")
    truth = pd.DataFrame({"work_id": truth["openalex_id"].str.rsplit("/", n=1).str[-1],
                          "label": truth["label_included"]})
    return found, truth[truth["work_id"].isin(set(found.work_ids))]


@pytest.mark.long
def test_the_same_decisions_give_the_same_ranking_and_why(sep):
    found, truth = sep
    index = found.index()
    inc = [index[w] for w in truth[truth.label == 1].work_id[:3]]
    exc = [index[w] for w in truth[truth.label == 0].work_id[:10]]
    pending = np.setdiff1d(np.arange(len(found)), inc + exc)
    first = model.fit(found, inc, exc, MODEL)
    rows, scores = model.rank(first, pending)
    again = model.fit(features.build(*_tables(), None, MODEL), inc, exc, MODEL)   # built anew
    rows2, scores2 = model.rank(again, pending)
    assert rows.tolist() == rows2.tolist() and scores.tobytes() == scores2.tobytes()
    assert model.explain(first, rows[:20]) == model.explain(again, rows2[:20])
    assert not np.array_equal(rows, pending)         # ranked, not in ID order
    # ties go by work ID: equal scores appear in row (= work ID) order
    for a, b, sa, sb in zip(rows, rows[1:], scores, scores[1:]):
        assert sa > sb or (sa == sb and a < b)


def bundle():
    """Sep_2021's works as the tables of a pool."""
    from bib2graph.skips import Skips
    from bib2graph.sources.records import bundle_from_works
    from tests.snapshot_builder import synergy_works

    return bundle_from_works(synergy_works(*sorted(BUNDLED.glob("works_*.zip"))), Skips())


def _tables():
    found = bundle()
    return found.works, found.terms, found.references


def test_the_latent_block_ranks_a_work_by_its_theme_where_no_word_is_shared():
    """Latent semantic analysis: the include says "car", a pending work "automobile"; the words meet only
    in other works. Without the block the two pending works share no word with a decision and tie;
    with it (two components: the pool's two themes), the work of the include's theme ranks first. Rows of
    the block have unit length; a pool with fewer terms than components gets fewer."""
    docs = ["car", "banana"] + ["automobile", "orange"] + ["car automobile vehicle"] * 6 + ["banana orange fruit"] * 6
    works = pd.DataFrame({"work_id": [f"W{i:02d}" for i in range(len(docs))], "title": docs, "abstract": None})
    no_refs = pd.DataFrame({"work_id": pd.Series(dtype=object), "referenced_id": pd.Series(dtype=object)})
    scores = {}
    for enabled in (True, False):
        settings = {**MODEL, "latent": {"enabled": enabled, "components": 2, "weight": 1.0}}
        found = features.build(works, None, no_refs, None, settings)
        fitted = model.fit(found, [0], [1], settings)
        scores[enabled] = fitted.scores(np.array([2, 3]))
        if enabled:
            assert found.latent.shape == (len(docs), 2)
            assert np.allclose(np.linalg.norm(found.latent, axis=1), 1.0)
    assert scores[False][0] == scores[False][1]
    assert scores[True][0] > scores[True][1]
    assert features.build(works[:3], None, no_refs, None, MODEL).latent.shape == (3, 2)   # 3 terms: 2 vectors


def test_the_latent_block_is_the_same_whatever_threads_the_process_has(sep):
    """A CLI call, the API server and a Snakemake job give BLAS different thread counts; the block (and so
    the queue's bytes) must not depend on it."""
    from threadpoolctl import threadpool_limits

    found, _ = sep
    blocks = []
    for threads in (1, 2, 4):
        with threadpool_limits(limits=threads, user_api="blas"):
            blocks.append(features._latent_block(found.text, MODEL["latent"]["components"], MODEL["seed"]))
    assert blocks[0].tobytes() == blocks[1].tobytes() == blocks[2].tobytes() == found.latent.tobytes()


def test_why_ranked_names_real_links_and_positive_terms(sep):
    found, truth = sep
    index = found.index()
    inc = np.array(sorted(index[w] for w in truth[truth.label == 1].work_id[:8]))
    exc = np.array(sorted(index[w] for w in truth[truth.label == 0].work_id[:20]))
    fitted = model.fit(found, inc, exc, MODEL)
    rows, _ = model.rank(fitted, np.setdiff1d(np.arange(len(found)), np.r_[inc, exc]))
    cites, refs = found.cites.toarray(), found.references.toarray()
    for row, why in zip(rows[:30], model.explain(fitted, rows[:30])):
        assert all(t["weight"] > 0 for t in why["terms"])
        for link in why["linked_includes"]:
            j = index[link["work_id"]]
            assert j in inc
            shared = int((refs[row] * refs[j]).sum())
            cocited = int((cites[:, row] * cites[:, j]).sum())
            assert link["strength"] == cites[row, j] + cites[j, row] + shared + cocited > 0
        linked = sum(1 for j in inc if cites[row, j] or cites[j, row] or (refs[row] * refs[j]).sum()
                     or (cites[:, row] * cites[:, j]).sum())
        assert why["linked_includes_total"] == linked


@pytest.mark.long
def test_simulation_replays_deterministically_and_finds_everything(sep):
    found, truth = sep
    runs = simulation.simulate(found, truth, MODEL, 1, [0, 1], 0.95, 0.95)
    again = simulation.simulate(found, truth, MODEL, 1, [0, 1], 0.95, 0.95)
    assert [r.order.tolist() for r in runs] == [r.order.tolist() for r in again]
    for run in runs:
        assert run.labels.sum() == truth.label.sum() - 1            # every include but the prior
        summary = run.summary(0.95, 0.95)
        seq = np.r_[run.labels, np.zeros(run.to_screen - len(run.labels), dtype=np.int64)]
        assert summary["wss95"] == pytest.approx(round(metrics.wss(seq), 6))
        if summary["stopped_at"] is not None:
            assert stopping.p_value(seq[:summary["stopped_at"]], run.to_screen) < 0.05
    assert runs[0].priors != runs[1].priors


@pytest.mark.parametrize("refit", [0.0, 0.1])
def test_a_replay_refits_as_its_share_says_and_takes_the_last_fits_order_between(sep, monkeypatch, refit):
    """`refit`: a fit once the decisions since the last reach max(1, floor(refit · decided)), decided
    counting the priors; in between, the works come in the order the last fit ranked them."""
    found, truth = sep
    fits: list[int] = []
    real = model.fit

    def counted(features_, included, excluded, settings):
        fits.append(len(included) + len(excluded))
        return real(features_, included, excluded, settings)

    monkeypatch.setattr(model, "fit", counted)
    run = simulation.simulate(found, truth, MODEL, 1, [0], 0.95, 0.95, refit=refit)[0]
    monkeypatch.setattr(model, "fit", real)
    expected, decided, since = [2], 2, 0
    for _ in range(len(run.order) - 1):
        since += 1
        if since >= max(1, int(refit * (decided + since))):
            decided, since = decided + since, 0
            expected.append(decided)
    assert fits == expected
    assert (len(fits) == len(run.order)) == (refit == 0) and len(run.order) > 50
    index, label = found.index(), dict(zip(truth.work_id, truth.label))
    priors = [index[w] for w in run.priors]
    rows = np.array(sorted(index[w] for w in truth.work_id))
    for start, end in zip(expected, expected[1:] + [2 + len(run.order)]):
        known = set(priors) | set(run.order[:start - 2].tolist())
        inc = sorted(r for r in known if label[found.work_ids[r]] == 1)
        ranked, _ = model.rank(model.fit(found, inc, sorted(set(known) - set(inc)), MODEL),
                               np.array([r for r in rows if r not in known]))
        assert run.order[start - 2:end - 2].tolist() == ranked[:end - start].tolist()


def test_with_nothing_left_to_screen_the_verdict_says_so():
    """Every work screened (or none to screen: a universe taken whole) leaves nothing to screen: the
    verdict says so instead of "keep screening"; the rule's own answer (`stop`) is unchanged."""
    from bib2graph.screening import stopping

    for labels, to_screen in (([], 0), ([0], 1), ([0, 0], 2)):
        described = stopping.test(labels, to_screen).describe()
        assert not described["stop"] and described["stop"] == (stopping.p_value(labels, to_screen) < 0.05)
        assert described["verdict"].startswith("nothing left to screen"), (labels, described)
    assert stopping.test([1, 0], 10).describe()["verdict"].startswith("keep screening")
