"""VOSviewer export: map file + network file (tab-separated) and the VOSviewer JSON format.

Items get integer IDs 1..n in node_id order. Link strengths are the raw counts (VOSviewer applies its own
normalisation, association strength by default, when it lays out and clusters a map; feeding it already
normalised weights would normalise twice). A directed citation network is written undirected, reciprocal
arcs summed, as VOSviewer treats citation links. Cluster numbers above 1000 (VOSviewer's maximum) are
written as 1000.
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


def _has_years(network) -> bool:
    return len(network.nodes) > 0 and bool(network.nodes["year"].notna().all())


def write_vosviewer(network, map_path: str | os.PathLike[str], network_path: str | os.PathLike[str],
                    json_path: str | os.PathLike[str]) -> None:
    """Write the map file, the network file and the JSON file of `network`."""
    items = _items(network)
    links = _links(network, dict(zip(network.nodes["node_id"], items["id"])))
    years = network.nodes["year"].to_numpy() if _has_years(network) else None

    header = ["id", "label", "url", "cluster"] + [f"weight<{name}>" for name, _ in WEIGHTS]
    header += ["score<Pub. year>"] if years is not None else []
    rows = ["\t".join(header)]
    for k, item in enumerate(items.itertuples(index=False)):
        cells = [str(item.id), _map_label(item.label), item.url, str(item.cluster),
                 _number(items["Links"].iat[k]), _number(items["Total link strength"].iat[k]),
                 _number(items["Occurrences"].iat[k])]
        if years is not None:
            cells.append(str(int(years[k])))
        rows.append("\t".join(cells))
    write_text(map_path, "\n".join(rows) + "\n")
    write_text(network_path, "".join(f"{a}\t{b}\t{_number(s)}\n"
                                     for a, b, s in links.itertuples(index=False)))

    names = cluster_labels(network)
    json_items = []
    for k, item in enumerate(items.itertuples(index=False)):
        entry = {"id": int(item.id), "label": item.label, "cluster": int(item.cluster),
                 "weights": {name: native(items[name].iat[k]) for name, _ in WEIGHTS},
                 "description": f"{network.nodes['node_id'].iat[k]}"}
        if item.url:
            entry["url"] = item.url
        if years is not None:
            entry["scores"] = {"Pub. year": int(years[k])}
        json_items.append(entry)
    json_links = [{"source_id": int(a), "target_id": int(b), "strength": native(s)}
                  for a, b, s in links.itertuples(index=False)]
    clusters = [{"cluster": c, "label": names[c]} for c in sorted(names) if c <= MAX_CLUSTER]
    write_json(json_path, {"network": {"items": json_items, "links": json_links, "clusters": clusters}})
