"""Exports: each file reads back (networkx, pandas, a small VOSviewer parser) with the same graph."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.export import FORMATS, write_csv, write_gexf, write_graphml, write_pajek, write_vosviewer
from bib2graph.networks import build
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works

ROOT = Path(__file__).resolve().parents[2]
SEP = ROOT / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
FAST = {"stability_runs": 1}
CASES = {
    "coupling": ("coupling", {"min_weight": 2, "normalization": "salton"}),
    "citation": ("citation", {}),
    "coauthorship": ("coauthorship", {"counting": "fractional", "normalization": "association"}),
    "keywords": ("keywords", {"min_occurrences": 3}),
}


@pytest.fixture(scope="module")
def sep():
    return bundle_from_works(read_work_objects(SEP))


@pytest.fixture(scope="module")
def networks(sep):
    return {name: build(kind, sep, params, FAST) for name, (kind, params) in CASES.items()}


def _author(name: str, author_id: str) -> dict:
    return {"author": {"id": f"https://openalex.org/{author_id}", "display_name": name}}


@pytest.fixture(scope="module")
def hostile():
    """Co-authors whose names a spreadsheet would run, or that break naive delimited formats."""
    names = ["=HYPERLINK(\"http://x\")", "-2+3", "+1", "@SUM(A1)", "Smith, J.; \"Jr\"", "Tab\there", "Same",
             "Same"]
    authors = [_author(n, f"A{k}") for k, n in enumerate(names, start=1)]
    works = [{"id": "https://openalex.org/W1", "authorships": authors[:5]},
             {"id": "https://openalex.org/W2", "authorships": authors[3:]}]
    bundle = bundle_from_works(works)
    return bundle, build("coauthorship", bundle, {}, FAST)


def _only(folder: Path, names: set[str]) -> None:
    """Atomic writes leave no temporary files behind."""
    assert {p.name for p in folder.iterdir()} == names


@pytest.mark.parametrize("name", list(CASES))
def test_graphml_reads_back_with_typed_attributes(networks, sep, tmp_path, name):
    net = networks[name]
    path = tmp_path / "net.graphml"
    write_graphml(net, sep, path)
    graph = nx.read_graphml(path)
    assert graph.is_directed() == net.directed
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (len(net.nodes), len(net.edges))
    first = net.nodes.iloc[0]
    attrs = graph.nodes[first["node_id"]]
    assert attrs["label"] == " ".join(str(first["label"]).split())
    assert isinstance(attrs["cluster"], int) and attrs["cluster"] == first["cluster"]
    assert isinstance(attrs["degree"], int) and isinstance(attrs["pagerank"], float)
    labels = {c["cluster"]: c["label"] for c in net.metrics["clusters"]}   # the metrics' label, node by node
    for row in net.nodes.itertuples(index=False):
        assert graph.nodes[row.node_id].get("cluster_label") == labels.get(row.cluster)
        assert graph.nodes[row.node_id]["silhouette"] == pytest.approx(row.silhouette)
    assert math.isclose(sum(d["weight"] for _, _, d in graph.edges(data=True)), net.edges["weight"].sum())
    text = path.read_text(encoding="utf-8")
    assert ">None<" not in text and ">nan<" not in text
    if name in ("coupling", "citation"):
        with_doi = net.nodes[net.nodes["doi"].notna()].iloc[0]
        assert graph.nodes[with_doi["node_id"]]["url"] == f"https://doi.org/{with_doi['doi']}"
        assert "venue" in attrs and isinstance(attrs["year"], int)
    else:
        assert "year" not in attrs and "doi" not in attrs
    _only(tmp_path, {"net.graphml"})


@pytest.mark.parametrize("name", ["coupling", "citation"])
def test_gexf_reads_back_and_is_byte_stable(networks, sep, tmp_path, name):
    net = networks[name]
    write_gexf(net, sep, tmp_path / "a.gexf")
    write_gexf(net, sep, tmp_path / "b.gexf")
    assert (tmp_path / "a.gexf").read_bytes() == (tmp_path / "b.gexf").read_bytes()
    graph = nx.read_gexf(tmp_path / "a.gexf")
    assert graph.is_directed() == net.directed
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (len(net.nodes), len(net.edges))
    node = net.nodes.iloc[-1]
    assert graph.nodes[node["node_id"]]["cluster"] == node["cluster"]
    assert "lastmodifieddate" not in (tmp_path / "a.gexf").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(CASES))
def test_pajek_reads_back_with_unique_labels(networks, tmp_path, name):
    net = networks[name]
    path = tmp_path / "net.net"
    write_pajek(net, path)
    graph = nx.read_pajek(path)
    assert graph.is_directed() == net.directed
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (len(net.nodes), len(net.edges))
    assert math.isclose(sum(d["weight"] for _, _, d in graph.edges(data=True)), net.edges["weight"].sum(),
                        rel_tol=1e-8)


#: characters XML 1.0 cannot hold, even as character references (a WoS abstract with a unit separator)
NOT_XML = "\x01\x08\x1f\x0e\ufffe\uffff"


def test_characters_xml_cannot_hold_leave_every_xml_file_readable(tmp_path):
    """One control character in an abstract, a title, a venue or a name made the GraphML and GEXF files
    unreadable to every XML parser; it is left out, and the rest of the text kept."""
    import xml.etree.ElementTree as ET

    from bib2graph.export.dynamic_gexf import write as write_dynamic

    def work(k: int) -> dict:
        return {"id": f"https://openalex.org/W{k}", "title": f"Title{NOT_XML} {k}", "publication_year": 2000 + k,
                "abstract_inverted_index": {f"Unit{NOT_XML}separated": [0], "abstract": [1]},
                "primary_location": {"source": {"display_name": f"Venue{NOT_XML}"}},
                "authorships": [_author(f"Name{NOT_XML} {k}", f"A{k}"), _author("Other", "A9")],
                "referenced_works": ["https://openalex.org/W100", "https://openalex.org/W101"]}

    corpus = bundle_from_works([work(k) for k in (1, 2, 3)])
    for kind in ("coupling", "coauthorship"):
        net = build(kind, corpus, {}, FAST)
        assert len(net.edges), kind
        for writer, name in ((write_graphml, "n.graphml"), (write_gexf, "n.gexf")):
            writer(net, corpus, tmp_path / name)
            text = (tmp_path / name).read_text(encoding="utf-8")
            ET.fromstring(text)      # well-formed XML
            assert not any(f"&#{ord(c)};" in text or c in text for c in NOT_XML), (kind, name)
        graph = nx.read_graphml(tmp_path / "n.graphml")
        assert graph.number_of_nodes() == len(net.nodes) and graph.number_of_edges() == len(net.edges)
        if kind == "coupling":
            assert graph.nodes["W1"]["abstract"] == "Unitseparated abstract" and graph.nodes["W1"]["venue"] == "Venue"
        assert ' name=""' not in (tmp_path / "n.gexf").read_text(encoding="utf-8")
    nodes = pd.DataFrame({"node_id": [f"a{NOT_XML}", "b"], "slice": ["2000-2004"] * 2, "label": [f"A{NOT_XML}", "B"],
                          "cluster": [1, 1], "occurrences": [1, 1]})
    edges = pd.DataFrame({"source": [f"a{NOT_XML}"], "target": ["b"], "slice": ["2000-2004"], "count": [1.0],
                          "weight": [1.0]})
    write_dynamic(nodes, edges, False, tmp_path / "d.gexf")
    text = (tmp_path / "d.gexf").read_text(encoding="utf-8")
    assert ' name=""' not in text and nx.read_gexf(tmp_path / "d.gexf").number_of_edges() == 1


def test_pajek_disambiguates_shared_labels(hostile, tmp_path):
    _, net = hostile
    write_pajek(net, tmp_path / "h.net")
    graph = nx.read_pajek(tmp_path / "h.net")
    assert graph.number_of_nodes() == len(net.nodes) == 8
    assert {"Same [A7]", "Same [A8]"} <= set(graph.nodes)


def test_csv_round_trips_and_defuses_formulas(hostile, tmp_path):
    _, net = hostile
    write_csv(net, tmp_path / "nodes.csv", tmp_path / "edges.csv")
    nodes = pd.read_csv(tmp_path / "nodes.csv", dtype=str, keep_default_na=False)
    edges = pd.read_csv(tmp_path / "edges.csv")
    assert list(nodes.columns) == list(net.nodes.columns) and len(nodes) == len(net.nodes)
    assert list(edges.columns) == list(net.edges.columns) and len(edges) == len(net.edges)
    labels = dict(zip(nodes["node_id"], nodes["label"]))
    assert labels["A1"] == "'=HYPERLINK(\"http://x\")" and labels["A2"] == "'-2+3"
    assert labels["A3"] == "'+1" and labels["A4"] == "'@SUM(A1)" and labels["A5"] == "Smith, J.; \"Jr\""
    assert not any(value.startswith(("=", "+", "-", "@")) for value in nodes.to_numpy().ravel())
    assert edges["count"].sum() == net.edges["count"].sum()


def test_csv_keeps_numbers_numeric(networks, tmp_path):
    net = networks["coauthorship"]
    write_csv(net, tmp_path / "n.csv", tmp_path / "e.csv")
    nodes = pd.read_csv(tmp_path / "n.csv")
    assert nodes["degree"].tolist() == net.nodes["degree"].tolist()
    assert nodes["pagerank"].sum() == pytest.approx(net.nodes["pagerank"].sum())
    assert (tmp_path / "n.csv").read_bytes()[:3] != b"\xef\xbb\xbf"   # plain UTF-8, no BOM


def parse_vos_map(path: Path) -> list[dict]:
    """A small reader of the VOSviewer map format: tab-separated, header line, quoted labels."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8")), delimiter="\t"))
    header, body = rows[0], rows[1:]
    return [dict(zip(header, row, strict=True)) for row in body]


