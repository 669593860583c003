"""The exporters as they were before they were written column-wise (per-row Python, networkx's GraphML
writer): the reference the column-wise writers must equal byte for byte (tests/unit/test_export_bytes.py).
"""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pandas as pd

from bib2graph.atomic import write_json, write_text
from bib2graph.export.common import NODE_ATTRIBUTES, clean, cluster_labels, native, node_url
from bib2graph.export.vosviewer import MAX_CLUSTER, WEIGHTS, _scores
from bib2graph.tables import Bundle

# --- the networkx graph, per node and edge ---


def _corpus_extras(network, corpus: Bundle | None) -> dict[str, dict]:
    """Extra attributes from the corpus: bibliographic fields of work nodes, countries of institutions."""
    if corpus is None:
        return {}
    ids = set(network.nodes["node_id"])
    extras: dict[str, dict] = {}
    if network.kind in ("coupling", "cocitation", "citation"):
        works = corpus.works[corpus.works["work_id"].isin(ids)]
        for row in works[["work_id", "venue", "type", "publication_date", "cited_by_count", "abstract"]] \
                .itertuples(index=False):
            extras[row.work_id] = {k: native(getattr(row, k)) for k in
                                   ("venue", "type", "publication_date", "cited_by_count", "abstract")}
    elif network.kind == "institutions":
        aff = corpus.affiliations[corpus.affiliations["institution_id"].isin(ids)].dropna(subset=["country_code"])
        counts = aff.groupby(["institution_id", "country_code"]).size().rename("n").reset_index()
        counts = counts.sort_values(["institution_id", "n", "country_code"], ascending=[True, False, True])
        for row in counts.drop_duplicates("institution_id").itertuples(index=False):
            extras[row.institution_id] = {"country_code": row.country_code}
    return extras


def to_networkx(network, corpus: Bundle | None = None, xy=None) -> nx.Graph:
    """An nx graph with typed attributes; missing values are omitted, never written as None. `xy`, the
    map coordinates of the nodes in table order (n × 2), become GEXF's ``viz:position``."""
    graph = nx.DiGraph() if network.directed else nx.Graph()
    params = network.metrics.get("parameters", {})
    graph.graph.update({"kind": network.kind, "normalization": str(params.get("normalization", "")),
                        "definition": str(network.metrics.get("definition", ""))})
    if "counting" in params:
        graph.graph["counting"] = str(params["counting"])
    names = cluster_labels(network)
    extras = _corpus_extras(network, corpus)
    for k, row in enumerate(network.nodes.itertuples(index=False)):
        attrs = {key: native(getattr(row, key)) for key in NODE_ATTRIBUTES}
        if xy is not None:
            attrs["viz"] = {"position": {"x": float(xy[k, 0]), "y": float(xy[k, 1]), "z": 0.0}}
        attrs["label"] = clean(attrs["label"])
        attrs["url"] = node_url(row.node_id, attrs["doi"])
        attrs["cluster_label"] = names.get(attrs["cluster"])
        attrs.update(extras.get(row.node_id, {}))
        graph.add_node(row.node_id, **{k: v for k, v in attrs.items() if v is not None})
    for row in network.edges.itertuples(index=False):
        graph.add_edge(row.source, row.target, count=float(row.count), weight=float(row.weight))
    return graph


def pajek_labels(network) -> list[str]:
    labels = [clean(x).replace('"', "'").replace("\\", "/") or str(i)
              for x, i in zip(network.nodes["label"], network.nodes["node_id"])]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [f"{label} [{node_id}]" if seen[label] > 1 else label
            for label, node_id in zip(labels, network.nodes["node_id"])]


def _map_label(label: str) -> str:
    return f'"{label}"' if ("," in label or ";" in label) else label


# --- GraphML: networkx, then x and y added in a text pass ---
_NODE = re.compile(r'^    <node id="[^"]*"( /)?>$', re.MULTILINE)
_GRAPH = re.compile(r"^  <graph ", re.MULTILINE)
_KEYS = ('  <key id="x" for="node" attr.name="x" attr.type="double" />\n'
         '  <key id="y" for="node" attr.name="y" attr.type="double" />\n')


def write_graphml(network, corpus, path, xy=None) -> None:
    graph = to_networkx(network, corpus)
    text = "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n"
    write_text(path, text if xy is None else with_positions(text, xy))


def with_positions(text: str, xy) -> str:
    rows = iter(range(len(xy)))

    def add(match: re.Match) -> str:
        k = next(rows)
        tag = match.group(0)
        data = (f'\n      <data key="x">{float(xy[k, 0])!r}</data>'
                f'\n      <data key="y">{float(xy[k, 1])!r}</data>')
        return tag[:-3] + ">" + data + "\n    </node>" if match.group(1) else tag + data

    graph_at = _GRAPH.search(text)
    return text[:graph_at.start()] + _KEYS + _NODE.sub(add, text[graph_at.start():])


# --- CSV: pandas, every text cell defused in Python ---
def defuse(value):
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def frame_text(df: pd.DataFrame) -> str:
    df = df.copy()
    for column in df.columns:
        if df[column].dtype == object or pd.api.types.is_string_dtype(df[column]):
            df[column] = df[column].astype(object).map(defuse, na_action="ignore")
    return df.to_csv(index=False, lineterminator="\n")


