"""The read verbs the map and the GUI use (networks, network, evidence, search, queue, prisma, inspect's
neighbours), on the built demo: answers checked against the Parquet tables read independently with
pandas, errors by code and exit, and not one byte written under the workspace."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from bib2graph.cli import main

from .helpers import check_envelope

KINDS = ["citation", "coauthorship", "cocitation", "coupling", "institutions", "keywords"]


def call(capsys, ws: Path, *args: str) -> dict:
    """One verb through b2g's own entry point, in this process (cheap); its envelope, checked."""
    code = main([*args, "--json", "--workspace", str(ws)])
    env = json.loads(capsys.readouterr().out)
    check_envelope(env)
    assert env["exit_code"] == code
    return env


def ok(capsys, ws: Path, *args: str) -> dict:
    env = call(capsys, ws, *args)
    assert env["ok"], env["error"]
    return env["data"]


def tree_hash(root: Path) -> dict[str, str]:
    """Every path below `root` (folders too) with the SHA-256 of each file's bytes."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def table(ws: Path, relative: str) -> pd.DataFrame:
    return pd.read_parquet(ws / relative)


def strongest_edge(ws: Path, kind: str) -> tuple[str, str]:
    edges = table(ws, f"results/networks/{kind}/edges.parquet")
    top = edges.sort_values(["weight", "count", "source", "target"], ascending=[False, False, True, True]).iloc[0]
    return top["source"], top["target"]


@pytest.mark.long
def test_read_verbs_write_nothing_and_answer_in_the_contract(built_demo, capsys):
    ws = built_demo
    source, target = strongest_edge(ws, "coupling")
    before = tree_hash(ws)
    for args in (["networks"], ["network", "cocitation", "--edges", "100"], ["evidence", "coupling", source, target],
                 ["search", "memory"], ["queue", "--limit", "5"], ["prisma"], ["inspect", source]):
        ok(capsys, ws, *args)
        assert main([*args, "--workspace", str(ws)]) == 0           # and the human rendering
        assert capsys.readouterr().err.strip()
    assert tree_hash(ws) == before


def test_networks_lists_every_kind_with_its_size(built_demo, capsys):
    listed = ok(capsys, built_demo, "networks")["networks"]
    assert [n["kind"] for n in listed] == KINDS
    for entry in listed:
        metrics = json.loads((built_demo / f"results/networks/{entry['kind']}/metrics.json").read_text())
        assert entry["built"] and entry["layout"] is True
        assert (entry["nodes"], entry["edges"], entry["clusters"]) == \
            (metrics["nodes"], metrics["edges"], metrics["n_clusters"]) != (0, 0, 0)
        assert entry["directed"] is (entry["kind"] == "citation")


def test_network_pages_concatenate_to_the_whole_sorted_edge_list(built_demo, capsys):
    edges = table(built_demo, "results/networks/coupling/edges.parquet")
    expected = edges.sort_values(["weight", "count", "source", "target"], ascending=[False, False, True, True])
    pages, offset = [], 0
    while offset is not None:
        data = ok(capsys, built_demo, "network", "coupling", "--edges", "700", "--offset", str(offset))
        assert data["edges_offset"] == offset and data["edges_total"] == len(edges)
        pages += data["edges"]
        offset = data["edges_next"]
    assert len(pages) == len(edges) > 2100                       # 2818 edges: five pages
    got = pd.DataFrame(pages)[["source", "target", "count", "weight"]]
    pd.testing.assert_frame_equal(got, expected.reset_index(drop=True), check_dtype=False)
    nodes = table(built_demo, "results/networks/coupling/nodes.parquet")
    assert [n["id"] for n in data["nodes"]] == sorted(nodes["node_id"])
    first = nodes.set_index("node_id").loc[data["nodes"][0]["id"]]
    assert data["nodes"][0]["pagerank"] == first["pagerank"] and data["nodes"][0]["cluster"] == first["cluster"]
    layout = table(built_demo, "results/layouts/coupling/layout.parquet").set_index("node_id")
    assert {n["id"]: (n["x"], n["y"]) for n in data["nodes"]} == \
        {i: (r.x, r.y) for i, r in layout.iterrows()}
    assert [n["mean_year"] for n in data["nodes"]] == nodes.sort_values("node_id")["mean_year"].tolist()
    assert data["clusters"] == data["metrics"]["clusters"]     # the whole cluster table, as the clusters job wrote it
    for past in (len(edges), 10**20):      # beyond int64 was DuckDB's conversion error: ARTIFACT_CORRUPT
        beyond = ok(capsys, built_demo, "network", "coupling", "--offset", str(past))
        assert beyond["edges"] == [] and beyond["edges_next"] is None and beyond["edges_offset"] == past


def test_network_takes_positions_from_the_layout(demo, capsys):
    nodes = table(demo, "results/networks/keywords/nodes.parquet")
    folder = demo / "results/layouts/keywords"
    layout = pd.DataFrame({"node_id": nodes["node_id"], "x": range(len(nodes)), "y": [-1.5] * len(nodes)})
    layout.astype({"x": float}).iloc[1:].to_parquet(folder / "layout.parquet")   # one node without a position
    mean_year = [float("nan")] + [2000.5 + i for i in range(1, len(nodes))]      # the column another rule adds
    nodes.assign(mean_year=mean_year).to_parquet(demo / "results/networks/keywords/nodes.parquet")
    data = ok(capsys, demo, "network", "keywords", "--edges", "0")
    assert data["edges"] == [] and data["edges_next"] is None and data["edges_total"] > 0
    position = {n["id"]: (n["x"], n["y"]) for n in data["nodes"]}
    assert position[nodes["node_id"][0]] == (None, None)
    assert position[nodes["node_id"][5]] == (5.0, -1.5)
    assert [n["mean_year"] for n in data["nodes"][:2]] == [None, 2001.5]
    assert [n["layout"] for n in ok(capsys, demo, "networks")["networks"] if n["kind"] == "keywords"] == [True]


def test_evidence_of_a_coupling_edge_is_the_references_both_works_share(built_demo, capsys):
    source, target = strongest_edge(built_demo, "coupling")
    refs = table(built_demo, "results/corpus/references.parquet")
    shared = set(refs.loc[refs.work_id == source, "referenced_id"]) & set(refs.loc[refs.work_id == target, "referenced_id"])
    data = ok(capsys, built_demo, "evidence", "coupling", target, source)     # either order
    assert (data["source"], data["target"], data["computed"]) == (source, target, "stored")
    assert [d["work_id"] for d in data["documents"]] == sorted(shared) and len(shared) == data["count"] > 5
    assert ok(capsys, built_demo, "evidence", "coupling", source, target) == data
    # the IDs in the forms inspect and accept take: an OpenAlex URL, a lower-case w
    assert ok(capsys, built_demo, "evidence", "coupling", f"https://openalex.org/{source}", target.lower()) == data
    pool = table(built_demo, "results/chain/pool/works.parquet").set_index("work_id")
    for doc in data["documents"]:
        if doc["work_id"] in pool.index:
            assert doc["title"] == pool.loc[doc["work_id"], "title"]


def test_evidence_names_references_outside_the_pool_from_the_cited_works_table(demo, capsys):
    source, target = strongest_edge(demo, "coupling")
    pool = set(table(demo, "results/chain/pool/works.parquet").work_id)
    outside = [d["work_id"] for d in ok(capsys, demo, "evidence", "coupling", source, target)["documents"]
               if d["work_id"] not in pool]
    assert outside
    (demo / "results/chain/cited").mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"work_id": [outside[0]], "first_author": ["Ann Smith"], "year": [1999], "title": ["Old memory"],
                  "venue": ["Brain"], "doi": ["10.1/old"], "citing": [2], "in_pool": [False]}
                 ).to_parquet(demo / "results/chain/cited/works.parquet")
    named = {d["work_id"]: d for d in ok(capsys, demo, "evidence", "coupling", source, target)["documents"]}
    assert named[outside[0]] == {"work_id": outside[0], "title": "Old memory", "year": 1999, "doi": "10.1/old",
                                 "venue": "Brain", "authors": ["Ann Smith"], "in_corpus": False, "label": "Old memory"}


def test_evidence_of_cocitation_is_the_works_citing_both(built_demo, capsys):
    a, b = strongest_edge(built_demo, "cocitation")
    refs = table(built_demo, "results/corpus/references.parquet")
    citing = set(refs.loc[refs.referenced_id == a, "work_id"]) & set(refs.loc[refs.referenced_id == b, "work_id"])
    docs = ok(capsys, built_demo, "evidence", "cocitation", a, b)["documents"]
    assert [d["work_id"] for d in docs] == sorted(citing) and all(d["in_corpus"] and d["title"] for d in docs)


def test_evidence_on_demand_equals_the_stored_table(demo, capsys, tmp_path):
    stored = {}
    for kind in KINDS:
        stored[kind] = ok(capsys, demo, "evidence", kind, *strongest_edge(demo, kind))
        assert stored[kind]["computed"] == "stored" and stored[kind]["documents"]
        (demo / f"results/networks/{kind}/evidence.parquet").unlink()
    for kind in KINDS:
        again = ok(capsys, demo, "evidence", kind, *strongest_edge(demo, kind))
        assert again.pop("computed") == "on_demand"
        assert again == {k: v for k, v in stored[kind].items() if k != "computed"}, kind


def test_unknown_networks_and_edges_are_typed_errors(built_demo, capsys, tmp_path):
    cases = [(["network", "maps"], "UNKNOWN_NETWORK", 2), (["evidence", "nope", "W1", "W2"], "UNKNOWN_NETWORK", 2),
             (["evidence", "coupling", "W1", "W2"], "UNKNOWN_EDGE", 2),
             (["evidence", "citation", *reversed(strongest_edge(built_demo, "citation"))], "UNKNOWN_EDGE", 2),
             (["network", "coupling", "--edges", "200001"], "USAGE_ERROR", 1),
             (["network", "coupling", "--offset", "-1"], "USAGE_ERROR", 1),
             (["search", "  "], "USAGE_ERROR", 1), (["queue", "--limit", "0"], "USAGE_ERROR", 1),
             (["inspect", "W1"], "UNKNOWN_ID", 2)]
    for args, code, exit_code in cases:
        env = call(capsys, built_demo, *args)
        assert (env["error"]["code"], env["exit_code"]) == (code, exit_code), args
    fresh = tmp_path / "fresh"
    assert main(["init", str(fresh)]) == 0
    capsys.readouterr()
    for args in (["network", "coupling"], ["evidence", "coupling", "W1", "W2"], ["prisma"], ["queue"], ["search", "x"]):
        assert call(capsys, fresh, *args)["error"]["code"] == "ARTIFACT_MISSING", args
    assert [n["built"] for n in ok(capsys, fresh, "networks")["networks"]] == [False] * len(KINDS)


def test_search_finds_a_work_by_title_word_author_and_any_doi_form(built_demo, capsys):
    works = table(built_demo, "results/chain/pool/works.parquet")
    authors = table(built_demo, "results/chain/pool/authorships.parquet")
    work = works[works.doi.notna() & works.title.str.contains("entorhinal", case=False)].sort_values("work_id").iloc[0]
    surname = authors[authors.work_id == work.work_id].sort_values("position").author_name.iloc[0].split()[-1]
    for text in (work.doi, f"https://doi.org/{work.doi.upper()}", f"doi:{work.doi}", work.work_id.lower(),
                 f"https://openalex.org/{work.work_id}"):
        assert ok(capsys, built_demo, "search", text)["works"][0]["work_id"] == work.work_id, text
    found = ok(capsys, built_demo, "search", "ENTORHINAL", "--limit", "1000")["works"]
    titled = works[works.title.str.contains("entorhinal", case=False, na=False)]
    assert {w["work_id"] for w in found} == set(titled.work_id) and work.work_id in {w["work_id"] for w in found}
    keys = [(-(w["year"] or 0), w["work_id"]) for w in found]
    assert keys == sorted(keys)                                      # title matches only: year desc, then ID
    by_author = ok(capsys, built_demo, "search", surname, "--limit", "1000")["works"]
    assert work.work_id in [w["work_id"] for w in by_author]
    named = set(authors.loc[authors.author_name.str.contains(surname, case=False, na=False), "work_id"])
    in_title = set(works.loc[works.title.str.contains(surname, case=False, na=False), "work_id"])
    assert {w["work_id"] for w in by_author} == named | in_title
    ranks = [0 if w["work_id"] in in_title else 1 for w in by_author]
    assert ranks == sorted(ranks)                                   # title matches before author matches
    assert {w["state"] for w in found} <= {"included", "excluded", "pending"}
    assert ok(capsys, built_demo, "search", "zzqxj nothing")["works"] == []


def test_search_state_follows_the_latest_decision(demo, capsys):
    work_id = ok(capsys, demo, "search", "entorhinal")["works"][0]["work_id"]
    assert ok(capsys, demo, "search", work_id)["works"][0]["state"] == "included"
    ok(capsys, demo, "reject", work_id, "--reason", "off topic")
    assert ok(capsys, demo, "search", work_id)["works"][0]["state"] == "excluded"


def test_queue_holds_the_undecided_non_seeds_in_curate_dump_order(demo, capsys, tmp_path):
    pool = table(demo, "results/chain/pool/works.parquet")
    seeds = set(table(demo, "results/seed/seeds.parquet").work_id)
    data = ok(capsys, demo, "queue", "--limit", "10000")
    ids = [w["work_id"] for w in data["works"]]
    assert data["pending"] == len(ids) == len(set(pool.work_id) - seeds) > 0 and not set(ids) & seeds
    dump = tmp_path / "dump.csv"
    ok(capsys, demo, "curate", "dump", "--out", str(dump))
    assert ids == pd.read_csv(dump, encoding="utf-8-sig").work_id.tolist()
    candidates = table(demo, "results/chain/candidates.parquet").set_index("work_id")
    first = data["works"][0]
    via = candidates.loc[first["work_id"], "via"].split()[0]
    linked = pool.set_index("work_id").loc[via]
    authors = table(demo, "results/chain/pool/authorships.parquet")
    author = authors[authors.work_id == via].sort_values("position").author_name.dropna().iloc[0]
    assert f"{via} ({author.split()[-1]} {linked.year})" in first["why_here"]   # named, not only an ID
    assert "round 1" in first["why_here"] and any(w["abstract"] for w in data["works"])
    ok(capsys, demo, "reject", ids[0], "--reason", "off topic")
    ok(capsys, demo, "accept", ids[2])
    after = ok(capsys, demo, "queue", "--limit", "10000")     # an exclude now: the model ranks the rest
    assert after["pending"] == data["pending"] - 2 and after["order"]["by"] == "model"
    assert sorted(w["work_id"] for w in after["works"]) == sorted(set(ids) - {ids[0], ids[2]})
    assert ok(capsys, demo, "status")["counts"]["pending"] == after["pending"]


def test_prisma_is_the_corpus_phase_counts(built_demo, capsys):
    data = ok(capsys, built_demo, "prisma")
    assert data["prisma"] == json.loads((built_demo / "results/corpus/prisma.json").read_text())
    assert data["prisma"]["included"] == len(table(built_demo, "results/corpus/works.parquet"))


def test_inspect_lists_the_strongest_neighbours_in_each_network(built_demo, capsys):
    source, _ = strongest_edge(built_demo, "coupling")
    data = ok(capsys, built_demo, "inspect", source)
    assert set(data["neighbours"]) == {k for k in KINDS if k in data["networks"]} >= {"coupling", "citation"}
    edges = table(built_demo, "results/networks/coupling/edges.parquet")
    mine = edges[(edges.source == source) | (edges.target == source)]
    other = mine.source.where(mine.source != source, mine.target)
    expected = mine.assign(id=other).sort_values(["weight", "count", "id"], ascending=[False, False, True]).head(20)
    linked = data["neighbours"]["coupling"]
    assert [(n["id"], n["weight"]) for n in linked] == list(zip(expected.id, expected.weight)) and len(linked) == 20
    labels = table(built_demo, "results/networks/coupling/nodes.parquet").set_index("node_id").label
    assert all(n["label"] == labels[n["id"]] for n in linked)
    cited = data["neighbours"]["citation"]
    arcs = table(built_demo, "results/networks/citation/edges.parquet")
    assert {(n["id"], n["direction"]) for n in cited} <= \
        {(t, "out") for t in arcs.loc[arcs.source == source, "target"]} | \
        {(s, "in") for s in arcs.loc[arcs.target == source, "source"]}


@pytest.mark.long
def test_a_json_artifact_damaged_or_of_another_shape_is_artifact_corrupt(demo, capsys):
    """metrics.json or stability.json emptied, or holding JSON that is no object (`[]`, `null`, `NaN`): the
    read verbs answer ARTIFACT_CORRUPT naming the file (inspect, network and evidence were INTERNAL)."""
    folder = demo / "results/networks/citation"
    source, target = strongest_edge(demo, "citation")
    for name in ("metrics.json", "stability/stability.json"):
        kept = (folder / name).read_bytes()
        for text in ("", "[]", "null", "NaN", '{"kind": '):
            (folder / name).write_text(text, encoding="utf-8")
            for args in (("network", "citation"), ("evidence", "citation", source, target), ("inspect", source)):
                env = call(capsys, demo, *args)
                if name.startswith("stability") and args[0] == "inspect":
                    assert env["ok"], env["error"]      # inspect reads no stability score
                    continue
                assert env["error"]["code"] == "ARTIFACT_CORRUPT" and env["exit_code"] == 2, (name, text, args)
                assert str(folder / name) in env["error"]["details"]["files"]
        (folder / name).write_bytes(kept)


def test_a_damaged_field_of_metrics_or_prisma_is_artifact_corrupt_naming_its_place(demo, capsys):
    """An object whose fields are not what the readers take (a cluster numbered "x", a cluster without its
    size, terms that are no list): `network` and `evidence` were INTERNAL with a traceback, the API a 500."""
    folder = demo / "results/networks/citation"
    source, target = strongest_edge(demo, "citation")
    kept = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    first = kept["clusters"][0]
    damaged = {"clusters/0/cluster": {**kept, "clusters": [{**first, "cluster": "x"}]},
               "clusters/0": {**kept, "clusters": [{k: v for k, v in first.items() if k != "size"}]},
               "clusters": {**kept, "clusters": 5},
               "clusters/0/terms": {**kept, "clusters": [{**first, "terms": 3}]},
               "nodes": {**kept, "nodes": -1}}
    for place, metrics in damaged.items():
        (folder / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
        for args in (("network", "citation"), ("evidence", "citation", source, target)):
            env = call(capsys, demo, *args)
            assert env["error"]["code"] == "ARTIFACT_CORRUPT" and env["exit_code"] == 2, (place, args, env["error"])
            assert env["error"]["details"] == {"files": [str(folder / "metrics.json")], "place": place}
    (folder / "metrics.json").write_text(json.dumps(kept), encoding="utf-8")
    assert call(capsys, demo, "network", "citation")["ok"]
    path = demo / "results/corpus/prisma.json"
    counts = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**counts, "included": "many"}), encoding="utf-8")
    env = call(capsys, demo, "prisma")
    assert env["error"]["code"] == "ARTIFACT_CORRUPT" and env["error"]["details"]["place"] == "included"


def test_prisma_counts_that_are_no_json_object_are_artifact_corrupt(demo, capsys):
    """A bare NaN (which Python's json reads and put on stdout, no JSON) or JSON of another shape."""
    path = demo / "results/corpus/prisma.json"
    for text in ("NaN", '"x"', "[]", '{"identified": NaN}', ""):
        path.write_text(text, encoding="utf-8")
        env = call(capsys, demo, "prisma")
        assert env["error"]["code"] == "ARTIFACT_CORRUPT" and env["error"]["details"]["files"] == [str(path)], text