def parse_vos_network(path: Path) -> list[tuple[int, int, float]]:
    links = []
    for line in path.read_text(encoding="utf-8").splitlines():
        a, b, s = line.split("\t")
        links.append((int(a), int(b), float(s)))
    return links


@pytest.mark.parametrize("name", list(CASES))
def test_vosviewer_files_describe_the_same_network(networks, tmp_path, name):
    net = networks[name]
    write_vosviewer(net, tmp_path / "map.txt", tmp_path / "network.txt", tmp_path / "net.json")
    items = parse_vos_map(tmp_path / "map.txt")
    links = parse_vos_network(tmp_path / "network.txt")
    assert [int(r["id"]) for r in items] == list(range(1, len(net.nodes) + 1))
    assert [r["label"] for r in items] == [" ".join(str(x).split()).replace('"', "'") for x in net.nodes["label"]]
    assert all(1 <= int(r["cluster"]) <= 1000 for r in items)
    assert all(1 <= a < b <= len(items) for a, b, _ in links)
    assert math.isclose(sum(s for _, _, s in links), net.edges["count"].sum(), rel_tol=1e-9)
    pairs = {tuple(sorted(e)) for e in zip(net.edges["source"], net.edges["target"])}
    assert len(links) == len(pairs)
    links_of = {k: 0 for k in range(1, len(items) + 1)}
    for a, b, _ in links:
        links_of[a] += 1
        links_of[b] += 1
    assert [int(r["weight<Links>"]) for r in items] == [links_of[k] for k in range(1, len(items) + 1)]
    assert [int(r["weight<Occurrences>"]) for r in items] == net.nodes["occurrences"].tolist()
    doc = json.loads((tmp_path / "net.json").read_text(encoding="utf-8"))["network"]
    assert len(doc["items"]) == len(items) and len(doc["links"]) == len(links)
    assert {(x["source_id"], x["target_id"]) for x in doc["links"]} == {(a, b) for a, b, _ in links}
    assert doc["items"][0]["weights"]["Occurrences"] == int(net.nodes["occurrences"].iloc[0])
    assert doc["clusters"] == [{"cluster": c["cluster"], "label": c["label"]} for c in net.metrics["clusters"]]
    _only(tmp_path, {"map.txt", "network.txt", "net.json"})


