"""Screening on the built demo (issue 21): the ranked queue is a function of the curation file and the
spec (byte-identical answers in fresh processes; `--before` gives back the queue a reviewer saw), and
the simulate job writes its curves and the report's figure, re-run by a change of its section alone."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from bib2graph.screening import metrics

from .helpers import b2g, ran_jobs

LABELS = "bundled:synergy/Sep_2021/labels.csv"


def envelope(ws, *args):
    done = b2g(*args, "--json", "--workspace", str(ws))
    env = json.loads(done.stdout)
    assert env["ok"], env["error"]
    return done.stdout, env["data"]


@pytest.mark.long
def test_the_same_decisions_give_the_same_queue_bytes_and_before_gives_back_what_was_seen(demo):
    _, first = envelope(demo, "queue", "--limit", "20")
    assert first["order"]["by"] == "work_id"            # seeds are includes; no exclude yet
    ids = [w["work_id"] for w in first["works"]]
    envelope(demo, "reject", ids[0], "--reason", "off topic")
    envelope(demo, "accept", ids[5])
    raw, seen = envelope(demo, "queue", "--limit", "30")
    assert raw == envelope(demo, "queue", "--limit", "30")[0]           # byte for byte, a fresh process
    assert seen["order"]["by"] == "model" and seen["order"]["excludes"] == 1
    scores = [w["score"] for w in seen["works"]]
    assert scores == sorted(scores, reverse=True)
    assert [w["work_id"] for w in seen["works"]] != sorted(w["work_id"] for w in seen["works"])
    top = seen["works"][0]
    assert top["why_ranked"]["terms"] or top["why_ranked"]["linked_includes"]
    stop = seen["stopping"]
    assert stop["screened"] == 2 and stop["includes_found"] == 1 and not stop["stop"]

    envelope(demo, "reject", seen["works"][0]["work_id"], "--reason", "off topic")   # the next decision
    _, now = envelope(demo, "queue", "--limit", "30")
    assert [w["work_id"] for w in now["works"]] != [w["work_id"] for w in seen["works"]]
    _, again = envelope(demo, "queue", "--limit", "30", "--before", seen["works"][0]["work_id"])
    assert again["before"] == seen["works"][0]["work_id"]
    assert {k: v for k, v in again.items() if k != "before"} == {k: v for k, v in seen.items() if k != "before"}
    doi = pd.read_parquet(demo / "results/chain/pool/works.parquet").set_index("work_id").loc[
        seen["works"][0]["work_id"], "doi"]
    _, by_doi = envelope(demo, "queue", "--limit", "30", "--before", f"https://doi.org/{doi.upper()}")
    assert by_doi["works"] == again["works"]     # the decided work named by its DOI
    for named, code in ((now["works"][0]["work_id"], "USAGE_ERROR"), ("", "USAGE_ERROR"),   # pending: no decision
                        ("W1", "UNKNOWN_ID")):                                             # no pooled work at all
        answer = b2g("queue", "--before", named, "--json", "--workspace", str(demo)).envelope
        assert answer["error"]["code"] == code, (named, answer["error"])


@pytest.mark.long
def test_the_simulate_job_writes_curves_summary_and_figure(demo):
    spec_path = demo / "config/research.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    spec.setdefault("screening", {})["simulation"] = {"labels": LABELS, "seeds": [0, 1]}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    pending = set(b2g("status", "--json", "--workspace", str(demo)).envelope["data"]["pending_jobs"])
    assert pending == {"simulate", "report"}
    done = b2g("run", "--json", "--cores", "1", "--workspace", str(demo))
    assert done.envelope["ok"], done.envelope["error"]
    assert ran_jobs(done.stderr) == {"simulate", "report"}

    curves = pd.read_parquet(demo / "results/screening/simulation.parquet")
    summary = json.loads((demo / "results/screening/simulation.json").read_text(encoding="utf-8"))
    assert sorted(curves["seed"].unique()) == [0, 1] == summary["seeds"]
    for run in summary["runs"]:
        rows = curves[curves.seed == run["seed"]].sort_values("step")
        assert rows["step"].tolist() == list(range(1, len(rows) + 1))
        labels = np.r_[rows["label"].to_numpy(), np.zeros(run["to_screen"] - len(rows), dtype=np.int64)]
        assert run["wss95"] == round(metrics.wss(labels), 6)
        assert run["recall_at_10"] == round(metrics.recall_at(labels), 6)
        assert rows["recall"].iloc[-1] == 1.0 and rows["found"].iloc[-1] == run["includes"]
    report = (demo / "results/report/index.html").read_text(encoding="utf-8")
    section = report[report.index('id="screening"'):]
    assert "<svg" in section and "WSS@95" in section
    again = b2g("run", "--json", "--cores", "1", "--workspace", str(demo))
    assert ran_jobs(again.stderr) == set()
    checked = b2g("validate", "--json", "--workspace", str(demo)).envelope   # the summary has its schema's shape
    assert checked["ok"] and "results/screening/simulation.json" in {c["path"] for c in checked["data"]["checked"]}


@pytest.mark.long
def test_simulate_reads_and_writes_files_named_relative_to_the_current_directory(demo, tmp_path):
    """As `curate apply FILE` and `curate dump --out` do: a script in its own folder names its files."""
    from bib2graph.paths import bundled_data_dir

    here = tmp_path / "elsewhere"
    (here / "lab").mkdir(parents=True)
    (here / "lab/labels.csv").write_bytes((bundled_data_dir() / LABELS.split(":", 1)[1]).read_bytes())
    done = b2g("simulate", "--labels", "lab/labels.csv", "--seed", "0", "--out", "out/curves.parquet", "--json",
               "--workspace", str(demo), cwd=here)
    env = json.loads(done.stdout)
    assert env["ok"], env["error"]
    assert env["data"]["table"] == str(here / "out/curves.parquet") and (here / "out/curves.parquet").is_file()
    assert env["data"]["labels"]["file"] == "lab/labels.csv" and not (demo / "out").exists()