def write_csv(network, nodes_path, edges_path) -> None:
    write_text(nodes_path, frame_text(network.nodes))
    write_text(edges_path, frame_text(network.edges))


# --- VOSviewer: per-row dicts and strings (below) ---


# --- Pajek: one f-string per edge ---
def write_pajek(network, path) -> None:
    codes = {node_id: k for k, node_id in enumerate(network.nodes["node_id"], start=1)}
    lines = [f"*Vertices {len(codes)}"]
    lines += [f'{k} "{label}"' for k, label in enumerate(pajek_labels(network), start=1)]
    lines.append("*Arcs" if network.directed else "*Edges")
    lines += [f"{codes[s]} {codes[t]} {float(w):.10g}"
              for s, t, w in zip(network.edges["source"], network.edges["target"], network.edges["weight"])]
    write_text(path, "\r\n".join(lines) + "\r\n")


def _links(network, ids: dict[str, int]) -> pd.DataFrame:
    """Undirected links ``(id1 < id2, strength)`` with raw counts; reciprocal arcs summed."""
    a = network.edges["source"].map(ids).to_numpy(dtype=np.int64)
    b = network.edges["target"].map(ids).to_numpy(dtype=np.int64)
    links = pd.DataFrame({"id1": np.minimum(a, b), "id2": np.maximum(a, b),
                          "strength": network.edges["count"].to_numpy(dtype=float)})
    return links.groupby(["id1", "id2"], as_index=False, sort=True)["strength"].sum()


def _items(network) -> pd.DataFrame:
    nodes = network.nodes
    items = pd.DataFrame({
        "id": np.arange(1, len(nodes) + 1),
        "label": [clean(x).replace('"', "'") for x in nodes["label"]],
        "url": [node_url(i, native(d)) or "" for i, d in zip(nodes["node_id"], nodes["doi"])],
        "cluster": np.minimum(nodes["cluster"].to_numpy(dtype=np.int64), MAX_CLUSTER),
    })
    links = _links(network, dict(zip(nodes["node_id"], items["id"])))
    size = len(nodes) + 1
    degree = np.bincount(links["id1"], minlength=size) + np.bincount(links["id2"], minlength=size)
    items["Links"] = degree[1:]
    strength = np.bincount(links["id1"], weights=links["strength"], minlength=size) + \
        np.bincount(links["id2"], weights=links["strength"], minlength=size)
    items["Total link strength"] = strength[1:]
    items["Occurrences"] = nodes["occurrences"].to_numpy(dtype=np.int64)
    return items


def _number(value) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.10g}"



def _coordinate(value) -> str:
    return repr(float(value))   # the shortest text that reads back as the very same float


def write_vosviewer(network, map_path: str, network_path: str,
                    json_path: str, xy=None) -> None:
    """Write the map file, the network file and the JSON file of `network`; `xy` (n × 2, in node-table
    order) gives the items their map coordinates."""
    items = _items(network)
    links = _links(network, dict(zip(network.nodes["node_id"], items["id"])))
    score, years = _scores(network)

    header = ["id", "label", "url"] + (["x", "y"] if xy is not None else []) + ["cluster"]
    header += [f"weight<{name}>" for name, _ in WEIGHTS] + ([f"score<{score}>"] if score else [])
    rows = ["\t".join(header)]
    for k, item in enumerate(items.itertuples(index=False)):
        cells = [str(item.id), _map_label(item.label), item.url]
        cells += [_coordinate(xy[k, 0]), _coordinate(xy[k, 1])] if xy is not None else []
        cells += [str(item.cluster), _number(items["Links"].iat[k]), _number(items["Total link strength"].iat[k]),
                  _number(items["Occurrences"].iat[k])]
        if score:
            cells.append(_number(years[k]))
        rows.append("\t".join(cells))
    write_text(map_path, "\n".join(rows) + "\n")
    write_text(network_path, "".join(f"{a}\t{b}\t{_number(s)}\n"
                                     for a, b, s in links.itertuples(index=False)))

    names = cluster_labels(network)
    json_items = []
    for k, item in enumerate(items.itertuples(index=False)):
        entry = {"id": int(item.id), "label": item.label}
        if xy is not None:
            entry.update(x=float(xy[k, 0]), y=float(xy[k, 1]))
        entry.update({"cluster": int(item.cluster),
                      "weights": {name: native(items[name].iat[k]) for name, _ in WEIGHTS},
                      "description": f"{network.nodes['node_id'].iat[k]}"})
        if item.url:
            entry["url"] = item.url
        if score:
            entry["scores"] = {score: years[k]}
        json_items.append(entry)
    json_links = [{"source_id": int(a), "target_id": int(b), "strength": native(s)}
                  for a, b, s in links.itertuples(index=False)]
    clusters = [{"cluster": c, "label": names[c]} for c in sorted(names) if c <= MAX_CLUSTER]
    write_json(json_path, {"network": {"items": json_items, "links": json_links, "clusters": clusters}})


# --- GEXF: networkx, its clock-dependent date removed ---
_DATE = re.compile(r'\s+lastmodifieddate="[^"]*"')


def write_gexf(network, corpus, path, xy=None) -> None:
    graph = to_networkx(network, corpus, xy)
    text = "\n".join(nx.generate_gexf(graph, encoding="utf-8", prettyprint=True, version="1.2draft"))
    text = _DATE.sub("", text, count=1).replace(' mode="static" name="">', ' mode="static">', 1)
    write_text(path, text + "\n")