def test_vosviewer_quotes_labels_with_separators(hostile, tmp_path):
    _, net = hostile
    write_vosviewer(net, tmp_path / "m.txt", tmp_path / "n.txt", tmp_path / "j.json")
    lines = (tmp_path / "m.txt").read_text(encoding="utf-8").splitlines()
    row = next(line for line in lines if line.startswith("5\t")).split("\t")
    assert row[1] == "\"Smith, J.; 'Jr'\""
    assert all(len(line.split("\t")) == len(lines[0].split("\t")) for line in lines)   # the tab was cleaned


def test_formats_lists_every_exporter():
    assert FORMATS == ("graphml", "gexf", "csv", "pajek", "vosviewer")


def test_reading_order_ranks_corpus_works_within_clusters(networks):
    from bib2graph.export.reading import reading_order

    net = networks["citation"]
    order = reading_order("citation", net.nodes)
    assert set(order.node_id) == set(net.nodes[net.nodes.in_corpus].node_id)
    for _, group in order.groupby("cluster"):
        assert list(group["rank"]) == list(range(1, len(group) + 1))
        assert list(group.pagerank) == sorted(group.pagerank, reverse=True)


def _map_of(net):
    """A layout of the network as the layout job makes it: (n, 2) in node-table order."""
    from bib2graph.networks.layout import layout

    ids = pd.Index(net.nodes["node_id"])
    return layout(len(ids), ids.get_indexer(net.edges["source"]), ids.get_indexer(net.edges["target"]),
                  net.edges["weight"].to_numpy(), net.nodes["cluster"].to_numpy(dtype="int64"), iterations=20)


