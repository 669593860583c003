"""Cluster labels and the cluster table against plain reference computations, on real corpora.

The references below re-derive each definition of docs/networks.md ("Cluster labels", "Cluster table")
with loops over Python sets and `math`, never through the module's matrices: Dunning's G² cell by cell,
BERTopic's c-TF-IDF class by class, and the silhouette through scikit-learn's `silhouette_samples` on
the distance matrix the definition names.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import silhouette_samples

from bib2graph.networks import build
from bib2graph.networks.cluster_names import REPORTING_WORDS, documents, phrases
from bib2graph.networks.generic_terms import GENERIC_NAMES, LEVEL0_CONCEPTS, is_generic
from bib2graph.networks.params import resolve_labels
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works

ROOT = Path(__file__).resolve().parents[2]
SEP = ROOT / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
DONNERS = ROOT.parent / "shared/data/synergy/Donners_2021/works_1.zip"
FAST = {"stability_runs": 1}


@pytest.fixture(scope="module", params=[SEP, DONNERS], ids=["Sep_2021", "Donners_2021"])
def corpus(request):
    return bundle_from_works(read_work_objects(request.param))


def _stop() -> set[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return set(ENGLISH_STOP_WORDS) | set(REPORTING_WORDS)


def _terms_of(corpus, settings) -> dict[str, set[str]]:
    """Each work's terms, as the definition says: n-grams of title and abstract, keywords, no generic."""
    stop = _stop()
    found: dict[str, set[str]] = defaultdict(set)
    for row in corpus.works.itertuples(index=False):
        for field in ("title", "abstract"):
            text = getattr(row, field)
            if field in settings["fields"] and isinstance(text, str):
                found[row.work_id] |= set(phrases(text, frozenset(stop), settings["ngrams"]))
    keyword_fields = {"keywords", "author_keywords", "index_keywords"} if "keywords" in settings["fields"] else set()
    for row in corpus.terms.itertuples(index=False):
        if row.field in keyword_fields and isinstance(row.term, str):
            found[row.work_id].add(" ".join(row.term.split()).casefold())
    return {w: {t for t in ts if t and t not in stop and t.casefold() not in GENERIC_NAMES} for w, ts in found.items()}


def _g2(a: int, n: int, b: int, rest: int) -> float:
    """Dunning's G² of the 2 × 2 table (a, n − a; b, rest − b), cell by cell."""
    cells = [[a, n - a], [b, rest - b]]
    total = n + rest
    rows = [n, rest]
    cols = [a + b, total - a - b]
    g2 = 0.0
    for r in range(2):
        for c in range(2):
            observed = cells[r][c]
            if observed > 0:
                g2 += observed * math.log(observed / (rows[r] * cols[c] / total))
    return 2 * g2


def _reference_scores(net, corpus, settings) -> dict[int, dict[str, float]]:
    """cluster → {term: score} for every candidate term, by the plain definitions."""
    cluster_of = dict(zip(net.nodes["node_id"], net.nodes["cluster"]))
    docs: dict[int, set[str]] = defaultdict(set)
    corpus_ids = set(corpus.works["work_id"])
    for node, cluster in cluster_of.items():
        if node in corpus_ids:
            docs[int(cluster)].add(node)
    universe = set().union(*docs.values())
    terms = _terms_of(corpus, settings)
    labelled = [c["cluster"] for c in net.metrics["clusters"]]
    carriers: dict[str, set[str]] = defaultdict(set)
    for work in universe:
        for t in terms.get(work, ()):
            carriers[t].add(work)
    out: dict[int, dict[str, float]] = {}
    if settings["method"] == "llr":
        for c in labelled:
            n, rest = len(docs[c]), len(universe) - len(docs[c])
            scores = {}
            for t, holders in carriers.items():
                a = len(holders & docs[c])
                b = len(holders) - a
                if a >= settings["min_works"] and a * rest > b * n:
                    scores[t] = _g2(a, n, b, rest)
            out[c] = scores
        return out
    classes = {c: docs[c] for c in labelled}
    singles = set().union(*(docs[c] for c in docs if c not in labelled)) if len(docs) > len(labelled) else None
    counts = {c: {t: len(h & members) for t, h in carriers.items()} for c, members in classes.items()}
    if singles is not None:
        counts["rest"] = {t: len(h & singles) for t, h in carriers.items()}
    sums = {c: sum(v.values()) for c, v in counts.items()}
    average = sum(sums.values()) / len(sums)
    frequency = {t: sum(counts[c][t] for c in counts) for t in carriers}
    for c in labelled:
        out[c] = {t: counts[c][t] / sums[c] * math.log(1 + average / frequency[t])
                  for t in carriers if counts[c][t] >= settings["min_works"] and frequency[t] > 0}
    return out


