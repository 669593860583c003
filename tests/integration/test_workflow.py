"""The real workflow, end to end, on the bundled real corpus in a temporary workspace."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
import yaml

from bib2graph.networks import KINDS
from bib2graph.networks.schema import EDGES, NODES
from bib2graph.networks.work_labels import work_label
from bib2graph.tables import BUNDLE_TABLES, CITED, SCREENING, read_table

from .conftest import keep_networks
from .helpers import b2g, ran_jobs, tree_state

pytestmark = pytest.mark.integration
INIT_CREATED = [".gitignore", "config/curation.tsv", "config/research.yaml", "profiles/default/config.yaml",
                "profiles/slurm/config.yaml"]


def test_init_writes_the_spec_curation_file_and_profiles(tmp_path):
    call = b2g("init", str(tmp_path / "review"), "--json")
    assert call.returncode == 0, call.stderr
    assert call.envelope["data"]["created"] == INIT_CREATED


def _nodes(root: Path, kind: str) -> set[str]:
    return set(read_table(root / f"results/networks/{kind}/nodes.parquet", NODES).node_id)


def test_every_network_matches_its_metrics_and_the_corpus_is_there(built_demo):
    workspace = built_demo
    for kind in KINDS:
        folder = workspace / "results" / "networks" / kind
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        assert len(read_table(folder / "nodes.parquet", NODES)) == metrics["nodes"] > 0, kind
        assert len(read_table(folder / "edges.parquet", EDGES)) == metrics["edges"], kind
        assert metrics["directed"] == (kind == "citation")
        assert (folder / "manifest.json").is_file()
        assert not (folder / "network.graphml").exists()   # drawings are the export job's
        graph = nx.read_graphml(workspace / "results/export" / kind / "network.graphml")
        assert graph.number_of_nodes() == metrics["nodes"] and graph.number_of_edges() == metrics["edges"], kind
        assert graph.is_directed() == (kind == "citation")
    for name, schema in BUNDLE_TABLES.items():
        assert len(read_table(workspace / f"results/corpus/{name}.parquet", schema)) > 0, name
    screening = read_table(workspace / "results/corpus/screening.parquet", SCREENING)
    assert screening.included.all()  # nothing filtered or rejected yet
    report = (workspace / "results/report/index.html").read_text(encoding="utf-8")
    assert "<svg" in report and "coupling" in report
    for kind in KINDS:   # each network's report section says whether its clusters come back under other seeds
        said = json.loads((workspace / f"results/networks/{kind}/stability/stability.json").read_text(encoding="utf-8"))
        assert said["clusters_reproducible"] in (True, False) and said["stability"]["runs"] == 5
        assert said["reproducibility"].replace("'", "&#x27;") in report, kind
    manifest = json.loads((workspace / "results/corpus/manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["included"] == len(screening)
    assert all(not Path(p).is_absolute() for p in manifest["inputs"])


def test_bibliographies_hold_the_corpus_and_each_networks_works(built_demo):
    """The corpus bibliography holds every included work once; a network's, its works tagged by cluster."""
    import re

    from bib2graph.sources.exports.ris import read_ris
    from bib2graph.skips import Skips
    from bib2graph.tables import WORKS

    works = sorted(read_table(built_demo / "results/corpus/works.parquet", WORKS)["work_id"])
    bib = (built_demo / "results/corpus/bibliography.bib").read_text(encoding="utf-8")
    assert re.findall(r"^@\w+\{([^,]+),$", bib, re.M) == works
    csl = json.loads((built_demo / "results/corpus/bibliography.csl.json").read_text(encoding="utf-8"))
    assert [item["id"] for item in csl] == works
    folder = built_demo / "results/export/coupling"
    order = [line.split(",")[2] for line in (folder / "reading_order.csv").read_text().splitlines()[1:]]
    records = list(read_ris(folder / "bibliography.ris", "bibliography.ris", Skips(strict=True)))
    assert [r.ids["openalex"] for r in records] == order
    assert all(len(r.author_keywords) == 1 and r.author_keywords[0].startswith("b2g:cluster-") for r in records)


def test_second_run_does_nothing(demo):
    workspace = demo
    before = tree_state(workspace / "results")
    again = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert again.returncode == 0, again.stderr[-2000:]
    assert "Nothing to be done" in again.stderr
    assert tree_state(workspace / "results") == before