@pytest.mark.parametrize("name", ["coupling", "coauthorship"])
def test_exports_carry_the_map_coordinates(networks, sep, tmp_path, name):
    net = networks[name]
    xy = _map_of(net)
    expected = {node: (x, y) for node, x, y in zip(net.nodes["node_id"], xy[:, 0], xy[:, 1])}
    write_graphml(net, sep, tmp_path / "plain.graphml")
    write_graphml(net, sep, tmp_path / "net.graphml", xy)
    graph = nx.read_graphml(tmp_path / "net.graphml")
    assert {n: (d["x"], d["y"]) for n, d in graph.nodes(data=True)} == expected
    plain = nx.read_graphml(tmp_path / "plain.graphml")
    assert all({**plain.nodes[n], "x": x, "y": y} == graph.nodes[n] for n, (x, y) in expected.items())
    assert nx.utils.edges_equal(plain.edges(data=True), graph.edges(data=True))

    write_gexf(net, sep, tmp_path / "net.gexf", xy)
    gexf = nx.read_gexf(tmp_path / "net.gexf")
    assert {n: (d["viz"]["position"]["x"], d["viz"]["position"]["y"]) for n, d in gexf.nodes(data=True)} == expected

    write_vosviewer(net, tmp_path / "map.txt", tmp_path / "network.txt", tmp_path / "net.json", xy)
    items = parse_vos_map(tmp_path / "map.txt")
    assert [(float(r["x"]), float(r["y"])) for r in items] == list(expected.values())
    doc = json.loads((tmp_path / "net.json").read_text(encoding="utf-8"))["network"]
    assert [(i["x"], i["y"]) for i in doc["items"]] == list(expected.values())


def test_graphml_positions_need_one_per_node(networks, sep, tmp_path):
    from bib2graph.errors import DataError
    net = networks["citation"]
    with pytest.raises(DataError):
        write_graphml(net, sep, tmp_path / "net.graphml", _map_of(net)[:-1])
    assert not list(tmp_path.iterdir())   # nothing half-written is left


def test_item_nodes_carry_the_mean_year_of_their_works(networks, sep):
    net = networks["coauthorship"]
    years = sep.works.set_index("work_id")["year"].astype("Float64")
    a = sep.authorships.dropna(subset=["author_id"]).drop_duplicates(["work_id", "author_id"])
    expected = a.assign(year=a["work_id"].map(years)).groupby("author_id")["year"].mean()
    got = net.nodes.set_index("node_id")["mean_year"]
    assert got.notna().any()
    for node, value in got.items():
        assert (pd.isna(value) and pd.isna(expected[node])) or value == pytest.approx(float(expected[node]))
    works = networks["coupling"].nodes
    with_year = works[works["year"].notna()]
    assert (with_year["mean_year"] == with_year["year"].astype(float)).all()
    complete = bool(net.nodes["mean_year"].notna().all())
    assert parse_vos_score(net) == ([round(float(y), 2) for y in net.nodes["mean_year"]] if complete else None)


