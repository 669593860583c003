"""`time:` on the built demo: trends and time-sliced networks as jobs of the same DAG, byte-identical
across runs, rebuilt incrementally, and drawn in the report's "Change over time" section."""

from __future__ import annotations

import hashlib
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .conftest import copy_workspace
from .helpers import b2g, ran_jobs

SVG = "{http://www.w3.org/2000/svg}"


def _digests(root: Path, *folders: str) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in sorted((root / folder).rglob("*")) if p.is_file()}


def _set_time(root: Path, **time) -> None:
    path = root / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["time"] = {"enabled": True, "networks": ["keywords"], **time}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")


@pytest.fixture
def timed(timed_demo) -> Path:
    """The demo with `time` on (conftest's `timed_demo`): only read, never changed."""
    return timed_demo


def test_turning_time_on_runs_only_the_time_jobs_and_the_report(timed):
    ran = set((timed.parent / "ran_jobs.txt").read_text(encoding="utf-8").split())
    assert ran == {"trends", "slices:keywords", "report"}


def _texts(svg: ET.Element) -> list[str]:
    return ["".join(t.itertext()).strip() for t in svg.iter(f"{SVG}text")]


def _figures(html: str) -> dict[str, ET.Element]:
    """Each <figure id=…> of the report with its SVG parsed back."""
    found = {}
    for match in re.finditer(r'<figure[^>]*id="([^"]+)"[^>]*>(<svg.*?</svg>)', html, re.S):
        found[match.group(1)] = ET.fromstring(match.group(2))
    return found


def test_trend_tables_are_consistent(timed):
    counts = yaml.safe_load((timed / "results/trends/manifest.json").read_text())["counts"]
    works = pd.read_parquet(timed / "results/corpus/works.parquet")
    assert counts["guards"]["kept"] + sum(v for k, v in counts["guards"].items() if k != "kept") == len(works)
    bursts = pd.read_parquet(timed / "results/trends/bursts.parquet")
    assert len(bursts) and (bursts["end"] >= bursts["begin"]).all()
    assert (bursts["end"] - bursts["begin"] + 1 >= 2).all()          # CiteSpace's minimum duration
    first, last = counts["years"]
    assert bursts["begin"].min() >= first and bursts["end"].max() <= last
    # every family tested is counted, 0 when none of its items burst
    assert set(counts["bursts"]) == set(counts["items_tested"])
    assert counts["bursts"] == {f: int((bursts["family"] == f).sum()) for f in counts["items_tested"]}
    nodes = pd.read_parquet(timed / "results/slices/keywords/nodes.parquet")
    slices = sorted(nodes["slice"].unique())
    assert all(int(s[5:]) - int(s[:4]) <= 4 for s in slices)
    flows = pd.read_parquet(timed / "results/slices/keywords/flows.parquet")
    assert ((flows["inclusion"] > 0) & (flows["inclusion"] <= 1)).all()


@pytest.mark.long
def test_reruns_are_byte_identical(timed, tmp_path):
    root = copy_workspace(timed, tmp_path / "again")
    before = _digests(root, "results/trends", "results/slices")
    shutil.rmtree(root / "results/trends")
    shutil.rmtree(root / "results/slices")
    run = b2g("run", "--json", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    assert {"trends", "slices:keywords"} <= ran_jobs(run.stderr)
    assert _digests(root, "results/trends", "results/slices") == before


@pytest.mark.long
def test_changing_the_slice_length_reruns_only_the_time_rules(timed, tmp_path):
    root = copy_workspace(timed, tmp_path / "longer")
    _set_time(root, slice_years=3)
    run = b2g("run", "--json", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    assert ran_jobs(run.stderr) == {"slices:keywords", "report"}
    nodes = pd.read_parquet(root / "results/slices/keywords/nodes.parquet")
    assert all(int(s[5:]) - int(s[:4]) <= 2 for s in nodes["slice"].unique())


def test_report_draws_bursts_timeline_strategic_diagrams_and_rpys(timed):
    html = (timed / "results/report/index.html").read_text(encoding="utf-8")
    figures = _figures(html)
    bursts = pd.read_parquet(timed / "results/trends/bursts.parquet")
    for family, rows in bursts.groupby("family"):
        texts = _texts(figures[f"bursts-{family}"])
        strongest = rows.sort_values(["strength", "item"], ascending=[False, True]).iloc[0]
        assert f"{strongest.begin}–{strongest.end}  {strongest.strength:.2f}" in texts
    spectrum = pd.read_parquet(timed / "results/trends/rpys.parquet")
    peaks = {str(y) for y in spectrum.loc[spectrum["peak"], "year"]}
    assert peaks and peaks <= set(_texts(figures["rpys"]))
    nodes = pd.read_parquet(timed / "results/slices/keywords/nodes.parquet")
    slices = sorted(nodes["slice"].unique())
    assert set(slices) <= set(_texts(figures["timeline-keywords"]))
    themes = pd.read_parquet(timed / "results/slices/keywords/themes.parquet")
    for name, here in themes.groupby("slice"):
        texts = _texts(figures[f"strategic-{name}"])
        assert f"Strategic diagram {name}" in texts
        assert sum(any(t.startswith(label[:20]) for t in texts) for label in here["label"]) == len(here)
    assert "flows" in figures


def test_dynamic_gexf_holds_every_slice_of_every_node_and_edge(timed):
    import networkx as nx

    graph = nx.read_gexf(timed / "results/slices/keywords/network.gexf")
    assert graph.graph["mode"] == "dynamic"
    nodes = pd.read_parquet(timed / "results/slices/keywords/nodes.parquet")
    edges = pd.read_parquet(timed / "results/slices/keywords/edges.parquet")
    expected = {n: sorted((float(s[:4]), float(s[5:])) for s in rows["slice"]) for n, rows in nodes.groupby("node_id")}
    assert {n: sorted(d["spells"]) for n, d in graph.nodes(data=True)} == expected
    assert graph.number_of_edges() == edges[["source", "target"]].drop_duplicates().shape[0]
    first = nodes.iloc[0]
    clusters = graph.nodes[first["node_id"]]["cluster"]
    assert (int(first["cluster"]), float(first["slice"][:4]), float(first["slice"][5:])) in \
        [(int(v), float(a), float(b)) for v, a, b in clusters]


@pytest.mark.long
def test_damaged_slice_tables_are_artifact_corrupt(timed, tmp_path):
    """A slices table cut short or not Parquet: `slices` answers ARTIFACT_CORRUPT naming it (was INTERNAL)."""
    root = copy_workspace(timed, tmp_path / "review")
    for name in ("events.parquet", "nodes.parquet"):
        path = root / "results/slices/keywords" / name
        kept = path.read_bytes()
        path.write_bytes(kept[: len(kept) // 2])
        call = b2g("slices", "keywords", "--json", "--workspace", str(root))
        assert call.returncode == 2 and call.envelope["error"]["code"] == "ARTIFACT_CORRUPT", call.stdout
        assert call.envelope["error"]["details"]["files"] == [str(path)] and "Traceback" not in call.stderr
        path.write_bytes(kept)
    assert b2g("slices", "keywords", "--json", "--workspace", str(root)).returncode == 0