@pytest.mark.long
def test_status_is_one_json_line_and_names_the_stale_network(demo):
    workspace = demo
    status = b2g("status", "--json", "--workspace", str(workspace))
    assert status.returncode == 0, status.stderr
    env = status.envelope
    assert env["schema"] == "1" and env["command"] == "status" and env["ok"]
    data = env["data"]
    assert data["up_to_date"] is True
    assert {j["state"] for j in data["jobs"]} == {"complete"}
    counts = data["counts"]
    assert counts["seeds"] == 40 and counts["corpus"] == counts["pool"]
    for kind in KINDS:
        metrics = json.loads((workspace / f"results/networks/{kind}/metrics.json").read_text(encoding="utf-8"))
        assert counts["networks"][kind] == {"nodes": metrics["nodes"], "edges": metrics["edges"]}

    spec_path = workspace / "config/research.yaml"
    original = spec_path.read_text(encoding="utf-8")
    spec = yaml.safe_load(original)
    spec["networks"]["keywords"]["min_occurrences"] = 3
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    try:
        jobs = {j["job"]: j for j in b2g("status", "--json", "--workspace", str(workspace)).envelope["data"]["jobs"]}
    finally:
        spec_path.write_text(original, encoding="utf-8")
    assert jobs["network:keywords"]["state"] == "stale"
    assert "its part of the spec is not the one its outputs were made with" in jobs["network:keywords"]["reasons"]
    for kind in set(KINDS) - {"keywords"}:
        assert jobs[f"network:{kind}"]["state"] == "complete", kind
    for job in ("seed", "chain", "cited", "corpus"):
        assert jobs[job]["state"] == "complete"
    assert {j["state"] for j in b2g("status", "--json", "--workspace", str(workspace))
            .envelope["data"]["jobs"]} == {"complete"}


@pytest.mark.long
def test_the_labels_section_makes_only_the_cited_works_and_what_reads_them_stale(demo):
    spec_path = demo / "config/research.yaml"
    original = spec_path.read_text(encoding="utf-8")
    spec = yaml.safe_load(original)
    spec["labels"] = {"max_works": 5}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    data = b2g("status", "--json", "--workspace", str(demo)).envelope["data"]
    assert set(data["pending_jobs"]) == {"cited", "network:cocitation", "clusters:cocitation", "layout:cocitation",
                                         "stability:cocitation", "export:cocitation", "report"}

    spec_path.write_text(original, encoding="utf-8")   # curation redraws the corpus, not the pool's citations
    victim = sorted(_nodes(demo, "coupling"))[0]
    assert b2g("reject", victim, "--reason", "off-topic", "--json", "--workspace", str(demo)).returncode == 0
    pending = set(b2g("status", "--json", "--workspace", str(demo)).envelope["data"]["pending_jobs"])
    assert "corpus" in pending and "network:cocitation" in pending and "cited" not in pending


def test_cocited_works_the_universe_holds_are_named(built_demo):
    cited = read_table(built_demo / "results/chain/cited/works.parquet", CITED).set_index("work_id")
    nodes = read_table(built_demo / "results/networks/cocitation/nodes.parquet", NODES).set_index("node_id")
    outside = nodes[~nodes["in_corpus"]]
    named = cited.index.intersection(outside.index)
    assert len(named) > 0 and not cited.loc[named, "in_pool"].any()   # looked up in the universe
    for work_id in named:
        row = cited.loc[work_id]
        assert outside.loc[work_id, "label"] == work_label(work_id, row["first_author"], row["year"], row["title"],
                                                           row["venue"]) != work_id
        assert outside.loc[work_id, "year"] == row["year"]
    assert (outside.drop(named)["label"] == outside.drop(named).index).all()