def parse_vos_score(net):
    """The VOSviewer overlay score of each item, when every node has a mean year."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_vosviewer(net, folder / "m.txt", folder / "n.txt", folder / "j.json")
        rows = parse_vos_map(folder / "m.txt")
    column = "score<Avg. pub. year>"
    return [float(r[column]) for r in rows] if rows and column in rows[0] else None


@pytest.mark.long
@pytest.mark.parametrize("name", [*CASES, "hostile"])
def test_column_wise_writers_give_the_bytes_of_the_per_row_ones(networks, sep, hostile, tmp_path, name):
    """The column-wise writers equal, byte for byte, the per-row ones they replaced (export_reference)."""
    from bib2graph.export.reading import reading_order

    from . import export_reference as old

    corpus, net = hostile if name == "hostile" else (sep, networks[name])
    xy = _map_of(net)
    pairs = [(lambda d, p: write_graphml(net, corpus, d / p), lambda d, p: old.write_graphml(net, corpus, d / p)),
             (lambda d, p: write_graphml(net, corpus, d / p, xy), lambda d, p: old.write_graphml(net, corpus, d / p, xy)),
             (lambda d, p: write_pajek(net, d / p), lambda d, p: old.write_pajek(net, d / p)),
             (lambda d, p: write_gexf(net, corpus, d / p), lambda d, p: old.write_gexf(net, corpus, d / p)),
             (lambda d, p: write_gexf(net, corpus, d / p, xy), lambda d, p: old.write_gexf(net, corpus, d / p, xy))]
    for k, (new, before) in enumerate(pairs):
        new(tmp_path, f"new{k}")
        before(tmp_path, f"old{k}")
        assert (tmp_path / f"new{k}").read_bytes() == (tmp_path / f"old{k}").read_bytes(), k
    for frame in (net.nodes, net.edges, reading_order(net.kind, net.nodes)):
        from bib2graph.export.csv import frame_text

        assert frame_text(frame) == old.frame_text(frame)
    write_csv(net, tmp_path / "n.csv", tmp_path / "e.csv")
    assert (tmp_path / "e.csv").read_text(encoding="utf-8") == old.frame_text(net.edges)
    for positions in (None, xy):
        write_vosviewer(net, tmp_path / "m", tmp_path / "n", tmp_path / "j", positions)
        old.write_vosviewer(net, tmp_path / "om", tmp_path / "on", tmp_path / "oj", positions)
        for file in ("m", "n", "j"):
            assert (tmp_path / file).read_bytes() == (tmp_path / f"o{file}").read_bytes(), file


def _chunked(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with each text column as pandas holds one read from Parquet in batches: Arrow-backed strings in
    several chunks (a 522k-node co-citation network read back in 4), which some Arrow kernels refuse."""
    import pyarrow as pa

    out = frame.copy()
    for name in frame.columns:
        whole = pa.array(frame[name], from_pandas=True)
        if pa.types.is_string(whole.type) or pa.types.is_large_string(whole.type):
            whole, cut = whole.cast(pa.large_string()), len(whole) // 2
            pieces = pa.chunked_array([whole[:cut], whole[cut:], whole[len(whole):]], pa.large_string())
            out[name] = pd.Series(pd.arrays.ArrowStringArray(pieces), index=frame.index)
    return out


@pytest.mark.parametrize("name", ["hostile", "coupling", "keywords"])
def test_tables_read_back_in_chunks_give_the_same_files(networks, sep, hostile, tmp_path, name):
    """Every format of a network whose tables pandas holds in Arrow chunks (as read from Parquet) has the
    bytes of the same network held whole: at 100k works the GraphML writer failed on a chunked mask."""
    from bib2graph.export.reading import write_reading_order
    from bib2graph.networks import Network

    corpus, net = hostile if name == "hostile" else (sep, networks[name])
    xy = _map_of(net)
    chunked = Network(kind=net.kind, directed=net.directed, nodes=_chunked(net.nodes), edges=_chunked(net.edges),
                      evidence=None, metrics=net.metrics)
    assert any(isinstance(c.array, pd.arrays.ArrowStringArray) and c.array._pa_array.num_chunks > 1
               for _, c in chunked.nodes.items())
    for folder, network in (("whole", net), ("chunked", chunked)):
        out = tmp_path / folder
        out.mkdir()
        write_graphml(network, corpus, out / "g", xy)
        write_gexf(network, corpus, out / "x", xy)
        write_pajek(network, out / "p")
        write_vosviewer(network, out / "m", out / "n", out / "j", xy)
        write_csv(network, out / "nodes.csv", out / "edges.csv")
        write_reading_order(network, out / "r")
    for file in sorted(p.name for p in (tmp_path / "whole").iterdir()):
        assert (tmp_path / "chunked" / file).read_bytes() == (tmp_path / "whole" / file).read_bytes(), file


