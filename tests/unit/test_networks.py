"""Networks: build() against an independent pure-Python reading of each definition, on real corpora."""

from __future__ import annotations

import importlib
import json
import math
import os
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bib2graph.errors import DataError
from bib2graph.networks import DEFAULTS, KINDS, NORMALIZATIONS, Network, build, edge_evidence, resolve_params
from bib2graph.networks.counting import cooccurrence
from bib2graph.networks.evidence import EVIDENCE_MAX_ROWS, EVIDENCE_VIA
from bib2graph.networks.pairs import pairs_within_groups
from bib2graph.networks.terms import TOPIC_TRIPLE
from bib2graph.networks.communities import canonical
from bib2graph.networks.schema import EDGES, NODES
from bib2graph.networks.work_labels import work_label
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.tables import CITED, conform

ROOT = Path(__file__).resolve().parents[2]
SEP = ROOT / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
DONNERS = Path("/work/shared/data/synergy/Donners_2021/works_1.zip")
API = Path("/work/shared/data/openalex-api/extracted")
FAST = {"stability_runs": 1}
pairs_module = importlib.import_module("bib2graph.networks.pairs")


def _load(path: Path):
    if not path.exists():
        pytest.skip(f"corpus {path} is not available")
    return bundle_from_works(read_work_objects(path))


@pytest.fixture(scope="module")
def sep():
    return _load(SEP)


@pytest.fixture(scope="module")
def donners():
    return _load(DONNERS)


@pytest.fixture(scope="module", params=["sep", "donners"])
def corpus(request):
    return request.getfixturevalue(request.param)


_BUILT: dict = {}


def built(bundle, kind: str, params: dict | None = None) -> Network:
    """build() with FAST communities and clusters left unnamed (test_cluster_labels names them), memoised per
    (corpus, kind, params) to keep the suite quick."""
    key = (id(bundle), kind, json.dumps(params or {}, sort_keys=True))
    if key not in _BUILT:       # the bundle is kept alive with its network, so its id is never reused
        _BUILT[key] = (bundle, build(kind, bundle, params or {}, FAST, name=False))
    return _BUILT[key][1]


# ------------------------------------------------------------------------------------------------
# The reference: each definition read literally, with sets and itertools.combinations


def ref_sets(bundle, kind: str, field: str = "auto") -> dict[str, set[str]]:
    """Work → its set of items (references, authors, institutions or terms)."""
    works = set(bundle.works["work_id"])
    sets: dict[str, set[str]] = {w: set() for w in works}
    if kind in ("coupling", "cocitation", "citation"):
        rows = zip(bundle.references["work_id"], bundle.references["referenced_id"])
    elif kind == "coauthorship":
        rows = ((w, a) for w, a in zip(bundle.authorships["work_id"], bundle.authorships["author_id"])
                if isinstance(a, str))
    elif kind == "institutions":
        rows = zip(bundle.affiliations["work_id"], bundle.affiliations["institution_id"])
    else:
        by_field: dict[tuple[str, str], set[str]] = defaultdict(set)
        for w, f, t in zip(bundle.terms["work_id"], bundle.terms["field"], bundle.terms["term_id"]):
            by_field[(w, f)].add(t)
        for w in works:
            if field == "auto":
                sets[w] = by_field.get((w, "keywords")) or by_field.get((w, "concepts"), set())
            elif field == "all_keywords":
                sets[w] = set().union(*(by_field.get((w, f), set()) for f in ("author_keywords", "index_keywords",
                                                                             "mesh")))
            else:
                chosen = by_field.get((w, field), set())
                sets[w] = set() if field == "topics" and chosen == set(TOPIC_TRIPLE) else chosen
        return sets
    for w, item in rows:
        if w in works:
            sets[w].add(item)
    return sets


def reference(bundle, kind: str, params: dict) -> tuple[dict[str, int], dict[tuple[str, str], float]]:
    """(occurrences of every node, raw count of every edge) straight from the definitions."""
    p = resolve_params(kind, params)
    sets = ref_sets(bundle, kind, p.get("field", "auto"))
    if kind == "coupling":
        occ = {w: len(r) for w, r in sets.items() if len(r) >= p["min_occurrences"]}
        counts = {(a, b): len(sets[a] & sets[b]) for a, b in combinations(sorted(occ), 2)}
    elif kind == "citation":
        cited = Counter(r for w, refs in sets.items() for r in refs if r in sets and r != w)
        occ = {w: cited[w] for w in sets if cited[w] >= p["min_occurrences"]}
        counts = {(w, r): 1 for w, refs in sets.items() for r in refs if r != w and w in occ and r in occ}
    else:
        holders = Counter(x for items in sets.values() for x in items)
        occ = {x: n for x, n in holders.items() if n >= p["min_occurrences"]}
        counts, shared = Counter(), Counter()
        for items in sets.values():
            share = 1.0 if p.get("counting", "full") == "full" else 1.0 / max(len(items) - 1, 1)
            for a, b in combinations(sorted(x for x in items if x in occ), 2):
                counts[(a, b)] += share
                shared[(a, b)] += 1
        # min_weight counts shared works, under both countings
        return occ, {e: c for e, c in counts.items() if shared[e] >= p["min_weight"]}
    return occ, {e: c for e, c in counts.items() if c >= p["min_weight"] and c > 0}


def ref_weights(counts: dict, occ: dict, method: str) -> dict:
    """Normalised weights, one formula per line, edge by edge."""
    k = Counter()
    for (a, b), c in counts.items():
        k[a] += c
        k[b] += c
    two_m = sum(k.values())
    out = {}
    for (a, b), c in counts.items():
        sa, sb = occ[a], occ[b]
        out[(a, b)] = {
            "raw": c,
            "association": c / (sa * sb),
            "association_vos": c / (k[a] * k[b] / two_m),
            "salton": c / math.sqrt(sa * sb),
            "jaccard": c / (sa + sb - c),
            "inclusion": c / min(sa, sb),
            "equivalence": c * c / (sa * sb),
        }[method]
    return out


