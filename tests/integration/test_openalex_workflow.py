"""The real workflow fetching from OpenAlex: the real client over HTTP against the loopback server."""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bib2graph.networks.schema import NODES
from bib2graph.networks.work_labels import work_label
from bib2graph.sources.records import normalize_doi, short_id
from bib2graph.sources.store import ApiRequest
from bib2graph.tables import BUNDLE_TABLES, CANDIDATES, CITED, SCREENING, read_table
from bib2graph.tables import SEEDS as SEEDS_TABLE

from ..conftest import DEMO_LABELS, DEMO_ZIP, SHARED_DATA, included_ids
from ..openalex_server import OpenAlexTestServer, load_works
from .helpers import b2g, ran_jobs

pytestmark = pytest.mark.integration
SEEDS = included_ids(DEMO_LABELS)[:6]
SHARED_DONNERS = SHARED_DATA / "synergy" / "Donners_2021" / "works_1.zip"
FAST = {"B2G_OPENALEX_BACKOFF": "0.01", "B2G_OPENALEX_RATE": "0"}  # the loopback server needs no pacing


@pytest.fixture
def server():
    with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0) as srv:
        yield srv


def workspace(root: Path, depth: int = 1) -> Path:
    assert b2g("init", str(root)).returncode == 0
    spec = {"name": "openalex test", "source": {"kind": "openalex"}, "seed": {"ids": SEEDS},
            "chain": {"direction": "both", "depth": depth}, "networks": {"citation": {}},
            "export": {"formats": ["graphml"]}}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return root


def run(root: Path, srv: OpenAlexTestServer, *extra: str):
    """`b2g run` up to the last fetching phase (chain) unless `extra` names another target: what
    follows is offline and tested elsewhere."""
    extra = extra if set(extra) & {"seed", "chain", "corpus", "networks", "all"} else ("chain", *extra)
    return b2g("run", "--cores", "1", "--json", *extra, "--workspace", str(root),
               env={"B2G_OPENALEX_URL": srv.url, "OPENALEX_API_KEY": "secret-test-key", **FAST})


def neighbours(srv: OpenAlexTestServer, works: set[str]) -> set[str]:
    """Universe works citing or cited by `works`, computed from the served records directly."""
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP])}
    out = set()
    for wid, work in universe.items():
        refs = {short_id(r) for r in work.get("referenced_works") or []}
        if wid in works:
            out |= {r for r in refs if r in universe}
        if refs & works:
            out.add(wid)
    return out - works


def stored_keys(root: Path) -> set[str]:
    return {p.stem for p in (root / "resources/openalex").rglob("*.json")}


def asked_again(srv: OpenAlexTestServer, keys: set[str]) -> list[dict]:
    """Logged requests the store already held an answer for."""
    return [r for r in srv.requests() if ApiRequest.make(r["path"], r["params"]).key in keys]


def results_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "results").rglob("*"))
            if p.is_file() and "logs" not in p.parts and "benchmarks" not in p.parts}


