"""The report's legend and cluster table on a small hand-made network: what metrics.json says of each
cluster is what the reader sees, beside the map whose colours it names."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd

from bib2graph import report
from bib2graph.palette import CLUSTER_COLOURS, OTHER_COLOUR, cluster_colour

SVG = "{http://www.w3.org/2000/svg}"
N_CLUSTERS = 23     # three past the palette: they share the grey


def network() -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """metrics.json's cluster entries (cluster 2 without a colour, so the palette gives it; the last one in
    the old format, without a table) and a node frame of 2 to 4 nodes per cluster."""
    rng = np.random.default_rng(3)
    clusters = []
    for k in range(1, N_CLUSTERS + 1):
        clusters.append({"cluster": k, "size": 2 + (N_CLUSTERS - k) % 3, "label": f"topic <{k}> & co",
                         "colour": cluster_colour(k), "terms": [{"term": f"term{k}", "score": 41.25, "works": 3},
                                                                {"term": "other", "score": 2.5, "works": 1}],
                         "mean_year": 2009.44, "median_year": 2010.0, "internal_weight": 123.5,
                         "external_weight": 20250.0, "silhouette": 0.2113,
                         "central": [{"node_id": f"W{k}a", "label": f"Smith ({2000 + k}) central", "pagerank": .1}],
                         "cited": [{"node_id": f"W{k}b", "label": "", "citations": 4}],
                         "top_nodes": [f"W{k}a"], "ranked_by": "strength"})
    del clusters[1]["colour"]
    clusters[-1] = {k: clusters[-1][k] for k in ("cluster", "size", "label", "top_nodes", "ranked_by")}
    ids = [(c["cluster"], f"W{c['cluster']}{chr(97 + j)}") for c in clusters for j in range(c["size"])]
    nodes = pd.DataFrame({"node_id": [i for _, i in ids], "label": [f"label of {i}" for _, i in ids],
                          "cluster": [c for c, _ in ids], "x": rng.uniform(-1, 1, len(ids)),
                          "y": rng.uniform(-1, 1, len(ids)), "strength": rng.uniform(0, 5, len(ids)),
                          "occurrences": rng.integers(1, 6, len(ids)), "mean_year": 2000.0})
    edges = pd.DataFrame({"source": nodes["node_id"][:-1].to_numpy(), "target": nodes["node_id"][1:].to_numpy(),
                          "count": 1.0, "weight": 1.0})
    metrics = {"kind": "coupling", "clusters": clusters, "singleton_clusters": 0, "silhouette": 0.19}
    return metrics, nodes, edges


def legend_items(html_text: str) -> list[ET.Element]:
    found = re.findall(r'<ul class="legend".*?</ul>', html_text, re.S)
    assert len(found) == 1
    return list(ET.fromstring(found[0]))


def map_fills(html_text: str) -> set[str]:
    svg = ET.fromstring(re.search(r'<figure id="map-coupling">(<svg.*?</svg>)', html_text, re.S).group(1))
    return {re.search(r"fill: (#[0-9a-f]{6})", use.get("style")).group(1)
            for g in svg.iter(f"{SVG}g") if g.get("id", "").startswith("nodes-") for use in g.iter(f"{SVG}use")}


def test_the_legend_names_each_colour_of_the_map_as_metrics_does():
    metrics, nodes, edges = network()
    parts = report.map_figures(metrics, nodes, edges)
    items = legend_items(parts[0])
    own = [c for c in metrics["clusters"] if c["cluster"] <= len(CLUSTER_COLOURS)]
    assert [(i.get("data-cluster"), i.get("data-colour"), i.find("span[@class='label']").text,
             i.find("span[@class='size']").text) for i in items[:-1]] == \
        [(str(c["cluster"]), cluster_colour(c["cluster"]), c["label"], str(c["size"])) for c in own]
    other = items[-1]
    rest = metrics["clusters"][len(own):]
    assert (other.get("data-cluster"), other.get("data-colour"), other.get("data-clusters")) == \
        ("other", OTHER_COLOUR, str(len(rest)))
    assert other.find("span[@class='size']").text == str(sum(c["size"] for c in rest))
    assert map_fills(parts[0]) == {i.get("data-colour") for i in items}   # every colour drawn is named


def test_a_legend_without_grey_clusters_has_no_other_entry_and_notes_lone_nodes():
    metrics, _, _ = network()
    metrics = {**metrics, "clusters": metrics["clusters"][:3], "singleton_clusters": 4}
    text = report.legend_html(metrics)
    assert [i.get("data-cluster") for i in legend_items(text)] == ["1", "2", "3"]
    assert "4 nodes alone in their clusters" in text


def _rows(text: str) -> tuple[list[str], list[list[ET.Element]]]:
    table = ET.fromstring(re.search(r'<table class="clusters">.*?</table>', text, re.S).group(0))
    headers = [th.text for th in table.iter("th")]
    return headers, [list(tr) for tr in table.find("tbody")]


def test_the_cluster_table_shows_metrics_table_and_says_how_many_more():
    metrics, _, _ = network()
    (text,) = report.cluster_table_html(metrics)
    headers, rows = _rows(text)
    assert len(rows) == report.MAX_CLUSTER_ROWS
    assert "3 more clusters (" + str(sum(c["size"] for c in metrics["clusters"][20:])) + " nodes)" in text
    cells = dict(zip(headers, rows[1]))
    assert cells["cluster"].text == "2" and cells["size"].text == str(metrics["clusters"][1]["size"])
    colour = cells["colour"].find("span[@class='colour']")
    assert colour.find("span[@class='swatch']").get("style") == "background:#ff7f0e"   # from the palette
    assert "".join(colour.itertext()).strip() == "#ff7f0e"
    assert cells["label"].text == "topic <2> & co"
    assert (cells["mean year"].text, cells["median year"].text) == ("2009.4", "2010.0")
    assert (cells["internal weight"].text, cells["external weight"].text) == ("123.5", "20250")
    assert cells["silhouette"].text == "0.2113"
    assert cells["label terms (score)"].text == "term2 (41.25); other (2.5)"
    assert [li.text for li in cells["most central"].iter("li")] == ["Smith (2002) central"]
    assert [li.text for li in cells["most cited"].iter("li")] == ["W2b"]          # no label: the ID


def test_a_cluster_entry_without_the_table_leaves_its_cells_blank():
    metrics, _, _ = network()
    old = {**metrics, "clusters": [metrics["clusters"][-1]]}
    headers, rows = _rows(report.cluster_table_html(old)[0])
    cells = dict(zip(headers, rows[0]))
    assert "most cited" not in headers                       # no cluster has cited works
    assert cells["label"].text == "topic <23> & co" and OTHER_COLOUR in ET.tostring(cells["colour"], "unicode")
    assert all(cells[h].text is None for h in ("mean year", "silhouette", "label terms (score)", "most central"))
    assert report.cluster_table_html({"kind": "coupling"}) == []


def test_the_report_says_why_stability_ran_fewer_times_than_asked():
    """Beside the reproducibility sentence, a network whose stability was measured with fewer runs than
    `stability_runs` asks (too many edges) says how many ran and why; one measured as asked says nothing."""
    from bib2graph.networks.communities import reproducibility, stability_runs
    from bib2graph.report import _reading_notes

    params = {"stability_runs": 5, "stability_max_edges": 100}
    for edges, said in ((50, False), (5_000, True)):
        runs, why = stability_runs(params, edges)
        score = {"runs": runs, "requested_runs": 5, "reason": why, "mean_ari": 0.9}
        sentence = reproducibility(score)[1]
        notes = "".join(_reading_notes({"stability": score, "clusters_reproducible": True,
                                         "reproducibility": sentence}))
        assert sentence.replace("'", "&#x27;") in notes
        assert ("Stability from 2 clustering runs: 2 of the 5 runs of communities.stability_runs: the network has "
                "5,000 edges" in notes) is said