def test_numbers_read_as_python_writes_them():
    """Arrow's number text, put in Python's notation, is Python's `repr`, ``%.10g`` and VOSviewer's numbers."""
    import numpy as np

    from bib2graph.export.text import float_repr, number_g10

    rng = np.random.default_rng(5)
    values = np.concatenate([rng.random(3000) * 10.0 ** rng.integers(-12, 20, 3000), np.floor(rng.random(500) * 99),
                             [0.0, -0.0, 1e-4, 1e-5, 1.5e-7, 9.99e15, 1e16, 2.5e17, -0.5, -3e-7, 1 / 3, 1e300, 5e-324,
                              float("nan"), float("inf"), -float("inf"), 2.0 ** 53, 2.0 ** 63]])
    assert float_repr(values).to_pylist() == [repr(v) for v in values.tolist()]
    assert number_g10(values).to_pylist() == [f"{v:.10g}" for v in values.tolist()]
    finite = values[np.isfinite(values)]
    assert number_g10(finite, integers=True).to_pylist() == \
        [str(int(v)) if v.is_integer() else f"{v:.10g}" for v in finite.tolist()]


def test_reduction_keeps_exactly_the_strongest_edges(networks):
    """max_edges keeps the M largest weights (ties: the earlier row); top_edges_per_node keeps an edge when
    it ranks among the k strongest of either endpoint; kept edges stay in table order."""
    import numpy as np

    from bib2graph.export.reduction import visual_edges

    net = networks["coupling"]
    edges = net.edges
    keep, report = visual_edges(edges, net.nodes["node_id"], 100, None)
    expected = edges.assign(row=range(len(edges))).sort_values(["weight", "row"], ascending=[False, True]).head(100)
    assert set(edges.index[keep]) == set(expected.index) and keep.sum() == 100
    assert report["kept"] == 100 and report["edges"] == len(edges) and report["reduced"]
    assert "100 strongest" in report["why"]

    keep, report = visual_edges(edges, net.nodes["node_id"], None, 2)
    both = pd.concat([edges[["source", "weight"]].rename(columns={"source": "node"}).assign(row=range(len(edges))),
                      edges[["target", "weight"]].rename(columns={"target": "node"}).assign(row=range(len(edges)))])
    both = both.sort_values(["node", "weight", "row"], ascending=[True, False, True])
    top = set(both[both.groupby("node").cumcount() < 2]["row"])
    assert set(np.flatnonzero(keep)) == top and report["kept"] == len(top) < len(edges)

    keep, report = visual_edges(edges, net.nodes["node_id"], 10 ** 6, None)
    assert keep.all() and not report["reduced"] and report["kept"] == len(edges)


def _export_inputs(net, corpus, folder) -> dict:
    """The export job's inputs in `folder`, as the network, corpus and layout jobs leave them."""
    from bib2graph.networks.schema import LAYOUT
    from bib2graph.tables import write_table

    net.write(folder / "net")
    corpus.write(folder / "corpus")
    xy = _map_of(net)
    write_table(pd.DataFrame({"node_id": net.nodes["node_id"], "x": xy[:, 0], "y": xy[:, 1]}), LAYOUT,
                folder / "layout.parquet")
    return {"metrics": str(folder / "net/metrics.json"), "corpus": [str(folder / "corpus/works.parquet")],
            "layout": str(folder / "layout.parquet")}


def test_export_job_says_how_many_edges_each_file_holds(networks, sep, tmp_path):
    """The export job, with a reduction: the visual files open in networkx with the counts its manifest
    gives, edges.csv keeps all edges."""
    from bib2graph.phases import run_export
    from bib2graph.registry import export_names
    from bib2graph.skips import Skips

    net = networks["coupling"]
    inp = _export_inputs(net, sep, tmp_path)
    formats = ["graphml", "gexf", "csv", "pajek", "vosviewer"]
    spec = {"export": {"formats": formats, "max_edges": 300, "top_edges_per_node": None}}
    out = tmp_path / "out"
    counts = run_export(spec, "coupling", inp, {"manifest": str(out / "manifest.json")}, Skips())
    assert {p.name for p in out.iterdir()} == set(export_names(formats))
    assert counts["edges"] == {"graphml": 300, "gexf": 300, "csv": len(net.edges), "pajek": 300, "vosviewer": 300}
    assert counts["reduction"]["reduced"] and counts["reduction"]["max_edges"] == 300
    for file, read in (("network.graphml", nx.read_graphml), ("network.gexf", nx.read_gexf),
                       ("network.net", nx.read_pajek)):
        graph = read(out / file)
        assert (graph.number_of_nodes(), graph.number_of_edges()) == (len(net.nodes), 300), file
    strongest = net.edges.sort_values("weight", ascending=False, kind="mergesort").head(300)
    graph = nx.read_graphml(out / "network.graphml")
    assert {frozenset(e) for e in graph.edges} == {frozenset(e) for e in zip(strongest.source, strongest.target)}
    assert len(pd.read_csv(out / "edges.csv")) == len(net.edges)
    assert len(parse_vos_network(out / "vosviewer_network.txt")) == 300


