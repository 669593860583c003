"""VOSviewer export: map file + network file (tab-separated) and the VOSviewer JSON format.

Items get integer IDs 1..n in node_id order. Link strengths are the raw counts (VOSviewer applies its own
normalisation, association strength by default, when it lays out and clusters a map; feeding it already
normalised weights would normalise twice). A directed citation network is written undirected, reciprocal
arcs summed, as VOSviewer treats citation links. Cluster numbers above 1000 (VOSviewer's maximum) are
written as 1000. With map coordinates, items carry `x` and `y` (the layout job's, so VOSviewer shows
the same map); scores are the publication year (work networks) or the mean publication year of an
item's works (authors, institutions, terms), VOSviewer's overlay colours.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..atomic import write_json, write_text
from .common import clean, cluster_labels, native, node_url

MAX_CLUSTER = 1000
WEIGHTS = (("Links", "degree"), ("Total link strength", "link_strength"), ("Occurrences", "occurrences"))


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


def _map_label(label: str) -> str:
    """Labels with a comma or semicolon are enclosed in double quotes, as the map format requires."""
    return f'"{label}"' if ("," in label or ";" in label) else label


def _scores(network) -> tuple[str, list] | tuple[None, None]:
    """(score name, one value per item): the year where every node has one, else the mean year."""
    nodes = network.nodes
    if len(nodes) and bool(nodes["year"].notna().all()):
        return "Pub. year", [int(y) for y in nodes["year"]]
    if len(nodes) and "mean_year" in nodes and bool(nodes["mean_year"].notna().all()):
        return "Avg. pub. year", [round(float(y), 2) for y in nodes["mean_year"]]
    return None, None


def _coordinate(value) -> str:
    return repr(float(value))   # the shortest text that reads back as the very same float


def write_vosviewer(network, map_path: str | os.PathLike[str], network_path: str | os.PathLike[str],
                    json_path: str | os.PathLike[str], xy=None) -> None:
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