@pytest.mark.long
def test_depth_one_admits_the_citation_neighbours_with_few_requests(tmp_path, server):
    root = workspace(tmp_path / "ws")
    call = run(root, server)
    assert call.returncode == 0, call.stderr[-3000:]
    cands = read_table(root / "results/chain/candidates.parquet", CANDIDATES)
    admitted = set(cands[cands.admitted].work_id)
    assert admitted == neighbours(server, set(SEEDS))
    assert all(set(v.split()) <= set(SEEDS) for v in cands.via)
    lists = server.requests("list")
    ok_lists = [r for r in lists if r["status"] == 200]
    looked_up = [r for r in ok_lists if r["params"].get("filter", "").startswith("openalex:")]
    cites = [r for r in ok_lists if r["params"].get("filter", "").startswith("cites:")]
    values = [len(r["params"]["filter"].split(":", 1)[1].split("|")) for r in looked_up]
    assert all(v <= 100 for v in values)
    assert len(looked_up) <= sum(math.ceil(v / 100) for v in values) + 3  # seeds, references, candidates
    assert len(cites) <= 2  # six seeds: one OR-batch, one page (or two)
    assert all(r["had_api_key"] for r in server.requests())
    for path in (root / "resources/openalex").rglob("*.json"):
        assert "secret-test-key" not in path.read_text(encoding="utf-8")

    server.clear_log()
    first = results_bytes(root)
    for folder in ("seed", "chain"):
        for p in sorted((root / "results" / folder).rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    again = run(root, server)
    assert again.returncode == 0, again.stderr[-2000:]
    assert server.requests() == []  # the raw store answers everything
    assert results_bytes(root) == first


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The artifacts of an undisturbed run of the test spec, against a server of its own."""
    with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0) as srv:
        root = workspace(tmp_path_factory.mktemp("reference") / "ws")
        assert run(root, srv).returncode == 0
    return results_bytes(root)


@pytest.mark.long
def test_faults_at_30_percent_give_the_same_artifacts(tmp_path, server, reference):
    server.faults.set("throttle", 0.15).set("error503", 0.15)
    server.faults.max_streak = 4      # the client tries 7 times: every request gets through in the end
    faulty = workspace(tmp_path / "faulty")
    call = run(faulty, server)
    assert call.returncode == 0, call.stderr[-3000:]
    assert any(r["fault"] for r in server.requests())
    assert results_bytes(faulty) == reference


@pytest.mark.long
def test_exhausted_budget_exits_4_and_keeps_what_was_fetched(tmp_path):
    with OpenAlexTestServer(load_works([DEMO_ZIP]), budget=4, reset_seconds=3600, retry_after=0) as srv:
        root = workspace(tmp_path / "ws")
        call = run(root, srv)
        assert call.returncode == 4, call.stderr[-2000:]
        env = call.envelope
        assert env["error"]["code"] == "BUDGET_EXHAUSTED" and env["error"]["retryable"] is False
        assert "3600" in env["error"].get("subcode", "") + str(env["error"].get("details", {}))
        stored = stored_keys(root)
        assert stored
        srv.reset_budget()
        srv.clear_log()
        resumed = run(root, srv)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert srv.requests() and asked_again(srv, stored) == []


@pytest.mark.long
def test_depth_two_chains_from_the_first_round(tmp_path, server):
    root = workspace(tmp_path / "ws", depth=2)
    assert run(root, server).returncode == 0
    cands = read_table(root / "results/chain/candidates.parquet", CANDIDATES)
    one = set(cands[(cands["round"] == 1) & cands.admitted].work_id)
    two = cands[(cands["round"] == 2) & cands.admitted]
    assert len(two) > 0
    assert set(two.work_id) == neighbours(server, one) - set(SEEDS)
    assert all(set(v.split()) <= one for v in two.via)


@pytest.mark.long
def test_a_run_killed_mid_fetch_finishes_the_same(tmp_path, reference):
    with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0, latency=0.05) as srv:
        root = workspace(tmp_path / "ws")
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("B2G_")},
               "B2G_OPENALEX_URL": srv.url, **FAST}
        proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "run", "chain", "--cores", "1", "--workspace",
                                 str(root)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        while len(list((root / "resources/openalex").rglob("*.json"))) < 3:  # wait for stored responses
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it was killed"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        stored = stored_keys(root)
        srv.clear_log()
        again = run(root, srv)
        assert again.returncode == 0, again.stderr[-3000:]
        assert asked_again(srv, stored) == []
    assert results_bytes(root) == reference


@pytest.mark.long
@pytest.mark.parametrize("seeded_by", ["ids", "dois"])
def test_plan_prices_the_run_from_the_store_without_asking(tmp_path, server, seeded_by):
    """Seeds given by DOI (or PMID, or a query) priced the first chaining round at nothing, without a word,
    before and after `b2g run seed`: it counted the seeds given by ID only."""
    root = workspace(tmp_path / "ws")
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP])}
    if seeded_by == "dois":
        path = root / "config/research.yaml"
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        spec["seed"] = {"dois": [universe[s]["doi"] for s in SEEDS]}
        path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    before = b2g("plan", "--json", "--workspace", str(root), env={"B2G_OPENALEX_URL": server.url})
    assert before.returncode == 0
    data = before.envelope["data"]
    assert data["seeding"]["requests"]["list"] == 1 and data["basis"]["seeds_in_store"] == 0
    said = "not in the raw store" if seeded_by == "ids" else "not resolved yet"
    assert any(said in w for w in before.envelope["warnings"])
    assert run(root, server, "seed").returncode == 0
    server.clear_log()
    after = b2g("plan", "--json", "--workspace", str(root), env={"B2G_OPENALEX_URL": server.url})
    assert server.requests() == []  # planning sends nothing
    data = after.envelope["data"]
    assert data["basis"]["seeds_in_store"] == len(SEEDS) and after.envelope["warnings"] == []
    refs = {short_id(r) for s in SEEDS for r in universe[s]["referenced_works"]} - set(SEEDS)
    assert data["basis"]["references_of_seeds"] == len(refs)
    assert data["chain_round_1"]["requests"]["list"] >= math.ceil(len(refs) / 100) + 1
    assert data["cost_usd"] > 0


@pytest.mark.long
def test_the_first_monitor_after_a_build_reports_what_the_review_has_not_met_then_nothing(tmp_path, server):
    root = workspace(tmp_path / "ws")
    env = {"B2G_OPENALEX_URL": server.url, **FAST}
    assert run(root, server, "corpus").returncode == 0
    corpus = sorted(read_table(root / "results/corpus/works.parquet", BUNDLE_TABLES["works"]).work_id)
    met = set(read_table(root / "results/chain/candidates.parquet", CANDIDATES).work_id) | \
        set(read_table(root / "results/chain/pool/works.parquet", BUNDLE_TABLES["works"]).work_id)
    template = load_works([SHARED_DONNERS])[:2]
    newcomers = []
    for n, work in enumerate(template):   # appear after the build, each citing one corpus work
        work = copy.deepcopy(work)
        work["id"] = f"https://openalex.org/W490000000{n}"
        work["referenced_works"] = [f"https://openalex.org/{corpus[n]}", *work["referenced_works"][:3]]
        newcomers.append(work)
    server.add_works(newcomers)
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP]) + newcomers}
    citing = {wid for wid, w in universe.items() if {short_id(r) for r in w.get("referenced_works") or []} & set(corpus)}

    first = b2g("monitor", "--json", "--workspace", str(root), env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    data = first.envelope["data"]
    assert {"W4900000000", "W4900000001"} <= set(data["new_ids"])
    assert set(data["new_ids"]) == citing - met   # every citer the review had not met, and only those
    assert data["pending"] == len(data["new_ids"])
    delta = {w["work_id"]: w["cites"] for w in json.loads(Path(data["report"]).read_text(encoding="utf-8"))["new"]}
    assert delta["W4900000000"] == [corpus[0]] and delta["W4900000001"] == [corpus[1]]

    again = b2g("monitor", "--json", "--workspace", str(root), env=env)
    assert again.envelope["data"]["new"] == 0 and again.envelope["data"]["pending"] == len(data["new_ids"])
    rerun = run(root, server, "corpus")
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    screening = read_table(root / "results/corpus/screening.parquet", SCREENING).set_index("work_id")
    assert screening.loc["W4900000000", "origin"] == "monitor" and screening.loc["W4900000000", "included"]
    assert screening.loc["W4900000001", "via"] == f"monitor: {corpus[1]}"
    after = b2g("monitor", "--json", "--workspace", str(root), env=env)   # the corpus grew: its new citers
    assert after.returncode == 0 and not set(after.envelope["data"]["new_ids"]) & set(data["new_ids"])


@pytest.mark.long
def test_seeding_from_bibtex_and_query_reports_what_does_not_resolve(tmp_path, server):
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP])}
    with_doi = [w for w in universe.values() if w.get("doi")][:3]
    root = workspace(tmp_path / "ws")
    bib = "".join(f"@article{{key{n},\n  title = {{{w['title']}}},\n  doi = {{{w['doi'].split('doi.org/')[1]}}}\n}}\n"
                  for n, w in enumerate(with_doi))
    bib += "@article{ghost,\n  title = {Not in OpenAlex},\n  doi = {10.9999/nothing.here}\n}\n"
    bib += "@article{nodoi,\n  title = {No identifier at all}\n}\n"
    (root / "seeds.bib").write_text(bib, encoding="utf-8")
    spec = yaml.safe_load((root / "config/research.yaml").read_text(encoding="utf-8"))
    spec["seed"] = {"files": ["seeds.bib"], "query": "object recognition", "max_results": 5}
    spec["chain"] = {"direction": "none", "depth": 0}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    call = run(root, server, "seed")
    assert call.returncode == 0, call.stderr[-2000:]
    manifest = json.loads((root / "results/seed/manifest.json").read_text(encoding="utf-8"))
    assert sorted(e["value"] for e in manifest["counts"]["unresolved_entries"]) == ["ghost", "nodoi"]
    seeds = read_table(root / "results/seed/seeds.parquet", SEEDS_TABLE)
    assert {short_id(w["id"]) for w in with_doi} <= set(seeds.work_id)  # each kept the first way it was found
    assert set(seeds.seeded_by) == {"query", "file:seeds.bib"}
    assert 1 <= int((seeds.seeded_by == "query").sum()) <= 5
    dois = [r for r in server.requests("list") if r["params"].get("filter", "").startswith("doi:")]
    assert len(dois) == 1  # the four DOIs in one OR-batch


# ------------------------------------------------------------------------------------------ cited works

def cocited_workspace(root: Path, fetch: bool = True) -> Path:
    """The six seeds alone as corpus, and their co-citation network: its nodes are their 266 references."""
    if not (root / "config/research.yaml").is_file():
        assert b2g("init", str(root)).returncode == 0
    spec = {"name": "labels test", "source": {"kind": "openalex"}, "seed": {"ids": SEEDS},
            "chain": {"direction": "none", "depth": 0}, "networks": {"cocitation": {"min_occurrences": 1}},
            "labels": {"fetch": fetch}, "export": {"formats": ["graphml"]}}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return root


def seed_references() -> set[str]:
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP])}
    return {short_id(r) for s in SEEDS for r in universe[s]["referenced_works"]} - set(SEEDS)


def id_lookups(srv: OpenAlexTestServer, ids: set[str]) -> list[list[str]]:
    """The answered `openalex:` look-ups of the server's log that asked only for `ids`, as ID lists."""
    found = []
    for r in srv.requests("list"):
        values = r["params"].get("filter", "").removeprefix("openalex:").split("|")
        if r["status"] == 200 and r["params"]["filter"].startswith("openalex:") and set(values) <= ids:
            found.append(values)
    return found


def served_label(work: dict) -> tuple[str, int | None, str | None]:
    """The label, year and DOI a served record should give its node, read from the record itself."""
    names = [a["author"]["display_name"] for a in work.get("authorships") or []
             if (a.get("author") or {}).get("display_name")]
    venue = ((work.get("primary_location") or {}).get("source") or {}).get("display_name")
    year = work.get("publication_year")
    label = work_label(short_id(work["id"]), names[0] if names else None, year,
                       work.get("title") or work.get("display_name"), venue)
    return label, year, normalize_doi(work.get("doi"))


@pytest.mark.long
def test_cocited_works_outside_the_corpus_are_named_from_batched_lookups_then_from_the_store(tmp_path):
    universe = {short_id(w["id"]): w for w in load_works([DEMO_ZIP])}
    refs = seed_references()
    with OpenAlexTestServer(list(universe.values()), retry_after=0, stub_references=True) as srv:
        root = cocited_workspace(tmp_path / "ws")
        call = run(root, srv, "networks")
        assert call.returncode == 0, call.stderr[-3000:]
        batches = id_lookups(srv, refs)
        assert sorted(w for b in batches for w in b) == sorted(refs)      # each reference asked once
        assert all(len(b) <= 100 for b in batches) and len(batches) == math.ceil(len(refs) / 100)
        assert srv.requests("singleton") == []                            # every batch answered in full
        nodes = read_table(root / "results/networks/cocitation/nodes.parquet", NODES).set_index("node_id")
        outside = nodes[~nodes["in_corpus"]]
        assert set(outside.index) == refs
        known = sorted(refs & set(universe))
        assert len(known) >= 10
        for work_id in known:
            label, year, doi = served_label(universe[work_id])
            assert outside.loc[work_id, "label"] == label and (year is None or f"({year})" in label)
            assert outside.loc[work_id, "year"] == year and outside.loc[work_id, "doi"] == doi
        assert (outside.loc[sorted(refs - set(universe)), "label"] == sorted(refs - set(universe))).all()
        counts = json.loads((root / "results/chain/cited/manifest.json").read_text(encoding="utf-8"))["counts"]
        assert counts["asked"] == len(refs) and counts["found"] == len(known)

        first = results_bytes(root)
        srv.clear_log()
        for p in (root / "results/chain/cited").iterdir():
            p.unlink()
        again = run(root, srv)
        assert again.returncode == 0, again.stderr[-2000:]
        assert ran_jobs(again.stderr) == {"cited"}
        assert srv.requests() == []                                       # the raw store answers everything
        assert results_bytes(root) == first


@pytest.mark.long
def test_an_exhausted_budget_stops_the_lookup_keeps_what_came_and_resumes(tmp_path):
    refs = seed_references()
    with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0, stub_references=True,
                            reset_seconds=3600) as srv:
        root = cocited_workspace(tmp_path / "ws", fetch=False)
        assert run(root, srv).returncode == 0                             # seed, chain, cited without look-ups
        assert id_lookups(srv, refs) == []
        srv.api.budget = srv.api.used + 1                                 # one more list page
        cocited_workspace(root, fetch=True)
        call = run(root, srv)
        assert call.returncode == 4, call.stderr[-2000:]
        env = call.envelope
        assert env["error"]["code"] == "BUDGET_EXHAUSTED" and env["error"]["retryable"] is False
        assert "cited" in env["error"]["message"] and "labels: {fetch: false}" in env["error"]["message"]
        assert len(id_lookups(srv, refs)) == 1                            # the one paid for, kept in the store
        stored = stored_keys(root)
        srv.api.budget = None
        srv.clear_log()
        resumed = run(root, srv)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert asked_again(srv, stored) == [] and len(id_lookups(srv, refs)) == math.ceil(len(refs) / 100) - 1
        cited = read_table(root / "results/chain/cited/works.parquet", CITED)
        assert set(cited.loc[~cited["in_pool"], "work_id"]) == refs & {short_id(w["id"]) for w in load_works([DEMO_ZIP])}
