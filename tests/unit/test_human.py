"""Human output: every verb's envelope is rendered with its content (IDs, counts, titles, paths).

The envelopes are built as the verbs build them (shapes taken from real runs) and checked against
docs/contract before rendering, so a renderer cannot drift from the contract unnoticed.
"""

from __future__ import annotations

import pytest

from bib2graph.cli import human
from bib2graph.service.verbs import described
from bib2graph.errors import DataError, NetworkError, SpecError
from bib2graph.service.contract import describe
from bib2graph.service.envelope import failure, success
from bib2graph.service.network_view import cluster_entry

from ..integration.helpers import check_envelope

WS = {"root": "/labs/review", "source": "flag"}
NETS = {"citation": {"nodes": 101, "edges": 330, "clusters": 8},
        "cocitation": {"nodes": 640, "edges": 26844, "clusters": 7}}
PHASE = {"results": "/labs/review/results", "snakemake_args": [], "workspace": WS}

# verb -> (data, strings its human form must show)
CASES: dict[str, tuple[dict, list[str]]] = {
    "status": ({"workspace": WS, "up_to_date": False, "phases": {"seed": "complete", "chain": "stale"},
                "jobs": [{"job": "seed", "rule": "seed", "state": "complete", "reasons": []},
                         {"job": "chain", "rule": "chain", "state": "stale", "reasons": ["params changed"]}],
                "pending_jobs": ["chain"], "curation_available": ["accept", "reject"],
                "counts": {"seeds": 40, "candidates": 61, "pool": 101, "corpus": None, "accepted": 2,
                           "rejected": 3, "pending": 58,
                           "networks": {"citation": {"nodes": 101, "edges": 330}}},
                "screening": {"method": "hypergeometric test", "recall_target": 0.95, "confidence": 0.95,
                              "screened": 40, "to_screen": 98, "includes_found": 30, "p_value": 0.01, "stop": True,
                              "more_to_screen": 0, "verdict": "safe to stop: recall ≥ 95%",
                              "heuristic": {"excludes_in_a_row": 12, "note": "information only"}}},
               ["params changed", "seeds: 40", "corpus: -", "pending: 58", "citation", "330",
                "safe to stop: recall ≥ 95%", "12 excluded in a row"]),
    "accept": ({"workspace": WS, "decision": "accept", "ids": ["W11", "W12"], "changed": ["W12"],
                "decisions": {"accept": 5, "reject": 1}, "next": "b2g run"},
               ["accepted 2 work(s), 1 changed", "W12", "5 accepted, 1 rejected"]),
    "reject": ({"workspace": WS, "decision": "reject", "ids": ["W13"], "changed": ["W13"],
                "decisions": {"accept": 0, "reject": 1}, "next": "b2g run"},
               ["rejected 1 work(s)", "W13", "0 accepted, 1 rejected"]),
    "withdraw": ({"workspace": WS, "ids": ["W13", "W14"], "withdrawn": ["W13"],
                  "decisions": {"accept": 0, "reject": 0}, "next": "b2g run"},
                 ["withdrew 1 decision(s): W13", "1 had none", "0 accepted, 0 rejected"]),
    "run": ({**PHASE, "targets": ["all"]}, ["done (all)", "/labs/review/results"]),
    "gui": ({"workspace": WS, "url": "http://127.0.0.1:8765/?token=" + "t" * 43, "port": 8765, "pid": 4242},
            ["serving /labs/review at http://127.0.0.1:8765/?token=ttt", "Ctrl-C stops"]),
    "mcp": ({}, ["the MCP server has stopped"]),
    "init": ({"workspace": {"root": "/labs/new", "source": "init"}, "next": "b2g run --workspace /labs/new",
              "created": [".gitignore", "config/curation.tsv", "config/research.yaml"]},
             ["/labs/new", "created config/research.yaml", "created config/curation.tsv"]),
    "seed": ({**PHASE, "targets": ["seed"], "counts": {"seed": {
                "seeds": 40, "unresolved": 1, "unresolved_entries": [{"seeded_by": "doi", "value": "10.9/zz"}]}}},
             ["seeds", "40", "unresolved", "10.9/zz", "/labs/review/results/seed/"]),
    "chain": ({**PHASE, "targets": ["chain"], "counts": {"chain": {
                "candidates": 61, "admitted": 57, "monitored": 2, "pool": 97,
                "rounds": [{"round": 1, "candidates": 61, "admitted": 57, "saturated": False}]}}},
              ["admitted", "57", "monitored", "97", "saturated", "/labs/review/results/chain/"]),
    "filter": ({**PHASE, "targets": ["corpus"], "counts": {"corpus": {
                 "pool": 101, "included": 88, "excluded": {"language": 9, "year": 4}, "accepted": 1, "rejected": 2}}},
               ["included", "88", "excluded language", "9", "excluded year", "/labs/review/results/corpus/"]),
    "build": ({**PHASE, "targets": ["networks"], "counts": {
                "networks/citation": {"nodes": 101, "edges": 330}, "networks/keywords": {"nodes": 150, "edges": 3336}}},
              ["citation", "101", "330", "keywords", "3336", "/labs/review/results/networks/"]),
    "export": ({**PHASE, "targets": ["exports"], "counts": {"networks/coupling": {"nodes": 99, "edges": 2818}}},
               ["coupling", "2818", "/labs/review/results/export/"]),
    "inspect": ({"workspace": WS,
                 "work": {"work_id": "W1924717691", "title": "[Review] Context and fear conditioning",
                          "year": 2015, "venue": "Hippocampus", "doi": "10.1002/hipo.22430",
                          "type": "journal-article", "cited_by_count": 16,
                          "authors": ["Natalia Arias", None, "Marta Méndez"]},
                 "provenance": {"origin": "chain", "round": 1, "direction": "forward", "via": "W2098430271",
                                "links": 1, "score": 1.916667},
                 "screening": {"work_id": "W1924717691", "included": False, "excluded_by": "year",
                               "duplicate_of": None, "filter_verdict": None, "decision": None},
                 "decision": {"work_id": "W1924717691", "decision": "reject", "reason": "off topic",
                              "decided_by": "ana", "decided_at": "2026-01-02T03:04:05Z"},
                 "networks": {"coupling": {"cluster": 3, "degree": 31, "strength": 46.0,
                                           "pagerank": 0.004320122282, "betweenness": 0.0}},
                 "neighbours": {"coupling": [{"id": "W2098430271", "label": "Lateral entorhinal cortex",
                                              "weight": 12.0, "count": 12.0}],
                                "citation": [{"id": "W77", "label": "W77", "weight": 1.0, "count": 1.0,
                                              "direction": "out"}]}},
                ["[Review] Context and fear conditioning", "W1924717691", "2015", "Hippocampus",
                 "10.1002/hipo.22430", "Natalia Arias, Marta Méndez", "round 1, forward from W2098430271",
                 "excluded by year", "reject by ana", "off topic", "coupling", "31", "0.00432",
                 "strongest neighbours in coupling", "W2098430271", "Lateral entorhinal cortex", "W77 (cited)"]),
    "validate": ({"workspace": WS, "problems": [],
                  "checked": [{"path": "config/research.yaml", "rows": None},
                              {"path": "results/seed/seeds.parquet", "rows": 40}]},
                 ["results/seed/seeds.parquet", "40", "config/research.yaml", "2 file(s) checked"]),
    "plan": ({"workspace": WS, "source": "openalex", "per_page": 100, "cost_usd": 0.0123,
              "prices_usd_per_request": {"list": 0.0001, "search": 0.001, "singleton": 0.0},
              "requests": {"list": 23, "search": 1, "singleton": 0},
              "seeding": {"requests": {"list": 3, "search": 1, "singleton": 0}, "total": 4, "cost_usd": 0.0013},
              "chain_round_1": {"requests": {"list": 20, "search": 0, "singleton": 0}, "total": 20, "cost_usd": 0.002},
              "basis": {"seed_ids": 40, "seed_dois": 2, "query": True, "seeds_in_store": 38,
                        "references_of_seeds": 1234, "citing_works_upper_bound": 987, "stored_responses": 55}},
             ["list", "23", "search", "$0.0123", "1234", "987"]),
    "monitor": ({"workspace": WS, "corpus_works_checked": 101, "new": 2, "new_ids": ["W901", "W902"],
                 "pending": 5, "report": "/labs/review/results/monitor/2026-01-02.json", "next": "b2g run"},
                ["101 corpus work(s)", "2 new citing work(s)", "W901", "W902", "pending candidates: 5",
                 "/labs/review/results/monitor/2026-01-02.json"]),
    "snapshot": ({"workspace": WS, "id": "june-a6ce9bc94e1a", "created": True,
                  "path": "/labs/review/results/snapshots/june-a6ce9bc94e1a",
                  "counts": {"corpus": 101, "networks": NETS}},
                 ["june-a6ce9bc94e1a", "sealed", "corpus: 101", "26844"]),
    "snapshot list": ({"workspace": WS, "snapshots": [
                          {"id": "may-0123456789ab", "name": "may", "sealed_at": "2026-05-01T00:00:00Z",
                           "counts": {"corpus": 95, "networks": {"citation": {"nodes": 95, "edges": 301}}}},
                          {"id": "june-a6ce9bc94e1a", "name": "june", "sealed_at": "2026-06-01T00:00:00Z",
                           "counts": {"corpus": 101, "networks": NETS}}]},
                      ["may-0123456789ab", "june-a6ce9bc94e1a", "2026-05-01T00:00:00Z", "95", "citation 95/301",
                       "cocitation 640/26844"]),
    "snapshot diff": ({"workspace": WS, "from": "may-0123456789ab", "to": "june-a6ce9bc94e1a", "spec_changed": True,
                       "works_added": [f"W{n}" for n in range(100, 112)], "works_removed": ["W7"],
                       "decisions_changed": [{"work_id": "W7", "from": None, "to": "reject"}],
                       "networks": {"citation": {"nodes": {"from": 95, "to": 101}, "edges": {"from": 301, "to": 330},
                                                 "clusters": {"from": 8, "to": 8}}}},
                      ["may-0123456789ab", "june-a6ce9bc94e1a", "spec changed", "works added: 12", "W100",
                       "and 2 more", "works removed: 1", "W7", "reject", "95 → 101", "301 → 330"]),
    "snapshot restore": ({"workspace": WS, "id": "may-0123456789ab", "identical": True, "files_compared": 30,
                          "restored_into": "/labs/review/results/restored/may-0123456789ab"},
                         ["may-0123456789ab", "/labs/review/results/restored/may-0123456789ab", "30 files"]),
    "curate dump": ({"workspace": WS, "path": "/labs/review/results/curation/to-screen.csv", "rows": 61,
                     "next": "b2g curate apply /labs/review/results/curation/to-screen.csv"},
                    ["61 work(s)", "/labs/review/results/curation/to-screen.csv", "b2g curate apply"]),
    "curate apply": ({"workspace": WS, "applied": ["W21", "W22"], "unchanged": 4,
                      "unknown": [{"line": 7, "id": "W999"}], "next": "b2g run"},
                     ["applied 2 decision(s)", "W21", "W22", "4 unchanged", "7", "W999", "b2g run"]),
    "search": ({"workspace": WS, "query": "entorhinal", "works": [
                    {"work_id": "W2995295019", "title": "Fan Cells in Layer 2 of the Lateral Entorhinal Cortex",
                     "year": 2020, "doi": "10.1016/j.cub.2019.11.027", "venue": "Current Biology",
                     "authors": ["Brianna Vandrey", "Derek Garden", "V. A.", "Jonathan Ainge"], "state": "excluded"}]},
               ["1 work(s) matching 'entorhinal'", "W2995295019", "Fan Cells", "2020", "excluded",
                "Brianna Vandrey, Derek Garden, V. A. et al.", "10.1016/j.cub.2019.11.027"]),
    "evidence": ({"workspace": WS, "kind": "coupling", "directed": False, "source": "W1", "target": "W2",
                  "weight": 2.0, "count": 2.0, "computed": "on_demand", "documents": [
                      {"work_id": "W10", "title": "Shared [one]", "year": 2001, "doi": None, "venue": None,
                       "authors": ["A. B."], "in_corpus": True, "label": "Shared [one]"},
                      {"work_id": "W11", "title": None, "year": None, "doi": None, "venue": None, "authors": [],
                       "in_corpus": False, "label": "Smith (1999) Memory"}]},
                 ["coupling: W1 — W2", "2 document(s), computed now from the corpus", "W10", "Shared [one]",
                  "2001", "W11", "Smith (1999) Memory"]),
    "queue": ({"workspace": WS, "pending": 61, "before": None,
               "order": {"by": "model", "includes": 40, "excludes": 1, "note": "ranked by the screening model"},
               "stopping": {"method": "hypergeometric test", "recall_target": 0.95, "confidence": 0.95,
                            "screened": 1, "to_screen": 62, "includes_found": 0, "p_value": 1.0, "stop": False,
                            "more_to_screen": None, "verdict": "keep screening: not yet",
                            "heuristic": {"excludes_in_a_row": 1, "note": "information only"}},
               "works": [
                  {"rank": 1, "work_id": "W1924717691", "doi": "10.1002/hipo.22430", "title": "The importance of context",
                   "year": 2015, "venue": "Hippocampus", "authors": ["Natalia Arias"], "abstract": "Context matters.",
                   "why_here": "cites W2098430271; chaining round 1, 1 link(s) to the frontier, score 1.917",
                   "score": 0.42, "why_ranked": {"terms": [{"term": "hippocampus", "weight": 0.1}],
                                                 "linked_includes": [{"work_id": "W2098430271", "name": "Wilson 2013",
                                                                      "how": ["cites it"], "strength": 1}],
                                                 "linked_includes_total": 1}}]},
              ["61 work(s) await a decision", "W1924717691", "The importance of context", "Hippocampus",
               "Natalia Arias", "cites W2098430271", "Context matters.", "b2g reject ID --reason",
               "ranked by the screening model", "hippocampus", "Wilson 2013", "keep screening: not yet"]),
    "simulate": ({"workspace": WS, "labels": {"file": "labels.csv", "rows": 271, "matched": 101, "unmatched": 170,
                                              "includes": 40, "excludes": 61},
                  "priors": 1, "seeds": [0], "table": "results/simulations/labels.parquet",
                  "runs": [{"seed": 0, "priors": ["W1", "W2"], "to_screen": 99, "includes": 39, "wss95": 0.123,
                            "recall_at_10": 0.25, "atd": 31.5, "atd_fraction": 0.32, "stopped_at": 90,
                            "recall_at_stop": 0.974, "work_saved_at_stop": 0.09, "recall_target_met": True}],
                  "mean": {"wss95": 0.123, "recall_at_10": 0.25, "atd": 31.5, "atd_fraction": 0.32},
                  "stopping": {"method": "hypergeometric test", "recall_target": 0.95, "confidence": 0.95,
                               "runs": 1, "stopped": 1, "stopped_before_the_end": 1, "target_met": 1,
                               "mean_recall_at_stop": 0.974, "mean_work_saved_at_stop": 0.09}},
                 ["101 labelled works", "labels.csv", "results/simulations/labels.parquet", "0.123", "0.974",
                  "stopped 1 of 1 runs"]),
    "networks": ({"workspace": WS, "networks": [
                     {"kind": "coupling", "built": True, "directed": False, "nodes": 101, "edges": 2818,
                      "clusters": 6, "definition": "Bibliographic coupling.", "layout": True},
                     {"kind": "keywords", "built": False, "directed": None, "nodes": None, "edges": None,
                      "clusters": None, "definition": None, "layout": False}]},
                 ["coupling", "101", "2818", "keywords", "no"]),
    "network": ({"workspace": WS, "kind": "citation", "directed": True,
                 "nodes": [{"id": "W1", "label": "First work", "cluster": 1, "x": 0.5, "y": -1.0, "year": 2001,
                            "mean_year": None, "in_corpus": True, "doi": None, "occurrences": 3, "degree": 1,
                            "strength": 1.0, "pagerank": 0.5, "betweenness": 0.0},
                           {"id": "W2", "label": "W2", "cluster": 1, "x": None, "y": None, "year": None,
                            "mean_year": None, "in_corpus": True, "doi": None, "occurrences": 1, "degree": 1,
                            "strength": 1.0, "pagerank": 0.5, "betweenness": 0.0}],
                 "clusters": [cluster_entry({"cluster": 1, "size": 2, "label": "Memory; Context"})],
                 "metrics": {"n_clusters": 1, "modularity": 0.0},
                 "edges": [{"source": "W1", "target": "W2", "weight": 1.0, "count": 1.0}],
                 "edges_total": 3, "edges_offset": 1, "edges_next": 2},
                ["citation network: 2 nodes, 3 edges", "Memory; Context", "W1 First work", "edges 2-2 of 3",
                 "--offset 2"]),
    "slices": ({"workspace": WS, "kind": "keywords",
                "slices": [{"slice": "2000-2004", "start": 2000, "end": 2004, "nodes": 2, "clusters": 1,
                            "members": [["C1", 1], ["C2", 1]]},
                           {"slice": "2005-2009", "start": 2005, "end": 2009, "nodes": 1, "clusters": 1,
                            "members": [["C1", 1]]}],
                "events": [{"from_slice": "2000-2004", "to_slice": "2005-2009", "side": "from", "cluster": 1,
                            "event": "continues", "with": "1"},
                           {"from_slice": "2000-2004", "to_slice": "2005-2009", "side": "to", "cluster": 1,
                            "event": "continues", "with": "1"}]},
               ["keywords per time slice", "2000-2004", "2005-2009", "continues"]),
    "prisma": ({"workspace": WS, "prisma": {"identified": {"seeds": 40, "rounds": [{"round": 1, "admitted": 61}],
                                                           "total": 101},
                                            "duplicates_removed": 0, "screened": 101,
                                            "excluded_by_filter": {"filter:year": 4}, "excluded_by_people": 2,
                                            "reinstated_by_people": 1, "included": 95}},
               ["identified", "101", "round 1", "61", "excluded by filter:year", "4", "included", "95"]),
}


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    """A wide, colourless console, so that assertions see whole IDs and titles."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def rendered(env: dict, capsys) -> str:
    check_envelope(env)
    human.show(env)
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def test_every_verb_has_its_own_rendering():
    verbs = set(described())
    assert set(human.RENDERERS) == verbs
    assert set(CASES) | {"schema"} == verbs


@pytest.mark.parametrize("verb", sorted(CASES))
def test_verb_shows_its_content(verb, capsys):
    data, expected = CASES[verb]
    text = rendered(success(verb, data, ["heads up [1]"]), capsys)
    missing = [s for s in expected if s not in text]
    assert not missing, f"{verb} human output lacks {missing}:\n{text}"
    assert "warning: heads up [1]" in text and "item(s)" not in text


def test_schema_lists_verbs_and_exit_codes(capsys):
    text = rendered(success("schema", describe(described()).data), capsys)
    for verb, spec in described().items():
        assert verb in text and spec["help"][:30] in text
    for row in describe({}).data["exit_codes"]:
        assert row["meaning"][:30] in text


def test_empty_snapshot_list_says_how_to_make_one(capsys):
    assert "`b2g snapshot` seals one" in rendered(success("snapshot list", {"workspace": WS, "snapshots": []}), capsys)


def test_validation_error_lists_each_problem(capsys):
    problems = [{"path": "results/seed/seeds.parquet", "code": "ARTIFACT_CORRUPT", "message": "bad magic"},
                {"path": "config/research.yaml", "code": "SPEC_INVALID", "message": "unknown key 'bogus'"}]
    text = rendered(failure("validate", DataError("2 problem(s)", code="VALIDATION_FAILED",
                                                  details={"problems": problems})), capsys)
    assert "VALIDATION_FAILED, exit 2" in text
    for problem in problems:
        assert all(value in text for value in problem.values())
    assert "hint:" not in text


def test_spec_error_shows_key_and_place(capsys):
    err = SpecError("invalid research spec: unknown key 'bogus'", details={"key": "bogus", "place": "filter.bogus"})
    text = rendered(failure("status", err), capsys)
    assert "SPEC_INVALID" in text and "key: bogus" in text and "place: filter.bogus" in text


def test_retryable_error_has_a_hint(capsys):
    err = NetworkError("OpenAlex answered 503", subcode="HTTP_503", details={"url": "https://api.openalex.org/works"})
    text = rendered(failure("monitor", err), capsys)
    assert "NETWORK_ERROR/HTTP_503, exit 4" in text and "url: https://api.openalex.org/works" in text
    assert "hint: this may pass if you try again later" in text