def test_an_export_job_with_two_threads_writes_the_same_files(networks, sep, tmp_path, monkeypatch):
    """Two threads: the CSV tables come from a forked process (seen running beside the job); every file
    and the counts equal one thread's, byte for byte."""
    import multiprocessing

    from bib2graph.networks import beside
    from bib2graph.phases import run_export
    from bib2graph.skips import Skips

    net = networks["coupling"]
    inp = _export_inputs(net, sep, tmp_path)
    spec = {"export": {"formats": ["graphml", "csv", "vosviewer"], "max_edges": 300, "top_edges_per_node": None}}
    seen = []
    start = beside.beside

    def watched(*works, **kwargs):
        waits = start(*works, **kwargs)
        seen.append(len(multiprocessing.active_children()))
        return waits

    monkeypatch.setattr(beside, "beside", watched)   # run_export imports it when called
    monkeypatch.setattr(beside, "spare_core", lambda: True)   # whatever the machine's load now
    two = run_export(spec, "coupling", inp, {"manifest": str(tmp_path / "two/manifest.json")}, Skips(), threads=2)
    monkeypatch.undo()
    one = run_export(spec, "coupling", inp, {"manifest": str(tmp_path / "one/manifest.json")}, Skips())
    assert seen == [1] and one == two and multiprocessing.active_children() == []
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir()) and "edges.csv" in names
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


_XML_HOSTILE = st.sampled_from(list("a &<>\"'\r\n\t\x0b\x0c\x1c\x1d\x1e\x1f\x00\x08\x0e\x1b\x7f\x85é\u2028\ufffe\uffff\ud800"
                                    "\U0001F600") + ["\r\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.lists(_XML_HOSTILE, max_size=12).map("".join), st.text(max_size=12)), max_size=6),
       st.booleans())
def test_xml_cells_escape_each_cell_as_the_per_cell_escape(values, attribute):
    """The Arrow escape of a column equals `_xml` of each cell: entities, character references, line
    breaks, characters XML cannot hold (a surrogate anywhere sends the column through Python)."""
    from bib2graph.export.graphml import _xml, xml_cells

    got = xml_cells(pd.Series(values, dtype=object), attribute).to_pylist()
    assert got == [_xml(v, attribute) if isinstance(v, str) else None for v in values]


def test_work_nodes_with_hostile_text_give_the_bytes_of_the_per_row_writers(tmp_path):
    """Abstracts, venues and titles with markup, quotes, line breaks, controls and non-ASCII letters: the
    column-wise GraphML and GEXF equal the per-row writers' (export_reference), and nodes missing from the
    corpus carry no corpus fields."""
    from . import export_reference as old

    texts = ['<b>"Q&A"</b>\r\nline\x0bbreak', "Ærø – naïve\u2028café", "tab\there", "plain"]

    def places(k: int) -> dict:   # institutions whose commonest country is a tie, a majority, or none
        return {"institutions": [{"id": f"https://openalex.org/I{k % 3}", "display_name": texts[k % 4],
                                  "country_code": [None, "FR", "DE", "US"][k % 4]}]}

    def work(k: int) -> dict:
        return {"id": f"https://openalex.org/W{k}", "title": texts[k % 4], "publication_year": 2000 + k,
                "abstract_inverted_index": {texts[(k + 1) % 4]: [0], "end": [1]},
                "primary_location": {"source": {"display_name": texts[(k + 2) % 4]}},
                "cited_by_count": k, "authorships": [_author(texts[k % 4], f"A{k}") | places(k),
                                                    _author(texts[(k + 1) % 4], "A9") | places(k + 1)],
                "referenced_works": ["https://openalex.org/W100", "https://openalex.org/W101", f"https://openalex.org/W{k + 1}"]}

    corpus = bundle_from_works([work(k) for k in range(1, 6)])
    for kind in ("coupling", "citation", "cocitation", "coauthorship", "institutions"):
        net = build(kind, corpus, {}, FAST)
        assert len(net.edges), kind
        for writer, reference in ((write_graphml, old.write_graphml), (write_gexf, old.write_gexf)):
            writer(net, corpus, tmp_path / "new")
            reference(net, corpus, tmp_path / "old")
            assert (tmp_path / "new").read_bytes() == (tmp_path / "old").read_bytes(), (kind, writer)


def test_a_long_column_of_repeated_cells_is_written_as_pandas_writes_it():
    """Past `_SHARED_MIN` rows a text column with few distinct cells (an edge table's node IDs) is escaped
    once per distinct cell: formulas defused, separators quoted, nulls empty, row order kept."""
    from bib2graph.export.csv import _SHARED_MIN, frame_text

    from . import export_reference as old

    cells = ["W1", "=SUM(A1)", 'say "hi"', "a,b", None, "line\nbreak", "-2+3"]
    n = _SHARED_MIN + 11
    frame = pd.DataFrame({"source": pd.Series([cells[k % 7] for k in range(n)], dtype="str"),
                          "target": pd.Series([cells[(k * 3) % 7] for k in range(n)], dtype=object),
                          "label": [f"+{k}" if k % 5 else f"x{k}" for k in range(n)]})
    assert frame_text(frame) == old.frame_text(frame)


def test_python_spaces_are_what_str_strip_strips():
    from bib2graph.export.text_columns import PYTHON_SPACES

    assert set(PYTHON_SPACES) == {chr(c) for c in range(0x110000) if chr(c).isspace()}


_IDS = st.one_of(st.from_regex(r"[WAISTCPF][0-9]{1,4}\n?", fullmatch=True), st.just("keywords/x\n"),
                 st.just("W١٢"), st.just("W12\n\n"), st.lists(_XML_HOSTILE, max_size=6).map("".join),
                 st.text(max_size=8).map(lambda t: "keywords/" + t))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_IDS, st.one_of(st.none(), st.just(""), st.text(max_size=6)),
                          st.one_of(st.lists(_XML_HOSTILE, max_size=10).map("".join), st.text(max_size=10))),
                max_size=6))
