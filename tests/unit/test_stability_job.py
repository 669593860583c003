"""The stability job: other seeds' clusterings measured from the network's tables, not inside its job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bib2graph import registry
from bib2graph.networks import build
from bib2graph.networks.pipeline import STABILITY_FIELDS
from bib2graph.phases import run_network, run_stability
from bib2graph.skips import Skips
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.spec import validate

ROOT = Path(__file__).resolve().parents[2]
SEP = ROOT / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
COMMUNITIES = {"stability_runs": 3, "seed": 5}


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stability") / "corpus"
    bundle_from_works(read_work_objects(SEP)).write(folder)
    return folder


def _spec(kind: str, communities: dict) -> dict:
    return validate({"seed": {"dois": ["10.1/x"]}, "networks": {kind: {}}, "communities": communities})


def _jobs(root: Path, corpus: Path, kind: str, communities: dict) -> dict:
    """The network job, then the stability job, as the workflow runs them (params as the registry gives)."""
    spec = _spec(kind, communities)
    paths = [str(corpus / f"{name}.parquet") for name in registry.BUNDLE]
    net_out = {k: str(root / v.format(kind=kind)) for k, v in registry.outputs(spec, "network").items()}
    run_network(json.loads(registry.params(spec, "network", kind)), kind, {"corpus": paths}, net_out, Skips())
    out = {k: str(root / v.format(kind=kind)) for k, v in registry.outputs(spec, "stability").items()}
    Path(out["stability"]).parent.mkdir(parents=True)
    counts = run_stability(json.loads(registry.params(spec, "stability", kind)), kind,
                           {k: net_out[k] for k in ("nodes", "edges", "metrics")}, out, Skips())
    return {"network": json.loads(Path(net_out["metrics"]).read_text()),
            "stability": json.loads(Path(out["stability"]).read_text()), "counts": counts}


@pytest.mark.parametrize("kind", ["coupling", "cocitation", "citation", "keywords"])
def test_the_stability_job_scores_what_the_network_job_would_have(corpus_folder, tmp_path, kind):
    """The same score as the in-process build's, which clusters the graph it holds: the job's graph, from
    the edges table coded among the nodes, is the one the network job clustered (directed citation
    included, its arcs merged)."""
    from bib2graph.tables import Bundle

    done = _jobs(tmp_path, corpus_folder, kind, COMMUNITIES)
    whole = build(kind, Bundle.read(corpus_folder), {}, COMMUNITIES, name=False).metrics
    assert done["stability"] == {"kind": kind, **{key: whole[key] for key in STABILITY_FIELDS}}
    assert done["stability"]["stability"]["runs"] == 3 and done["stability"]["stability"]["seeds"] == [5, 6, 7]
    assert not set(STABILITY_FIELDS) & set(done["network"])   # the network job's record leaves them out
    assert "stability_runs" not in done["network"]["communities"]
    assert {k: v for k, v in done["network"].items() if k not in ("communities", *STABILITY_FIELDS)} == \
        {k: v for k, v in whole.items() if k not in ("communities", *STABILITY_FIELDS)}


def test_one_run_reads_no_edges_and_says_stability_was_not_measured(corpus_folder, tmp_path):
    spec = _spec("coupling", {"stability_runs": 1})
    root = tmp_path
    paths = [str(corpus_folder / f"{name}.parquet") for name in registry.BUNDLE]
    net_out = {k: str(root / v.format(kind="coupling")) for k, v in registry.outputs(spec, "network").items()}
    run_network(json.loads(registry.params(spec, "network", "coupling")), "coupling", {"corpus": paths}, net_out,
                Skips())
    Path(net_out["edges"]).unlink()   # not read with one run
    out = {"stability": str(tmp_path / "stability.json"), "manifest": str(tmp_path / "manifest.json")}
    run_stability(json.loads(registry.params(spec, "stability", "coupling")), "coupling",
                  {k: net_out[k] for k in ("nodes", "edges", "metrics")}, out, Skips())
    said = json.loads(Path(out["stability"]).read_text())
    assert said["stability"]["runs"] == 1 and said["stability"]["mean_ari"] is None
    assert said["clusters_reproducible"] is None and "was not measured" in said["reproducibility"]


def test_measuring_stability_differently_never_clusters_again():
    """The stability settings are the stability job's params, not the network job's: a change of runs
    re-runs only the stability job (and the report)."""
    five, three = _spec("coupling", {}), _spec("coupling", {"stability_runs": 3, "stability_max_edges": 10})
    assert registry.params(five, "network", "coupling") == registry.params(three, "network", "coupling")
    assert registry.params(five, "stability", "coupling") != registry.params(three, "stability", "coupling")
    other_seed = _spec("coupling", {"seed": 1})   # the seed's clustering is both jobs'
    for rule in ("network", "stability"):
        assert registry.params(five, rule, "coupling") != registry.params(other_seed, rule, "coupling")
    assert "results/networks/coupling/stability/stability.json" in registry.inputs(five, "report")["stability"]


def test_the_network_read_shows_stability_only_for_the_network_it_measured(corpus_folder, tmp_path, monkeypatch):
    """The `network` verb's metrics carry stability.json's fields while the stability job's manifest names
    the network job's graph/metrics.json on disk; a network rebuilt since (the stability job not run
    again) shows none rather than the score of the one before."""
    from bib2graph.manifest import write_manifest
    from bib2graph.service.network_view import read_metrics

    monkeypatch.chdir(tmp_path)   # manifests name files relative to the workspace
    spec = _spec("coupling", COMMUNITIES)
    paths = [str(corpus_folder / f"{name}.parquet") for name in registry.BUNDLE]
    net_out = {k: v.format(kind="coupling") for k, v in registry.outputs(spec, "network").items()}
    run_network(json.loads(registry.params(spec, "network", "coupling")), "coupling", {"corpus": paths}, net_out,
                Skips())
    folder = Path("results/networks/coupling")
    (folder / "metrics.json").write_bytes((folder / "graph/metrics.json").read_bytes())   # as the clusters job's
    assert "stability" not in read_metrics(folder)   # not measured yet
    out = {k: v.format(kind="coupling") for k, v in registry.outputs(spec, "stability").items()}
    Path(out["stability"]).parent.mkdir(parents=True)
    inputs = {k: net_out[k] for k in ("nodes", "edges", "metrics")}
    counts = run_stability(json.loads(registry.params(spec, "stability", "coupling")), "coupling", inputs, out,
                           Skips())
    write_manifest(out["manifest"], "stability:coupling", "{}", list(inputs.values()), [out["stability"]], counts)
    shown = read_metrics(folder)
    assert shown["stability"]["runs"] == 3 and shown["reproducibility"]
    graph = folder / "graph/metrics.json"
    graph.write_text(graph.read_text(encoding="utf-8").replace('"edges"', '"edges" ', 1), encoding="utf-8")
    assert not {"stability", "clusters_reproducible", "reproducibility"} & set(read_metrics(folder))