@pytest.mark.long
def test_editing_cluster_labels_or_stability_reruns_only_the_jobs_that_use_them(demo):
    workspace = keep_networks(demo, "coupling")
    assert b2g("run", "--cores", "2", "--workspace", str(workspace)).returncode == 0   # the report, for one network
    folder = workspace / "results/networks/coupling"
    named = {name: (folder / name).read_bytes() for name in ("nodes.parquet", "metrics.json")}
    kept = [folder / "graph/nodes.parquet", folder / "graph/metrics.json", folder / "edges.parquet",
            workspace / "results/layouts/coupling/layout.parquet"]
    kept_state = [(p.read_bytes(), p.stat().st_mtime_ns) for p in kept]
    spec_path = workspace / "config/research.yaml"
    original = spec_path.read_text(encoding="utf-8")
    spec = yaml.safe_load(original)
    spec.setdefault("communities", {})["labels"] = {"method": "ctfidf", "fields": ["title"]}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")

    rerun = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert ran_jobs(rerun.stderr) == {"clusters:coupling", "export:coupling", "report"}
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in kept] == kept_state   # never clustered again
    metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["cluster_labels"]["method"] == "ctfidf" and metrics["cluster_labels"]["fields"] == ["title"]
    vos = json.loads((workspace / "results/export/coupling/vosviewer.json").read_text(encoding="utf-8"))
    assert {c["cluster"]: c["label"] for c in vos["network"]["clusters"]} == \
        {c["cluster"]: c["label"] for c in metrics["clusters"]}

    spec_path.write_text(original, encoding="utf-8")   # back: the same labels and table, byte for byte
    again = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert again.returncode == 0 and ran_jobs(again.stderr) == {"clusters:coupling", "export:coupling", "report"}
    assert {name: (folder / name).read_bytes() for name in named} == named

    spec = yaml.safe_load(original)   # measuring stability differently: its own job and the report, nothing else
    spec.setdefault("communities", {})["stability_runs"] = 3
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    measured = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert measured.returncode == 0 and ran_jobs(measured.stderr) == {"stability:coupling", "report"}
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in kept] == kept_state
    said = json.loads((folder / "stability/stability.json").read_text(encoding="utf-8"))
    assert said["stability"]["runs"] == 3 and said["stability"]["seeds"] == [42, 43, 44]
    report = (workspace / "results/report/index.html").read_text(encoding="utf-8")
    assert said["reproducibility"].replace("'", "&#x27;") in report and "2 other seeds" in said["reproducibility"]


@pytest.mark.long
def test_skipping_betweenness_reruns_the_networks_and_every_file_says_null(demo):
    workspace = keep_networks(demo, "citation")
    spec_path = workspace / "config/research.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    spec["metrics"] = {"betweenness": {"enabled": False}}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    rerun = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert ran_jobs(rerun.stderr) == {"network:citation", "clusters:citation", "layout:citation", "export:citation",
                                      "stability:citation", "report"}
    nodes = read_table(workspace / "results/networks/citation/nodes.parquet", NODES)
    assert nodes["betweenness"].isna().all() and nodes["eigenvector"].notna().all()
    metrics = json.loads((workspace / "results/networks/citation/metrics.json").read_text(encoding="utf-8"))
    assert metrics["betweenness"] == {"method": "skipped",
                                      "reason": "metrics.betweenness.enabled is false: the column is null"}
    report = (workspace / "results/report/index.html").read_text(encoding="utf-8")
    assert "Betweenness not computed: metrics.betweenness.enabled is false" in report


@pytest.mark.long
def test_reject_reruns_corpus_onward_and_accept_restores(demo):
    workspace = keep_networks(demo, "coupling")
    coupling = _nodes(workspace, "coupling")
    victim = sorted(coupling)[0]
    upstream = [workspace / "results/seed/seeds.parquet", workspace / "results/chain/candidates.parquet"]
    upstream_state = [p.stat().st_mtime_ns for p in upstream]

    rejected = b2g("reject", victim, "--reason", "off-topic", "--json", "--workspace", str(workspace))
    assert rejected.returncode == 0, rejected.stderr
    assert rejected.envelope["data"]["changed"] == [victim]
    rerun = b2g("run", "--cores", "2", "--workspace", str(workspace))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert ran_jobs(rerun.stderr) == {"corpus", "network:coupling", "clusters:coupling", "layout:coupling",
                                      "export:coupling", "stability:coupling", "report"}
    assert [p.stat().st_mtime_ns for p in upstream] == upstream_state
    works = read_table(workspace / "results/corpus/works.parquet", BUNDLE_TABLES["works"])
    assert victim not in set(works.work_id)
    assert victim not in _nodes(workspace, "coupling")
    screening = read_table(workspace / "results/corpus/screening.parquet", SCREENING).set_index("work_id")
    assert screening.loc[victim, "excluded_by"] == "curation"
    assert screening.loc[victim, "decision_reason"] == "off-topic"

    accepted = b2g("accept", victim, "--json", "--workspace", str(workspace))
    assert accepted.returncode == 0, accepted.stderr
    assert b2g("run", "--cores", "2", "--workspace", str(workspace)).returncode == 0
    assert _nodes(workspace, "coupling") == coupling   # the victim is back


def test_unknown_id_records_nothing(demo):
    workspace = demo
    curation = workspace / "config/curation.tsv"
    before = curation.read_bytes()
    call = b2g("reject", "W1", "W999999999999", "--reason", "x", "--json", "--workspace", str(workspace))
    assert call.returncode == 2
    assert call.envelope["error"]["code"] == "UNKNOWN_ID"
    assert curation.read_bytes() == before