def test_column_helpers_give_what_the_per_cell_functions_give(rows):
    """`clean_cells`, `url_cells` and VOSviewer's JSON strings equal `clean`, `node_url` and `json.dumps`
    cell for cell, on IDs Python's regex and RE2 could read apart and labels of any whitespace."""
    from bib2graph.export.common import clean, clean_cells, node_url, url_cells
    from bib2graph.export.vosviewer import _json_text

    rows = [r for r in rows if "\ud800" not in r[0] + r[2]]   # tables come from Parquet: UTF-8 holds no surrogates
    ids = pd.Series([r[0] for r in rows], dtype=object)
    dois = pd.Series([r[1] for r in rows], dtype=object)
    labels = pd.Series([r[2] for r in rows], dtype=object)
    assert clean_cells(labels).to_pylist() == [clean(x) for x in labels]
    assert url_cells(ids, dois).to_pylist() == [node_url(i, d) for i, d in zip(ids, dois)]
    assert _json_text(ids).to_pylist() == [json.dumps(i, ensure_ascii=False) for i in ids]


def test_pajek_and_vosviewer_labels_of_any_text_give_the_per_row_bytes(tmp_path):
    """Shared, empty, quoted, backslashed, separated and non-ASCII labels: Pajek and VOSviewer files equal
    the per-row writers'."""
    from bib2graph.networks import Network

    from . import export_reference as old

    labels = ['Same', 'Pair', '', ' \u3000 ', 'a "quoted" \\ path', 'x, y; z', 'Pair\x85', '\tSame\n', 'naïve']
    ids = [f"A{k}" for k in range(len(labels))]
    nodes = pd.DataFrame({"node_id": ids, "label": labels, "doi": [None, "10.1/x", "", None, None, None, None, None, None],
                          "occurrences": 1, "cluster": [1, 1, 2, 2, 3, 3, 4, 4, 5], "year": 2000})
    edges = pd.DataFrame({"source": ids[:-1], "target": ids[1:], "count": 1.0, "weight": 0.5})
    net = Network(kind="coauthorship", directed=False, nodes=nodes, edges=edges, evidence=None, metrics={})
    write_pajek(net, tmp_path / "new.net")
    old.write_pajek(net, tmp_path / "old.net")
    assert (tmp_path / "new.net").read_bytes() == (tmp_path / "old.net").read_bytes()
    write_vosviewer(net, tmp_path / "m", tmp_path / "n", tmp_path / "j")
    old.write_vosviewer(net, tmp_path / "om", tmp_path / "on", tmp_path / "oj")
    for file in ("m", "n", "j"):
        assert (tmp_path / file).read_bytes() == (tmp_path / f"o{file}").read_bytes(), file