def edge_dict(net: Network, column: str) -> dict[tuple[str, str], float]:
    return dict(zip(zip(net.edges["source"], net.edges["target"]), net.edges[column]))


def assert_close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    bad = [e for e in want if not math.isclose(got[e], want[e], rel_tol=1e-9, abs_tol=1e-12)]
    assert not bad, f"{len(bad)} edges differ, e.g. {bad[0]}: {got[bad[0]]} != {want[bad[0]]}"


# ------------------------------------------------------------------------------------------------
# Edges and weights against the reference


@pytest.mark.long
@pytest.mark.parametrize("kind", KINDS)
def test_raw_edges_and_occurrences_match_the_definition(corpus, kind):
    net = built(corpus, kind, {})
    occ, counts = reference(corpus, kind, {})
    assert dict(zip(net.nodes["node_id"], net.nodes["occurrences"])) == occ
    assert_close(edge_dict(net, "count"), counts)
    assert_close(edge_dict(net, "weight"), counts)
    assert len(net.edges) > 0


@pytest.mark.parametrize("method", [m for m in NORMALIZATIONS if m != "raw"])
@pytest.mark.parametrize("kind", ["coupling", "cocitation", "coauthorship", "institutions", "keywords"])
def test_normalised_weights_match_the_formulas(sep, kind, method):
    params = {"normalization": method, "min_occurrences": 5 if kind == "cocitation" else 1}
    net = built(sep, kind, params)
    occ, counts = reference(sep, kind, params)
    assert_close(edge_dict(net, "count"), counts)
    assert_close(edge_dict(net, "weight"), ref_weights(counts, occ, method))


def test_fractional_counting_matches_the_definition_and_sums_to_one_per_work(donners):
    params = {"counting": "fractional"}
    net = built(donners, "coauthorship", params)
    occ, counts = reference(donners, "coauthorship", params)
    assert_close(edge_dict(net, "count"), counts)
    # each work with n >= 2 authors adds exactly 1 to each of its authors' total link strength
    sets = ref_sets(donners, "coauthorship")
    multi = Counter(a for authors in sets.values() if len(authors) >= 2 for a in authors)
    strength = dict(zip(net.nodes["node_id"], net.nodes["link_strength"]))
    assert all(math.isclose(strength[a], multi.get(a, 0), abs_tol=1e-9) for a in strength)
    total = sum(len(a) / 2 for a in sets.values() if len(a) >= 2)
    assert math.isclose(net.edges["count"].sum(), total, rel_tol=1e-9)
    assert not np.allclose(net.edges["count"], np.round(net.edges["count"]))


def test_fractional_shares_use_all_items_of_a_work_even_after_min_occurrences(donners):
    full = edge_dict(built(donners, "institutions", {"counting": "fractional"}), "count")
    cut = built(donners, "institutions", {"counting": "fractional", "min_occurrences": 3})
    assert len(cut.edges) < len(full)
    assert all(math.isclose(c, full[e], rel_tol=1e-9) for e, c in edge_dict(cut, "count").items())


def test_directed_citation_points_from_citing_to_cited(sep):
    net = built(sep, "citation", {})
    refs = set(zip(sep.references["work_id"], sep.references["referenced_id"]))
    assert net.directed and all(edge in refs for edge in zip(net.edges["source"], net.edges["target"]))
    assert (net.edges["source"] > net.edges["target"]).any()   # arcs are not forced into source < target


# ------------------------------------------------------------------------------------------------
# Thresholds


def test_min_weight_keeps_exactly_the_edges_at_or_above_it(sep):
    raw = built(sep, "coupling", {})
    cut = built(sep, "coupling", {"min_weight": 3})
    want = {e: c for e, c in edge_dict(raw, "count").items() if c >= 3}
    assert edge_dict(cut, "count") == want and 0 < len(want) < len(raw.edges)
    assert list(cut.nodes["node_id"]) == list(raw.nodes["node_id"])    # nodes do not depend on min_weight


@pytest.mark.parametrize("kind, low_, high_", [("coupling", 1, 40), ("cocitation", 3, 6), ("coauthorship", 1, 3),
                                              ("keywords", 1, 5)])
def test_min_occurrences_drops_nodes_before_pairing(sep, kind, low_, high_):
    low = built(sep, kind, {"min_occurrences": low_})
    high = built(sep, kind, {"min_occurrences": high_})
    assert (high.nodes["occurrences"] >= high_).all() and len(high.nodes) < len(low.nodes)
    kept = set(high.nodes["node_id"])
    want = {e: c for e, c in edge_dict(low, "count").items() if e[0] in kept and e[1] in kept}
    assert edge_dict(high, "count") == want


def test_every_corpus_work_is_a_coupling_node_by_default(sep):
    net = built(sep, "coupling", {})
    assert set(net.nodes["node_id"]) == set(sep.works["work_id"])
    isolated = net.nodes[net.nodes["degree"] == 0]
    assert len(isolated) > 0 and isolated["cluster"].is_unique


# ------------------------------------------------------------------------------------------------
# Evidence


def test_coupling_evidence_lists_each_shared_reference(sep):
    net = built(sep, "coupling", {"min_weight": 2})
    sets = ref_sets(sep, "coupling")
    ev = net.evidence
    assert list(ev.columns) == ["source", "target", "reference_id"]
    per_edge = ev.groupby(["source", "target"]).size()
    assert per_edge.to_dict() == {e: int(c) for e, c in edge_dict(net, "count").items()}
    assert all(r in sets[a] and r in sets[b] for a, b, r in ev.itertuples(index=False))


def test_cocitation_evidence_lists_each_citing_work(donners):
    net = built(donners, "cocitation", {"min_occurrences": 4})
    sets = ref_sets(donners, "cocitation")
    ev = net.evidence
    assert list(ev.columns) == ["source", "target", "citing_id"]
    assert ev.groupby(["source", "target"]).size().to_dict() == \
        {e: int(c) for e, c in edge_dict(net, "count").items()}
    assert all(a in sets[w] and b in sets[w] for a, b, w in ev.itertuples(index=False))