@pytest.mark.parametrize("method", ["llr", "ctfidf"])
def test_term_scores_equal_a_plain_computation(corpus, method):
    settings = resolve_labels({"method": method})
    net = build("coupling", corpus, {}, {**FAST, "labels": settings})
    reference = _reference_scores(net, corpus, settings)
    assert net.metrics["clusters"], "the corpus has clusters to name"
    named = 0
    for entry in net.metrics["clusters"]:
        ref = {t: s for t, s in reference[entry["cluster"]].items() if s > 0}
        for term in entry["terms"]:
            assert term["score"] == pytest.approx(ref[term["term"]], rel=1e-9), (entry["cluster"], term)
        if entry["terms"]:
            named += 1
            best = max(ref.values())
            assert entry["terms"][0]["score"] == pytest.approx(best, rel=1e-9)   # the best term leads
            assert entry["label"].split("; ")[0] == entry["terms"][0]["term"]
    assert named >= 1


@pytest.mark.parametrize("block", [1, 500])
def test_counts_made_a_block_of_clusters_at_a_time_give_the_same_scores(corpus, monkeypatch, block):
    """`term_scores` counts the terms of a few clusters at a time (COUNT_BLOCK multiplications): any
    block gives the scores of all clusters at once, row for row (co-citation: works in many clusters)."""
    import bib2graph.networks.cluster_names as names

    settings = resolve_labels({})
    net = build("cocitation", corpus, {"min_occurrences": 3}, FAST)
    docs = documents("cocitation", net.nodes, corpus)
    labelled = [int(e["cluster"]) for e in net.metrics["clusters"]]
    stop = names._stop_words(settings["stop_words"])
    whole = names.term_scores(docs, corpus, settings, labelled, stop)
    monkeypatch.setattr(names, "COUNT_BLOCK", block)
    blocked = names.term_scores(docs, corpus, settings, labelled, stop)
    assert len(whole) > 50 and whole["cluster"].nunique() > 1
    pd.testing.assert_frame_equal(blocked, whole)


def test_cocitation_clusters_are_named_from_their_citing_works(corpus):
    net = build("cocitation", corpus, {"min_occurrences": 3}, FAST)
    docs = documents("cocitation", net.nodes, corpus)
    cluster_of = dict(zip(net.nodes["node_id"], net.nodes["cluster"]))
    expected = {(w, int(cluster_of[r])) for w, r in zip(corpus.references["work_id"], corpus.references["referenced_id"])
                if r in cluster_of}
    assert set(zip(docs["work_id"], docs["cluster"])) == expected
    assert all(e["labelled_by"] in ("terms", "members") for e in net.metrics["clusters"])


def test_no_label_holds_a_generic_field(corpus):
    for kind in ("coupling", "keywords", "citation"):
        for by in ("terms", "members"):
            net = build(kind, corpus, {}, {**FAST, "labels": {"by": by}})
            for entry in net.metrics["clusters"]:
                parts = entry["label"].split("; ")
                assert not any(is_generic(name=p) for p in parts), (kind, by, entry["label"])
                assert not any(p in LEVEL0_CONCEPTS.values() for p in parts)


def test_spec_stop_words_and_fields_are_obeyed(corpus):
    first = build("coupling", corpus, {}, FAST)
    banned = first.metrics["clusters"][0]["terms"][0]["term"]
    again = build("coupling", corpus, {}, {**FAST, "labels": {"stop_words": [banned.upper()]}})
    assert all(banned not in [t["term"] for t in e["terms"]] for e in again.metrics["clusters"])
    titles = build("coupling", corpus, {}, {**FAST, "labels": {"fields": ["title"], "ngrams": 1}})
    title_words = set()
    for title in corpus.works["title"].dropna():
        title_words |= set(phrases(title, frozenset(_stop()), 1))
    assert all(t["term"] in title_words for e in titles.metrics["clusters"] for t in e["terms"])


