"""The map of every network in the built demo: a layout that rebuilds byte for byte, coordinates that
reach the exports, and pictures in the report that say what they should when read back."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pytest

from bib2graph import maps, phases, registry, spec as spec_mod
from bib2graph.networks import KINDS
from bib2graph.networks.schema import LAYOUT, NODES
from bib2graph.tables import read_table

from .dag_cases import call
from .helpers import b2g, ran_jobs

pytestmark = pytest.mark.integration
SVG = "{http://www.w3.org/2000/svg}"


def _layout(root, kind):
    return read_table(root / f"results/layouts/{kind}/layout.parquet", LAYOUT)


@pytest.mark.parametrize("kind", ["cocitation", "coauthorship"])
def test_the_layout_job_rebuilds_the_same_bytes(built_demo, tmp_path, monkeypatch, kind):
    spec = spec_mod.load(built_demo / "config/research.yaml")
    job = next(j for j in registry.jobs(spec) if j.name == f"layout:{kind}")
    outputs = {"layout": str(tmp_path / "layout.parquet"), "manifest": str(tmp_path / "manifest.json")}
    monkeypatch.chdir(built_demo)                          # the job reads its inputs from the workspace
    phases.run("layout", kind, job.params, job.inputs, outputs)
    built = built_demo / job.outputs["layout"]
    assert (tmp_path / "layout.parquet").read_bytes() == built.read_bytes()
    layout = _layout(built_demo, kind)
    nodes = read_table(built_demo / f"results/networks/{kind}/nodes.parquet", NODES)
    assert layout["node_id"].tolist() == nodes["node_id"].tolist()
    assert np.abs(layout[["x", "y"]].to_numpy()).max() == 1.0


def test_the_exports_carry_the_layouts_coordinates(built_demo):
    for kind in KINDS:
        layout = _layout(built_demo, kind)
        expected = list(zip(layout["x"], layout["y"]))
        folder = built_demo / f"results/export/{kind}"
        lines = (folder / "vosviewer_map.txt").read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t")
        x, y = header.index("x"), header.index("y")
        assert [(float(r.split("\t")[x]), float(r.split("\t")[y])) for r in lines[1:]] == expected, kind
        graph = nx.read_graphml(folder / "network.graphml")
        assert [(graph.nodes[n]["x"], graph.nodes[n]["y"]) for n in layout["node_id"]] == expected, kind


@pytest.mark.long
def test_the_demo_exports_hold_every_edge_and_say_so(built_demo):
    """The demo is far below export.max_edges: every visual file holds all edges, as its manifest says."""
    import json

    import pandas as pd

    for kind in KINDS:
        folder = built_demo / f"results/export/{kind}"
        counts = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["counts"]
        edges = len(pd.read_parquet(built_demo / f"results/networks/{kind}/edges.parquet"))
        assert counts["reduction"]["kept"] == counts["reduction"]["edges"] == edges, kind
        assert not counts["reduction"]["reduced"] and counts["reduction"]["max_edges"] == 250_000
        assert nx.read_graphml(folder / "network.graphml").number_of_edges() == counts["edges"]["graphml"] == edges
        assert nx.read_gexf(folder / "network.gexf").number_of_edges() == counts["edges"]["gexf"] == edges
        assert counts["edges"]["csv"] == counts["edges"]["pajek"] == edges


def _figure(report: str, name: str) -> ET.Element:
    found = re.search(rf'<figure id="{name}">(<svg.*?</svg>)', report, re.S)
    assert found, name
    return ET.fromstring(found.group(1))


def _groups(svg: ET.Element, prefix: str) -> list[ET.Element]:
    return [g for g in svg.iter(f"{SVG}g") if g.get("id", "").startswith(prefix)]


def _fills(svg: ET.Element) -> list[str]:
    """The fill colour of every node mark, in the order drawn."""
    return [re.search(r"fill: (#[0-9a-f]{6})", use.get("style")).group(1)
            for g in _groups(svg, "nodes-") for use in g.iter(f"{SVG}use")]


def _box(label: ET.Element) -> tuple[float, float, float, float]:
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", next(label.iter(f"{SVG}path")).get("d"))]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def test_the_report_shows_a_map_and_a_year_overlay_of_every_network(built_demo):
    report = (built_demo / "results/report/index.html").read_text(encoding="utf-8")
    for kind in KINDS:
        nodes = read_table(built_demo / f"results/networks/{kind}/nodes.parquet", NODES)
        shown = maps.drawn(nodes.assign(x=0.0, y=0.0))
        svg = _figure(report, f"map-{kind}")
        fills = _fills(svg)
        assert len(fills) == len(shown) == min(len(nodes), maps.MAX_NODES), kind
        assert sorted(fills) == sorted(maps.cluster_colours(shown["cluster"])), kind
        assert len(set(fills)) == min(shown["cluster"].nunique(), 20) + (shown["cluster"].max() > 20), kind
        boxes = [_box(g) for g in _groups(svg, "label-")]
        assert boxes, kind
        for a in range(len(boxes)):
            for b in range(a):
                A, B = boxes[a], boxes[b]
                assert A[2] <= B[0] or B[2] <= A[0] or A[3] <= B[1] or B[3] <= A[1], (kind, A, B)

        overlay = _figure(report, f"overlay-{kind}")
        assert len(_fills(overlay)) == len(shown), kind
        bar = _groups(overlay, "colorbar")
        assert len(bar) == 1, kind
        ticks = [int(t.text) for t in bar[0].iter(f"{SVG}text") if t.text and t.text.isdigit()]
        years = shown["mean_year"].dropna()
        assert ticks[0] == int(np.floor(years.min())) and ticks[-1] == int(np.ceil(years.max())), (kind, ticks)
        assert f'href="../export/{kind}/vosviewer_map.txt"' in report
    assert "How these results were made" in report and "igraph" in report


@pytest.mark.long
def test_editing_the_layout_section_reruns_only_layouts_exports_and_the_report(demo):
    import yaml

    path = demo / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["layout"] = {"seed": 7}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    pending = set(call(["status"], demo)["data"]["pending_jobs"])
    assert pending == {f"{rule}:{kind}" for rule in ("layout", "export") for kind in KINDS} | {"report"}
    spec["networks"] = {"keywords": spec["networks"]["keywords"]}   # fewer networks: only the report
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")   # re-runs for that, sooner
    before = (demo / "results/layouts/keywords/layout.parquet").read_bytes()
    run = b2g("run", "--cores", "2", "--workspace", str(demo))
    assert run.returncode == 0, run.stderr[-2000:]
    assert ran_jobs(run.stderr) == {"layout:keywords", "export:keywords", "report"}
    assert (demo / "results/layouts/keywords/layout.parquet").read_bytes() != before


def _legend(report: str, kind: str) -> list[ET.Element]:
    found = re.search(rf'<figure id="map-{kind}"><svg.*?</svg>\s*(<ul class="legend" data-kind="{kind}">.*?</ul>)',
                      report, re.S)
    assert found, kind
    return list(ET.fromstring(found.group(1)))


def test_the_report_names_each_networks_clusters_as_metrics_json_does(built_demo):
    """Under each map a legend of metrics.json's clusters (those past the palette in one grey entry) whose
    colours are the map's; a cluster table; the mean silhouette beside modularity."""
    import json

    from bib2graph.palette import OTHER_COLOUR
    from bib2graph.report import MAX_CLUSTER_ROWS

    report = (built_demo / "results/report/index.html").read_text(encoding="utf-8")
    summary = ET.fromstring(re.search(r"<h2>Networks</h2>\s*(<table>.*?</table>)", report, re.S).group(1))
    headers = [th.text for th in summary.iter("th")]
    assert headers[headers.index("modularity") + 1] == "silhouette"
    by_kind = {tr[0].text: tr for tr in summary.find("tbody")}
    for kind in KINDS:
        metrics = json.loads((built_demo / f"results/networks/{kind}/metrics.json").read_text(encoding="utf-8"))
        clusters = metrics["clusters"]
        assert clusters and all(c["colour"] and c["label"] for c in clusters), kind
        own = [c for c in clusters if c["colour"] != OTHER_COLOUR]
        items = _legend(report, kind)
        listed = [i for i in items if i.get("data-cluster") != "other"]
        assert [(i.get("data-cluster"), i.get("data-colour"), i.find("span[@class='label']").text) for i in listed] \
            == [(str(c["cluster"]), c["colour"], c["label"]) for c in own], kind
        rest = len(clusters) - len(own)
        assert [i.get("data-clusters") for i in items if i.get("data-cluster") == "other"] == \
            ([str(rest)] if rest else []), kind
        assert {i.get("data-colour") for i in items} <= set(_fills(_figure(report, f"map-{kind}"))), kind
        table = ET.fromstring(re.search(rf'<div class="clusters" id="clusters-{kind}">(<table.*?</table>)', report,
                                        re.S).group(1))
        assert [tr[2].text for tr in table.find("tbody")] == [c["label"] for c in clusters[:MAX_CLUSTER_ROWS]], kind
        assert by_kind[kind][headers.index("silhouette")].text == f"{metrics['silhouette']:.4g}", kind


def test_the_report_has_one_density_view_of_every_network_and_it_is_the_item_density(built_demo):
    import base64
    import io

    from matplotlib import colormaps
    from PIL import Image

    from bib2graph.density import item_density

    report = (built_demo / "results/report/index.html").read_text(encoding="utf-8")
    assert len(re.findall(r'<figure id="density-', report)) == len(KINDS)
    for kind in KINDS:
        svg = _figure(report, f"density-{kind}")
        (image,) = [i for i in svg.iter(f"{SVG}image") if i.get("id") == "density"]
        png = base64.b64decode(image.get("{http://www.w3.org/1999/xlink}href").split(",", 1)[1])
        nodes = read_table(built_demo / f"results/networks/{kind}/nodes.parquet", NODES)
        xy = _layout(built_demo, kind).set_index("node_id").loc[nodes["node_id"]]
        grid = item_density(xy["x"], xy["y"], nodes[maps.DENSITY_WEIGHT].to_numpy(dtype=float))
        drawn = np.asarray(Image.open(io.BytesIO(png)))
        assert np.array_equal(drawn, colormaps["viridis"](grid.values, bytes=True)), kind
        assert _groups(svg, "label-"), kind