@pytest.mark.parametrize("kind", ["coauthorship", "institutions", "keywords"])
def test_item_evidence_lists_each_shared_work(donners, kind):
    net = built(donners, kind, {})
    sets = ref_sets(donners, kind)
    ev = net.evidence
    assert list(ev.columns) == ["source", "target", "work_id"]
    assert ev.groupby(["source", "target"]).size().to_dict() == \
        {e: int(c) for e, c in edge_dict(net, "count").items()}
    assert all(a in sets[w] and b in sets[w] for a, b, w in ev.itertuples(index=False))


def test_citation_evidence_is_the_citing_work(donners):
    net = built(donners, "citation", {})
    assert (net.evidence.citing_id == net.evidence.source).all()
    assert len(net.evidence) == len(net.edges)


def test_evidence_above_the_limit_is_skipped_and_reported(sep, tmp_path):
    full = built(sep, "coupling", {})
    rows = int(full.edges["count"].sum())
    assert full.metrics["evidence"] == {"rows": rows, "complete": True, "limit": EVIDENCE_MAX_ROWS,
                                        "reason": None}
    skipped = build("coupling", sep, {}, FAST, evidence_limit=rows - 1, name=False)
    report = skipped.metrics["evidence"]
    assert report["rows"] == rows == len(full.evidence) and report["complete"] is False
    assert report["limit"] == rows - 1 and "edge_evidence" in report["reason"]
    assert len(skipped.evidence) == 0 and list(skipped.evidence.columns) == ["source", "target", "reference_id"]
    pd.testing.assert_frame_equal(skipped.edges, full.edges)          # only the evidence is left out
    pd.testing.assert_frame_equal(skipped.nodes, full.nodes)
    skipped.write(tmp_path / "net")                                   # the workflow always gets the file
    again = Network.read(tmp_path / "net")
    assert len(again.evidence) == 0 and list(again.evidence.columns) == list(full.evidence.columns)
    assert build("coupling", sep, {}, FAST, evidence_limit=rows).metrics["evidence"]["complete"]


@pytest.mark.parametrize("kind, params", [("coupling", {"min_weight": 2}), ("cocitation", {"min_occurrences": 4}),
                                          ("citation", {}), ("coauthorship", {"counting": "fractional"}),
                                          ("institutions", {}), ("keywords", {"field": "concepts"})])