def test_withdraw_makes_a_decided_work_pending_again_by_id_or_doi(demo):
    curation = demo / "config/curation.tsv"
    original = curation.read_bytes()
    pool = read_table(demo / "results/chain/pool/works.parquet", BUNDLE_TABLES["works"])
    work = pool.dropna(subset=["doi"]).sort_values("work_id").iloc[0]
    assert b2g("reject", work.work_id, "--reason", "off-topic", "--workspace", str(demo)).returncode == 0
    assert curation.read_bytes() != original
    call = b2g("withdraw", f"https://doi.org/{work.doi.upper()}", "--json", "--workspace", str(demo))
    assert call.returncode == 0, call.stdout
    assert call.envelope["data"]["withdrawn"] == [work.work_id] == call.envelope["data"]["ids"]
    assert curation.read_bytes() == original                     # as if never decided
    again = b2g("withdraw", work.work_id, "--json", "--workspace", str(demo))
    assert again.returncode == 0 and again.envelope["data"]["withdrawn"] == []
    unknown = b2g("withdraw", "10.9999/not-in-the-pool", "--json", "--workspace", str(demo))
    assert unknown.returncode == 2 and unknown.envelope["error"]["code"] == "UNKNOWN_ID"
    assert curation.read_bytes() == original


@pytest.mark.parametrize("edit,key,place", [
    (lambda s: s["networks"]["coupling"].update(min_wieght=2), "min_wieght", "networks.coupling.min_wieght"),
    (lambda s: s["chain"].update(depth="two"), "depth", "chain.depth"),
])
def test_bad_spec_exits_2_and_changes_nothing(demo, edit, key, place):
    workspace = demo
    spec_path = workspace / "config/research.yaml"
    original = spec_path.read_text(encoding="utf-8")
    spec = yaml.safe_load(original)
    edit(spec)
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    before = tree_state(workspace / "results")
    try:
        call = b2g("run", "--json", "--workspace", str(workspace))
    finally:
        spec_path.write_text(original, encoding="utf-8")
    assert call.returncode == 2
    env = call.envelope
    assert env["ok"] is False and env["exit_code"] == 2
    assert env["error"]["code"] == "SPEC_INVALID"
    assert env["error"]["details"]["key"] == key and env["error"]["details"]["place"] == place
    assert place in env["error"]["message"]
    assert tree_state(workspace / "results") == before


@pytest.mark.long
def test_skipped_seed_entries_and_an_empty_corpus_are_said_in_the_envelope(demo):
    (demo / "seeds.bib").write_text("@article{kept,\n  doi = {10.1016/j.nlm.2011.11.007}\n}\n"
                                    "@article{broken,\n  title = {never closed\n", encoding="utf-8")
    spec_path = demo / "config/research.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    spec["seed"]["files"] = ["seeds.bib"]
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    checked = b2g("validate", "--json", "--workspace", str(demo))   # the preflight reads every input
    assert checked.returncode == 0, checked.stdout
    assert any(w.startswith("seeds.bib: 1 record(s) skipped") and "line 4" in w
               for w in checked.envelope["warnings"]), checked.envelope["warnings"]

    spec["seed"]["files"] = []
    spec["filter"]["year_min"] = 2100
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    call = b2g("run", "corpus", "--cores", "2", "--json", "--workspace", str(demo))
    assert call.returncode == 0, call.stderr[-3000:]
    assert ran_jobs(call.stderr) == {"corpus"}
    empty = [w for w in call.envelope["warnings"] if "the corpus includes no work" in w]
    assert len(empty) == 1 and "filter:year_min" in empty[0], call.envelope["warnings"]
    assert empty[0] in b2g("status", "--json", "--workspace", str(demo)).envelope["warnings"]


def test_the_demo_names_every_cluster_without_a_generic_field(built_demo):
    """Issue 22: no label of the demo holds one of OpenAlex's generic fields (level-0 concepts, topic
    domains and fields), and nodes.parquet carries the label metrics.json gives its cluster."""
    from bib2graph.networks.generic_terms import is_generic

    for kind in KINDS:
        folder = built_demo / f"results/networks/{kind}"
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        assert metrics["clusters"], kind
        labels = {c["cluster"]: c["label"] for c in metrics["clusters"]}
        for label in labels.values():
            assert label and not any(is_generic(name=part) for part in label.split("; ")), (kind, label)
        nodes = read_table(folder / "nodes.parquet", NODES)
        read = [x if isinstance(x, str) else None for x in nodes["cluster_label"]]   # null reads back as NaN
        assert [labels.get(c) for c in nodes["cluster"]] == read, kind