def test_members_labels_are_the_leading_nodes(corpus):
    net = build("coauthorship", corpus, {}, {**FAST, "labels": {"by": "members"}})
    names = dict(zip(net.nodes["node_id"], net.nodes["label"]))
    for entry in net.metrics["clusters"]:
        assert entry["terms"] == [] and entry["labelled_by"] == "members"
        assert entry["label"] == "; ".join(names[n] for n in entry["top_nodes"][:3])


def test_phrases_stop_at_punctuation_and_stop_words():
    stop = frozenset({"of", "the"})
    assert phrases("Memory of the objects, in context-dependent tasks.", stop, 2) == [
        "memory", "objects", "in", "context-dependent", "tasks", "in context-dependent", "context-dependent tasks"]
    assert phrases("A 5 x", stop, 3) == []


def _distances(net) -> np.ndarray:
    """d(i, j) = 1 − w_ij / max w over the undirected graph, parallel arcs summed; d(i, i) = 0."""
    index = {node: k for k, node in enumerate(net.nodes["node_id"])}
    n = len(index)
    sim = np.zeros((n, n))
    for s, t, w in zip(net.edges["source"], net.edges["target"], net.edges["weight"]):
        if s != t:
            sim[index[s], index[t]] += w
            sim[index[t], index[s]] += w
    sim /= sim.max()
    d = 1.0 - sim
    np.fill_diagonal(d, 0.0)
    return d


@pytest.mark.long
@pytest.mark.parametrize("kind", ["coupling", "citation", "coauthorship"])
def test_silhouette_equals_scikit_learn(corpus, kind):
    net = build(kind, corpus, {}, FAST)
    expected = silhouette_samples(_distances(net), net.nodes["cluster"].to_numpy(), metric="precomputed")
    assert np.allclose(net.nodes["silhouette"].to_numpy(dtype=float), expected, atol=1e-9)
    assert net.metrics["silhouette"] == pytest.approx(float(expected.mean()), rel=1e-8)
    for entry in net.metrics["clusters"]:
        members = (net.nodes["cluster"] == entry["cluster"]).to_numpy()
        assert entry["silhouette"] == pytest.approx(float(expected[members].mean()), rel=1e-8, abs=1e-12)


def test_the_cluster_table_adds_up(corpus):
    net = build("coupling", corpus, {}, FAST)
    nodes = net.nodes.set_index("node_id")
    cluster_of = nodes["cluster"]
    internal, external = defaultdict(float), defaultdict(float)
    for s, t, w in zip(net.edges["source"], net.edges["target"], net.edges["weight"]):
        if cluster_of[s] == cluster_of[t]:
            internal[cluster_of[s]] += w
        else:
            external[cluster_of[s]] += w
            external[cluster_of[t]] += w
    cited = corpus.references.drop_duplicates(["work_id", "referenced_id"])
    cited = cited[cited["work_id"] != cited["referenced_id"]].groupby("referenced_id").size()
    for entry in net.metrics["clusters"]:
        members = nodes[cluster_of == entry["cluster"]]
        assert entry["size"] == len(members)
        assert entry["internal_weight"] == pytest.approx(internal[entry["cluster"]], rel=1e-9)
        assert entry["external_weight"] == pytest.approx(external[entry["cluster"]], rel=1e-9)
        assert entry["mean_year"] == pytest.approx(members["mean_year"].mean(), rel=1e-9)
        assert entry["median_year"] == pytest.approx(members["mean_year"].median(), rel=1e-9)
        top = members.sort_values("pagerank", ascending=False).head(5)
        assert [c["node_id"] for c in entry["central"]] == list(top.index)
        counts = pd.Series([cited.get(w, 0) for w in members.index], index=members.index)
        assert [c["citations"] for c in entry["cited"]] == sorted(counts, reverse=True)[:5]
    labelled = net.nodes.dropna(subset=["cluster_label"])
    by_cluster = {e["cluster"]: e["label"] for e in net.metrics["clusters"]}
    assert set(labelled["cluster"]) == set(by_cluster)
    assert all(by_cluster[c] == label for c, label in zip(labelled["cluster"], labelled["cluster_label"]))


def test_labels_and_table_are_deterministic(corpus):
    first = build("cocitation", corpus, {"min_occurrences": 3}, FAST)
    second = build("cocitation", corpus, {"min_occurrences": 3}, FAST)
    assert first.metrics == second.metrics
    pd.testing.assert_frame_equal(first.nodes, second.nodes)
