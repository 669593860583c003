"""The stability job: other seeds' clusterings measured from the network's tables, not inside its job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bib2graph import phases, registry
from bib2graph.networks import build
from bib2graph.networks.communities import STABILITY_FIELDS
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.spec import validate
from bib2graph.tables import Bundle

ROOT = Path(__file__).resolve().parents[2]
SEP = ROOT / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
COMMUNITIES = {"stability_runs": 3, "seed": 5}


@pytest.fixture(scope="module")
def corpus():
    return bundle_from_works(read_work_objects(SEP))


@pytest.fixture
def workspace(corpus, tmp_path, monkeypatch):
    """A workspace holding the corpus job's tables, as the current folder (manifests name files from it)."""
    corpus.write(tmp_path / "results/corpus")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _spec(kind: str, communities: dict) -> dict:
    return validate({"seed": {"dois": ["10.1/x"]}, "networks": {kind: {}}, "communities": communities})


def _job(spec: dict, rule: str, kind: str) -> dict:
    """One job as the workflow runs it (phases.run: the registry's params, inputs and outputs, the checks,
    the manifest); its outputs' paths."""
    inputs, outputs = registry.inputs(spec, rule, kind), registry.outputs(spec, rule, kind)
    inputs.pop("cited", None)   # no cited job here: co-citation nodes keep their IDs
    for path in registry.flat(outputs):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    phases.run(rule, kind, registry.params(spec, rule, kind), inputs, outputs)
    return outputs


def _read(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


@pytest.mark.long
@pytest.mark.parametrize("kind", ["coupling", "cocitation", "citation", "keywords"])
def test_the_stability_job_scores_what_the_network_job_would_have(workspace, corpus, kind):
    """The same score as the in-process build's, which clusters the graph it holds: the job's graph, from
    the edges table coded among the nodes, is the one the network job clustered (directed citation
    included, its arcs merged)."""
    spec = _spec(kind, COMMUNITIES)
    network = _read(_job(spec, "network", kind)["metrics"])
    said = _read(_job(spec, "stability", kind)["stability"])
    whole = build(kind, Bundle.read(workspace / "results/corpus"), {}, COMMUNITIES, name=False).metrics
    assert said == {"kind": kind, **{key: whole[key] for key in STABILITY_FIELDS}}
    assert said["stability"]["runs"] == 3 and said["stability"]["seeds"] == [5, 6, 7]
    assert not set(STABILITY_FIELDS) & set(network)   # the network job's record leaves them out
    assert "stability_runs" not in network["communities"]
    assert {k: v for k, v in network.items() if k not in ("communities", *STABILITY_FIELDS)} == \
        {k: v for k, v in whole.items() if k not in ("communities", *STABILITY_FIELDS)}


def test_one_run_reads_no_edges_and_says_stability_was_not_measured(workspace):
    spec = _spec("coupling", {"stability_runs": 1})
    Path(_job(spec, "network", "coupling")["edges"]).unlink()   # not read with one run
    said = _read(_job(spec, "stability", "coupling")["stability"])
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


def test_the_network_read_shows_stability_only_for_the_network_it_measured(workspace):
    """The `network` verb's metrics carry stability.json's fields while the stability job's manifest names
    the network job's graph/metrics.json on disk; a network rebuilt since (the stability job not run
    again) shows none rather than the score of the one before."""
    from bib2graph.service.network_view import read_metrics

    spec = _spec("coupling", COMMUNITIES)
    graph = Path(_job(spec, "network", "coupling")["metrics"])
    folder = Path("results/networks/coupling")
    (folder / "metrics.json").write_bytes(graph.read_bytes())   # as the clusters job's
    assert "stability" not in read_metrics(folder)   # not measured yet
    _job(spec, "stability", "coupling")
    shown = read_metrics(folder)
    assert shown["stability"]["runs"] == 3 and shown["reproducibility"]
    graph.write_text(graph.read_text(encoding="utf-8").replace('"edges"', '"edges" ', 1), encoding="utf-8")
    assert not set(STABILITY_FIELDS) & set(read_metrics(folder))