def test_edge_evidence_on_demand_equals_the_stored_rows(donners, kind, params):
    net = built(donners, kind, params)
    ev = net.evidence
    assert net.metrics["evidence"]["complete"] and net.metrics["evidence"]["rows"] == len(ev) > 0
    edges = net.edges.sort_values(["count", "source", "target"], ascending=[False, True, True], kind="mergesort")
    picked = pd.concat([edges.head(5), net.edges.iloc[:: max(len(net.edges) // 25, 1)]])
    stored = {key: rows for key, rows in ev.groupby(["source", "target"], sort=False)}
    for s, t in zip(picked["source"], picked["target"]):
        got = edge_evidence(kind, donners, s, t, params)
        assert list(got.columns) == ["source", "target", EVIDENCE_VIA[kind]]
        assert got.to_numpy().tolist() == stored[(s, t)].to_numpy().tolist()
    a, b = net.nodes["node_id"].iloc[0], net.nodes["node_id"].iloc[-1]
    if (a, b) not in stored:
        assert len(edge_evidence(kind, donners, a, b, params)) == 0


def test_evidence_blocks_do_not_change_the_table(donners, monkeypatch):
    whole = built(donners, "cocitation", {"min_occurrences": 4, "min_weight": 2})
    monkeypatch.setattr(pairs_module, "_PAIR_CHUNK", 7)       # many blocks, some groups larger than a block
    blocks = build("cocitation", donners, {"min_occurrences": 4, "min_weight": 2}, FAST)
    pd.testing.assert_frame_equal(blocks.evidence, whole.evidence)
    assert len(whole.evidence) == whole.edges["count"].sum()


def test_pairs_within_groups_enumerates_every_pair_once():
    groups = np.array([0, 0, 0, 1, 1, 2, 3, 3, 3, 3])
    members = np.array([5, 1, 3, 1, 3, 9, 0, 2, 4, 6])
    g, a, b = pairs_within_groups(groups, members)
    want = sorted((grp, x, y) for grp in range(4) for x, y in
                  combinations(sorted(members[groups == grp]), 2))
    assert sorted(zip(g.tolist(), a.tolist(), b.tolist())) == want
    i, j, c = cooccurrence(groups, members, 10)
    assert dict(zip(zip(i.tolist(), j.tolist()), c.tolist())) == Counter((x, y) for _, x, y in want)


# ------------------------------------------------------------------------------------------------
# Keywords: field choice, topic guard, thesaurus


def _api_works():
    if not API.exists():
        pytest.skip("API responses are not available")
    works = [w for p in sorted(API.glob("*.json")) for w in read_work_objects(p)
             if str(w.get("id", "")).rsplit("/", 1)[-1].startswith("W")]
    return bundle_from_works(works)


@pytest.mark.parametrize("field", ["auto", "keywords", "topics", "concepts"])
def test_keyword_fields_on_current_schema_works(field):
    bundle = _api_works()
    net = built(bundle, "keywords", {"field": field})
    occ, counts = reference(bundle, "keywords", {"field": field})
    assert dict(zip(net.nodes["node_id"], net.nodes["occurrences"])) == occ
    assert_close(edge_dict(net, "count"), counts)
    prefixes = {"keywords": ("keywords/",), "topics": ("T",), "concepts": ("C",),
                "auto": ("keywords/", "C")}[field]
    assert net.nodes["node_id"].str.startswith(prefixes).all()


@pytest.mark.parametrize("field", ["author_keywords", "index_keywords", "mesh", "all_keywords"])
def test_keyword_fields_of_exports(field):
    """The export term fields the spec documents (author and indexer keywords, MeSH, all three together as
    VOSviewer's "all keywords") are accepted and count what the definition says, on a WoS plain-text
    export and a PubMed export read together."""
    from bib2graph.sources.ingest import ingest

    files = [ROOT.parent / "shared" / "data" / "wos" / "wos_plaintext.txt",
             ROOT / "tests" / "data" / "pubmed" / "mcda_pubmed.txt"]
    bundle = ingest(files, [f.name for f in files]).bundle
    assert bundle.terms["field"].eq("mesh").any() and bundle.terms["field"].eq("author_keywords").any()
    net = built(bundle, "keywords", {"field": field})
    occ, counts = reference(bundle, "keywords", {"field": field})
    assert len(occ) > 10 and dict(zip(net.nodes["node_id"], net.nodes["occurrences"])) == occ
    assert_close(edge_dict(net, "count"), counts)


def test_the_spec_schema_names_every_keyword_field_the_network_takes():
    from bib2graph import spec as spec_mod
    from bib2graph.networks.params import FIELDS

    schema = spec_mod.schema()["$defs"]["keyword_network"]["properties"]["field"]
    assert list(schema["enum"]) == list(FIELDS)


def _topic_work(work_id: str, topics: list[str]) -> dict:
    return {"id": f"https://openalex.org/{work_id}", "title": work_id,
            "topics": [{"id": f"https://openalex.org/{t}", "display_name": f"topic {t}", "score": 0.9}
                       for t in topics]}


def test_topic_guard_drops_only_the_exact_constant_triple():
    triple = sorted(TOPIC_TRIPLE)
    bundle = bundle_from_works([_topic_work("W1", triple), _topic_work("W2", triple),
                                _topic_work("W3", triple + ["T1"]), _topic_work("W4", ["T1", "T2"])])
    net = built(bundle, "keywords", {"field": "topics"})
    occ = dict(zip(net.nodes["node_id"], net.nodes["occurrences"]))
    assert occ == {"T1": 2, "T2": 1, "T14423": 1, "T13154": 1, "T14235": 1}
    assert net.metrics["notes"]["topic_triple_guarded_works"] == 2


def test_thesaurus_merges_and_drops_terms(sep, tmp_path):
    concepts = sep.terms[sep.terms["field"] == "concepts"]
    top = concepts.groupby("term_id").size().sort_values(ascending=False, kind="mergesort")
    a, b, gone = top.index[0], top.index[1], top.index[2]
    path = tmp_path / "thesaurus.tsv"
    path.write_text(f"term_id\treplace_by\n{b}\t{a}\n{gone}\t\n", encoding="utf-8")
    net = built(sep, "keywords", {"thesaurus": str(path)})
    plain = built(sep, "keywords", {})
    ids = set(net.nodes["node_id"])
    assert a in ids and b not in ids and gone not in ids
    works = concepts.groupby("term_id")["work_id"].agg(set)
    merged = net.nodes.set_index("node_id").loc[a]
    assert merged["occurrences"] == len(works[a] | works[b])
    assert merged["label"] == plain.nodes.set_index("node_id").loc[a, "label"]
    assert len(net.metrics["notes"]["thesaurus_sha256"]) == 64
    with pytest.raises(DataError):
        built(sep, "keywords", {"thesaurus": str(tmp_path / "missing.tsv")})


# ------------------------------------------------------------------------------------------------
# Determinism, schemas, clusters, metrics


@pytest.mark.long
def test_two_builds_write_identical_bytes(sep, tmp_path):
    first = build("coauthorship", sep, {"counting": "fractional", "normalization": "association_vos"}, {})
    second = build("coauthorship", sep, {"counting": "fractional", "normalization": "association_vos"}, {})
    first.write(tmp_path / "a")
    second.write(tmp_path / "b")
    for name in ("nodes.parquet", "edges.parquet", "evidence.parquet", "metrics.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    again = Network.read(tmp_path / "a")
    pd.testing.assert_frame_equal(again.nodes, first.nodes)
    pd.testing.assert_frame_equal(again.edges, first.edges)
    assert again.metrics == first.metrics


@pytest.mark.parametrize("algorithm", ["leiden", "louvain"])
def test_clustering_is_seeded_and_canonical(donners, algorithm):
    params = {"algorithm": algorithm, "seed": 7, "stability_runs": 3}
    one = build("coupling", donners, {"normalization": "salton"}, params)
    two = build("coupling", donners, {"normalization": "salton"}, params)
    assert one.nodes["cluster"].tolist() == two.nodes["cluster"].tolist()
    clusters = one.nodes.groupby("cluster")
    sizes = clusters.size()
    firsts = clusters["node_id"].min()
    assert list(sizes.index) == list(range(1, len(sizes) + 1))
    keys = list(zip(-sizes.to_numpy(), firsts.to_numpy()))
    assert keys == sorted(keys)                                     # largest first, ties by smallest node
    stability = one.metrics["stability"]
    assert stability["runs"] == 3 and 0 <= stability["mean_ari"] <= 1 and 0 <= stability["mean_nmi"] <= 1
    assert -0.5 <= one.metrics["modularity"] <= 1


def test_betweenness_is_sampled_as_the_spec_says_and_metrics_say_so():
    import igraph as ig

    from bib2graph.networks import metrics

    ring = ig.Graph.Ring(6000)                                  # n + m = 12,000
    default = metrics.betweenness(ring, 1)[1]
    assert default["method"] == "sampled" and default["sources"] == default["requested"] == 500
    values, info = metrics.betweenness(ring, 1, {"budget": 12_000 * 120})
    assert {k: info[k] for k in ("method", "sources", "requested", "seed", "budget")} == \
        {"method": "sampled", "sources": 120, "requested": 500, "seed": 1, "budget": 1_440_000}
    assert "metrics.betweenness.budget" in info["reason"] and "120" in info["reason"]
    assert values.min() > 0 and np.allclose(values, values.mean(), rtol=0.3)   # a ring: all equal in truth
    error = info["error"]   # ten groups of 12 sources; on a ring every node's estimate is near the truth
    assert error["groups"] == 10 and error["top_20"]["nodes"] == 20 and error["top_1pct"]["nodes"] == 60
    assert 0 < error["top_20"]["median_relative_se"] <= error["top_20"]["max_relative_se"] < 0.3
    assert "120 of 6,000 sources" in error["statement"]
    few, info = metrics.betweenness(ring, 1, {"budget": 12_000 * 49})   # 49 sources: below the least sample
    assert info["method"] == "skipped" and np.isnan(few).all() and "affords only 49 sources" in info["reason"]
    assert f"budget {12_000 * metrics.BETWEENNESS_MIN_SAMPLES:,} or more" in info["reason"]
    assert metrics.betweenness(ring, 1, {"budget": 12_000 * 50})[1]["sources"] == metrics.BETWEENNESS_MIN_SAMPLES
    assert metrics.betweenness(ring, 1, {"samples": 20, "budget": 12_000 * 20})[1]["sources"] == 20
    exact, info = metrics.betweenness(ig.Graph.Ring(300), 1, {"exact_below": 10, "samples": None})
    assert info["method"] == "exact" and "samples is null" in info["reason"]
    assert np.allclose(exact, exact[0]) and exact[0] > 0
    skipped, info = metrics.betweenness(ring, 1, {"enabled": False})
    assert info["method"] == "skipped" and "enabled is false" in info["reason"] and np.isnan(skipped).all()


def test_pagerank_by_prpack_keeps_its_meaning():
    import igraph as ig

    rng = np.random.default_rng(3)
    edges = rng.integers(0, 200, size=(1500, 2))
    edges = edges[edges[:, 0] != edges[:, 1]]
    for directed in (False, True):
        graph = ig.Graph(n=200, edges=edges.tolist(), directed=directed)
        graph.es["weight"] = rng.random(graph.ecount()).tolist()
        ranks = [np.asarray(graph.pagerank(weights="weight", directed=directed, damping=0.85,
                                           implementation=way)) for way in ("prpack", "arpack")]
        assert np.allclose(ranks[0], ranks[1], rtol=1e-6, atol=1e-12)


def _cliques(k: int = 5, size: int = 10):
    """k cliques in a ring, one edge between neighbours: clusters any seed finds."""
    edges = [(b * size + x, b * size + y) for b in range(k) for x in range(size) for y in range(x + 1, size)]
    edges += [(b * size, ((b + 1) % k) * size + 1) for b in range(k)]
    e = np.array(sorted((min(a, b), max(a, b)) for a, b in edges))
    return k * size, e[:, 0], e[:, 1], np.ones(len(e))


def _structureless(n: int = 400, p: float = 0.03, seed: int = 5):
    """An Erdős–Rényi graph: every partition is about as good as another, so seeds disagree."""
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(n, 1)
    keep = rng.random(len(a)) < p
    return n, a[keep], b[keep], np.ones(int(keep.sum()))


def test_reproducibility_is_said_in_words():
    from bib2graph.networks.communities import detect
    from bib2graph.networks.params import resolve_communities

    params = resolve_communities({})
    _, clear = detect(*_cliques(), params)
    assert clear["clusters_reproducible"] is True and clear["stability"]["mean_ari"] == 1.0
    assert clear["reproducibility"].startswith("The clusters are reproducible")
    _, arbitrary = detect(*_structureless(), params)
    assert arbitrary["stability"]["mean_ari"] < arbitrary["stability"]["reproducible_min_ari"] == 0.5
    assert arbitrary["clusters_reproducible"] is False
    assert arbitrary["reproducibility"].startswith("The clusters are not reproducible")
    _, single = detect(*_structureless(), resolve_communities({"stability_runs": 1}))
    assert single["clusters_reproducible"] is None and "not measured" in single["reproducibility"]


def test_stability_on_large_networks_uses_one_other_seed_and_says_why():
    from bib2graph.networks.communities import detect
    from bib2graph.networks.params import resolve_communities

    graph = _cliques()
    _, small = detect(*graph, resolve_communities({}))
    assert small["stability"]["runs"] == small["stability"]["requested_runs"] == 5
    _, large = detect(*graph, resolve_communities({"stability_max_edges": 100}))
    stability = large["stability"]
    assert stability["runs"] == 2 and stability["requested_runs"] == 5 and stability["seeds"] == [42, 43]
    assert "communities.stability_max_edges = 100" in stability["reason"]
    assert large["implementation"]["iterations"] == 2


@pytest.mark.long
def test_a_job_with_two_threads_builds_the_same_network(sep, monkeypatch):
    """With two workers the stability score's other runs come from a forked process (the size threshold
    lowered to fork here); nodes, edges and metrics equal one worker's.
    Three stability runs on co-citation (seeds disagree there) and citation (directed)."""
    import multiprocessing

    from bib2graph.networks import beside, pipeline

    forks = []
    start = beside.beside

    def counted(*works):
        forks.append(works)
        return start(*works)

    monkeypatch.setattr(pipeline, "FORK_MIN_EDGES", 0)
    monkeypatch.setattr(pipeline, "beside", counted)
    monkeypatch.setattr(pipeline, "spare_core", lambda: True)   # whatever the machine's load now
    for kind in ("cocitation", "citation"):
        one = build(kind, sep, {}, {"stability_runs": 3})
        two = build(kind, sep, {}, {"stability_runs": 3}, workers=2)
        pd.testing.assert_frame_equal(one.nodes, two.nodes)
        pd.testing.assert_frame_equal(one.edges, two.edges)
        assert one.metrics == two.metrics and one.metrics["stability"]["runs"] == 3
    assert len(forks) == 2 and multiprocessing.active_children() == []
    monkeypatch.setattr(pipeline, "FORK_MAX_EDGES", 0)   # too large to hold twice: all in the job
    build("citation", sep, {}, {"stability_runs": 3}, workers=2)
    assert len(forks) == 2
    monkeypatch.setattr(pipeline, "FORK_MAX_EDGES", 10**12)
    monkeypatch.setattr(pipeline, "spare_core", lambda: False)   # a busy node: all in the job, the same network
    busy = build("cocitation", sep, {}, {"stability_runs": 3}, workers=2)
    assert len(forks) == 2 and busy.metrics == build("cocitation", sep, {}, {"stability_runs": 3}).metrics
    assert all(len(works) == 1 for works in forks)              # the stability runs; eigenvector in the job
    monkeypatch.setattr(pipeline, "spare_core", lambda: True)   # the network job's build: nothing forked
    job = build("cocitation", sep, {}, {"stability_runs": 3}, workers=2, stability=False)
    assert len(forks) == 2
    assert job.metrics == build("cocitation", sep, {}, {"stability_runs": 3}, stability=False).metrics
    assert "stability" not in job.metrics and "stability_runs" not in job.metrics["communities"]


def test_a_core_is_spare_when_two_of_ours_are_idle_but_for_the_job():
    from bib2graph.networks.beside import idle_cores, spare_core

    # measured while the job sleeps: its own core is idle too
    assert spare_core(idle=2.0, cpus=2) and spare_core(idle=1.8, cpus=2) and spare_core(idle=5.5, cpus=8)
    assert not spare_core(idle=1.0, cpus=2) and not spare_core(idle=2.0, cpus=1) and not spare_core(idle=0.0, cpus=8)
    assert 0.0 <= idle_cores(0.05) <= len(os.sched_getaffinity(0)) + 0.01   # the machine's own CPUs
    assert isinstance(spare_core(), bool)


def test_a_core_kept_busy_beside_is_not_spare():
    """Two processes spinning on two of our CPUs (the job's and the one a child would take) leave at most
    the others idle, whatever the load average says."""
    import subprocess
    import sys

    from bib2graph.networks.beside import SPARE, idle_cores

    ours = sorted(os.sched_getaffinity(0))
    assert len(ours) >= 2, "the test machine has two CPUs (README)"
    spin = "import os, sys; os.sched_setaffinity(0, {%d}); print(flush=True)\nwhile True: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin % c], stdout=subprocess.PIPE) for c in ours[:2]]
    try:
        for spinner in spinners:
            spinner.stdout.readline()   # spinning from here on
        assert idle_cores(0.5) < len(ours) - 2 + SPARE
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def test_work_beside_the_job_that_dies_is_done_again_in_the_job():
    """A killed child (the OOM killer, say) costs time, not results: the waiter does the work itself."""
    import multiprocessing
    import os
    import signal

    from bib2graph.networks.beside import beside
    from bib2graph.networks.communities import other_partitions, undirected
    from bib2graph.networks.params import resolve_communities

    n, i, j, w = _structureless(3000, 0.01)   # 45k edges: the runs outlive the kill
    graph, params = undirected(n, i, j, w), resolve_communities({"stability_runs": 3})
    first, second = beside(lambda: graph.vcount(), lambda: other_partitions(graph, params, n))
    (child,) = multiprocessing.active_children()
    assert first() == n   # sent as soon as done, while the second runs (or done here: a starved child)
    if child.exitcode is None:     # not stopped already as starved (a loaded machine)
        os.kill(child.pid, signal.SIGKILL)
    found = second()
    assert child.exitcode == -signal.SIGKILL   # killed while running, not after sending
    expected = other_partitions(graph, params, n)
    assert len(found) == 2 and all(np.array_equal(a, b) for a, b in zip(found, expected, strict=True))
    assert second() is found and first() == n   # asked again: remembered, not recomputed
    assert multiprocessing.active_children() == []


def _stops_itself_in_the_child(parent: int) -> None:
    """A child that gets no CPU at all: it stops itself (SIGSTOP), as if the node's other work starved it."""
    import os
    import signal

    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGSTOP)


def test_work_a_starved_child_has_not_sent_is_done_in_the_job(tmp_path):
    """The job does not wait on a child that gets no CPU: it stops it, removes the temporary file the child
    was writing, and does the works the child did not send itself, with the same results. (Were it to
    wait, the child, let go on after a minute, would send its own.)"""
    import multiprocessing
    import os
    import signal
    import threading

    from bib2graph.atomic import atomic_path
    from bib2graph.networks.beside import beside

    parent, target = os.getpid(), tmp_path / "edges.csv"

    def writing():
        with atomic_path(target) as tmp:
            tmp.write_text("half", encoding="utf-8")
            _stops_itself_in_the_child(parent)
            tmp.write_text("whole", encoding="utf-8")
        return os.getpid()

    def after():
        return os.getpid()

    starved, then = beside(writing, after, writes=[target])
    (child,) = multiprocessing.active_children()
    let_go = threading.Timer(60, os.kill, (child.pid, signal.SIGCONT))
    let_go.start()
    try:
        assert starved() == parent and then() == parent     # done here, not waited for
    finally:
        let_go.cancel()
    assert child.exitcode == -signal.SIGKILL and multiprocessing.active_children() == []
    assert target.read_text(encoding="utf-8") == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edges.csv"]    # the child's temporary file is gone


def test_work_beside_the_job_runs_at_the_lowest_priority():
    """On a busy node the child must not take a core from the job's own stages: it runs niced."""
    import os

    from bib2graph.networks.beside import CHILD_NICENESS, beside

    mine = os.nice(0)
    (theirs,) = beside(lambda: os.nice(0))
    found = theirs()
    assert found == min(19, mine + CHILD_NICENESS)
    assert found > mine or mine == 19      # already the lowest: nothing lower to go to
    assert os.nice(0) == mine      # the job itself keeps its priority


def test_skipped_metrics_are_null_columns_and_metrics_say_why(sep, tmp_path):
    off = {"betweenness": {"enabled": False}, "eigenvector": {"enabled": False}}
    net = build("coupling", sep, {}, FAST, metrics=off, name=False)
    full = built(sep, "coupling", {})
    assert net.nodes["betweenness"].isna().all() and net.nodes["eigenvector"].isna().all()
    pd.testing.assert_frame_equal(net.nodes.drop(columns=["betweenness", "eigenvector"]),
                                  full.nodes.drop(columns=["betweenness", "eigenvector"]))
    for name in ("betweenness", "eigenvector"):
        assert net.metrics[name]["method"] == "skipped"
        assert net.metrics[name]["reason"] == f"metrics.{name}.enabled is false: the column is null"
        assert net.metrics["metric_settings"][name]["enabled"] is False
    assert full.metrics["metric_settings"]["betweenness"]["samples"] == 500
    net.write(tmp_path)
    assert Network.read(tmp_path).nodes["betweenness"].isna().all()


def test_bad_metric_settings_are_spec_errors(sep):
    from bib2graph.errors import SpecError

    for bad in ({"closeness": {}}, {"betweenness": {"sample": 10}}, {"betweenness": {"samples": 0}},
                {"betweenness": {"enabled": "no"}}, {"eigenvector": {"enabled": 1}}):
        with pytest.raises(SpecError):
            build("coupling", sep, {}, FAST, metrics=bad)
    for bad in ({"iterations": 0}, {"stability_max_edges": -1}):
        with pytest.raises(SpecError):
            build("coupling", sep, {}, bad)


def test_canonical_labels_order_by_size_then_smallest_member():
    assert canonical([4, 4, 9, 9, 2, 7, 7, 7], 8).tolist() == [2, 2, 3, 3, 4, 1, 1, 1]
    assert canonical([], 0).tolist() == []


def test_cpm_objective_changes_the_partition(donners):
    modularity = built(donners, "keywords", {"normalization": "association"})
    cpm = build("keywords", donners, {"normalization": "association"},
                {"objective": "cpm", "resolution": 0.001, "stability_runs": 1})
    assert cpm.metrics["communities"]["objective"] == "cpm"
    assert cpm.nodes["cluster"].tolist() != modularity.nodes["cluster"].tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_tables_follow_their_schemas_and_metrics_are_complete(sep, kind):
    net = built(sep, kind, {})
    pd.testing.assert_frame_equal(conform(net.nodes, NODES), net.nodes)
    pd.testing.assert_frame_equal(conform(net.edges, EDGES), net.edges)
    assert net.nodes["node_id"].is_monotonic_increasing
    if not net.directed:
        assert (net.edges["source"] < net.edges["target"]).all()
    m = net.metrics
    for key in ("kind", "definition", "parameters", "communities", "nodes", "edges", "density", "components",
                "modularity", "clusters", "betweenness", "eigenvector", "stability"):
        assert key in m
    assert m["kind"] == kind and m["nodes"] == len(net.nodes) and m["edges"] == len(net.edges)
    assert m["parameters"] == resolve_params(kind, {}) and m["betweenness"]["method"] == "exact"
    assert sum(c["size"] for c in m["clusters"]) + m["singleton_clusters"] == len(net.nodes)
    degree = Counter(net.edges["source"]) + Counter(net.edges["target"])
    ids = net.nodes["node_id"]
    assert dict(zip(ids, net.nodes["degree"])) == {n: degree.get(n, 0) for n in ids}
    assert net.nodes["eigenvector"].max() == pytest.approx(1.0)
    assert net.nodes["pagerank"].sum() == pytest.approx(1.0, abs=1e-6)


def test_work_nodes_carry_bibliographic_fields(sep):
    net = built(sep, "cocitation", {})
    inside = net.nodes[net.nodes["in_corpus"]]
    outside = net.nodes[~net.nodes["in_corpus"]]
    works = sep.works.set_index("work_id")
    named = sep.authorships[sep.authorships["author_name"].notna()]
    first = named.sort_values(["work_id", "position"]).drop_duplicates("work_id").set_index("work_id")
    assert len(inside) > 0 and len(outside) > 0
    for node in inside.itertuples():
        assert node.label == work_label(node.node_id, first["author_name"].get(node.node_id),
                                        works.loc[node.node_id, "year"], works.loc[node.node_id, "title"],
                                        works.loc[node.node_id, "venue"])
    assert (outside["label"] == outside["node_id"]).all() and outside["year"].isna().all()   # nothing known


def test_cited_works_name_the_nodes_outside_the_corpus(sep):
    plain = built(sep, "cocitation", {})
    outside = plain.nodes.loc[~plain.nodes["in_corpus"], "node_id"].head(3).tolist()
    cited = conform(pd.DataFrame({
        "work_id": outside, "first_author": ["Ann Lee", None, None], "year": [1999, 2001, None],
        "title": ["A cited work", None, None], "venue": [None, "J. Neurosci.", None],
        "doi": ["10.1/x", None, None], "citing": [2, 2, 2], "in_pool": [False] * 3}), CITED)
    net = build("cocitation", sep, {}, {}, cited=cited)
    nodes = net.nodes.set_index("node_id")
    assert nodes.loc[outside, "label"].tolist() == ["Lee (1999) A cited work", "(2001) J. Neurosci.", outside[2]]
    assert nodes.loc[outside[0], "year"] == 1999 and nodes.loc[outside[0], "doi"] == "10.1/x"
    assert pd.isna(nodes.loc[outside[2], "year"]) and not nodes.loc[outside, "in_corpus"].any()
    assert net.edges.equals(plain.edges) and (net.nodes["cluster"] == plain.nodes["cluster"]).all()


def test_empty_network_is_valid():
    bundle = bundle_from_works([{"id": "https://openalex.org/W1", "title": "alone"}])
    net = build("coupling", bundle, {}, {})
    assert len(net.nodes) == 1 and len(net.edges) == 0 and net.nodes["cluster"].tolist() == [1]
    assert net.metrics["modularity"] is None and net.metrics["stability"]["mean_ari"] == 1.0


def test_bad_parameters_are_data_errors(sep):
    cases = [("coupling", {"min_wieght": 2}, {}), ("citation", {"normalization": "salton"}, {}),
             ("keywords", {"field": "meshes"}, {}), ("coauthorship", {"counting": "half"}, {}),
             ("coupling", {"min_weight": 0}, {}), ("coupling", {}, {"algorithm": "louvain", "objective": "cpm"}),
             ("coupling", {}, {"seed": -1}), ("colours", {}, {})]
    for kind, params, communities in cases:
        with pytest.raises(DataError):
            build(kind, sep, params, communities)
    assert DEFAULTS["keywords"]["counting"] == "full" and DEFAULTS["keywords"]["thesaurus"] is None


def test_jobs_ask_for_memory_from_the_rows_they_read(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bib2graph import registry

    refs = tmp_path / "references.parquet"
    pq.write_table(pa.table({"work_id": ["W1"] * 2048}), refs)
    network = registry.DEMANDS["network"]
    assert registry.mem_mb("network", [str(refs), str(tmp_path / "works.parquet")]) == \
        math.ceil(network.base_mb + network.per_row_kb * 2)
    assert registry.mem_mb("network", [str(tmp_path / "missing/references.parquet")]) == network.base_mb
    assert registry.mem_mb("report", [str(refs)]) == registry.Demand().base_mb
    assert registry.threads("network", [str(refs)]) == 1 and registry.threads("export", [str(refs)]) == 1
    for rows in (100_000, 1_500_000):   # its stages run one after another at any size
        pq.write_table(pa.table({"work_id": pa.array(["W1"] * rows, pa.dictionary(pa.int32(), pa.string()))}), refs)
        assert registry.threads("network", [str(refs)]) == 1
    assert registry.threads("export", [str(refs)]) == 1   # its rows are the edges'
    edges = tmp_path / "edges.parquet"
    low, _ = registry.DEMANDS["export"].two_threads_rows
    for rows, threads in ((low - 1, 1), (low, 2)):
        pq.write_table(pa.table({"source": pa.array(["W1"] * rows, pa.dictionary(pa.int32(), pa.string()))}), edges)
        assert registry.threads("export", [str(edges)]) == threads


@pytest.mark.parametrize("kind", ["coupling", "citation", "coauthorship"])
def test_eigenvector_is_the_leading_eigenvector_of_the_largest_component(sep, kind):
    """Eigenvector centrality against networkx's (its dense solver, an independent route) on the largest
    connected component (ties: the one with the smallest node), the arcs of the citation network taken
    undirected with their weights summed, scaled to max 1; 0 outside it."""
    import networkx as nx

    net = built(sep, kind, {})
    g = nx.Graph()
    g.add_nodes_from(net.nodes["node_id"])
    for s, t, w in zip(net.edges["source"], net.edges["target"], net.edges["weight"]):
        g.add_edge(s, t, weight=w + (g[s][t]["weight"] if g.has_edge(s, t) else 0.0))
    largest = sorted(nx.connected_components(g), key=lambda c: (-len(c), min(c)))[0]
    ref = nx.eigenvector_centrality_numpy(g.subgraph(largest), weight="weight")
    top = max(ref.values())
    got = dict(zip(net.nodes["node_id"], net.nodes["eigenvector"]))
    assert len(largest) > 50 and all(got[v] == 0 for v in g if v not in largest)
    assert max(abs(got[v] - ref[v] / top) for v in largest) < 1e-9


def test_large_tables_are_checked_column_wise_as_pandera_checks_them(sep):
    """The column-wise check of large tables gives the frame pandera's conform gives (shuffled rows come back
    sorted, dtypes coerced alike) and refuses what pandera refuses: nulls, failed checks, repeated keys."""
    from bib2graph.networks.schema import COUPLING_EVIDENCE
    from bib2graph.tables import _conform_large

    net = build("coupling", sep, {}, {"stability_runs": 1})
    tables = [(net.nodes, NODES), (net.edges, EDGES), (net.evidence, COUPLING_EVIDENCE)]
    for table, schema in tables:
        for frame in (table, table.sample(frac=1, random_state=3).astype(object)):
            pd.testing.assert_frame_equal(_conform_large(frame, schema), conform(frame, schema))
    edges = net.edges
    for broken, why in ((edges.assign(weight=-edges["weight"]), "greater_than"),
                        (edges.assign(source=None), "not_nullable"),
                        (pd.concat([edges, edges.head(1)]), "unique")):
        with pytest.raises(DataError, match=why):
            _conform_large(broken, EDGES)


@pytest.mark.parametrize("algorithm", ["leiden", "louvain"])
@pytest.mark.parametrize("normalization", ["raw", "association", "salton"])
def test_quality_at_resolution_one_is_the_objective_computed_on_its_own(donners, algorithm, normalization):
    """At modularity's resolution 1 the quality is the modularity already computed (one pass over the
    edges fewer: 0.2 s at 5.6M edges); it must be the very float `quality` gives, bit for bit."""
    from bib2graph.networks.communities import detect, quality, undirected
    from bib2graph.networks.params import resolve_communities

    net = build("coupling", donners, {"normalization": normalization}, {"algorithm": algorithm, "seed": 3})
    codes = {node: k for k, node in enumerate(net.nodes["node_id"])}
    i = net.edges["source"].map(codes).to_numpy()
    j = net.edges["target"].map(codes).to_numpy()
    params = resolve_communities({"algorithm": algorithm, "seed": 3, "stability_runs": 1})
    for n, a, b, w in [(len(codes), i, j, net.edges["weight"].to_numpy()), _structureless(), _cliques()]:
        clusters, report = detect(n, a, b, w, params, with_stability=False)
        own = quality(undirected(n, a, b, w, directed=False), (clusters - 1).tolist(), params)
        assert report["quality"] == own and report["quality"] == report["modularity"]
