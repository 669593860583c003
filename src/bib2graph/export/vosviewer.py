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

import json

import pyarrow as pa
import pyarrow.compute as pc

from .common import clean_cells, cluster_labels, url_cells
from .text import arrow_strings, chunks, float_repr, int_text, lines, node_codes, number_g10, write_parts
from .text_columns import json_string

MAX_CLUSTER = 1000
WEIGHTS = (("Links", "degree"), ("Total link strength", "link_strength"), ("Occurrences", "occurrences"))


def _links(network) -> pd.DataFrame:
    """Undirected links ``(id1 < id2, strength)`` with raw counts, sorted; reciprocal arcs summed."""
    n = len(network.nodes)
    a = node_codes(network.nodes["node_id"], network.edges["source"]) + 1
    b = node_codes(network.nodes["node_id"], network.edges["target"]) + 1
    pair = np.minimum(a, b) * (n + 1) + np.maximum(a, b)
    distinct, inverse = np.unique(pair, return_inverse=True)
    strength = np.bincount(inverse.ravel(), weights=network.edges["count"].to_numpy(dtype=float),
                           minlength=len(distinct))
    return pd.DataFrame({"id1": distinct // (n + 1), "id2": distinct % (n + 1), "strength": strength})


def _items(network, links: pd.DataFrame) -> pd.DataFrame:
    nodes = network.nodes
    items = pd.DataFrame({
        "id": np.arange(1, len(nodes) + 1),
        "label": pc.replace_substring(clean_cells(nodes["label"]), '"', "'").to_pandas(),
        "url": pc.fill_null(url_cells(nodes["node_id"], nodes["doi"]), "").to_pandas(),
        "cluster": np.minimum(nodes["cluster"].to_numpy(dtype=np.int64), MAX_CLUSTER),
    })
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


def _map_labels(labels) -> pa.Array:
    """Labels with a comma or semicolon are enclosed in double quotes, as the map format requires."""
    labels = pa.array(labels, type=pa.string())
    separated = pc.or_(pc.match_substring(labels, ","), pc.match_substring(labels, ";"))
    return pc.if_else(separated, pc.binary_join_element_wise('"', labels, '"', ""), labels)


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


def _map_rows(network, items: pd.DataFrame, xy, score, years) -> str:
    header = ["id", "label", "url"] + (["x", "y"] if xy is not None else []) + ["cluster"]
    header += [f"weight<{name}>" for name, _ in WEIGHTS] + ([f"score<{score}>"] if score else [])
    columns = [int_text(items["id"]), _map_labels(items["label"]),
               pa.array(items["url"], type=pa.string())]
    columns += [float_repr(xy[:, 0]), float_repr(xy[:, 1])] if xy is not None else []
    columns.append(int_text(items["cluster"]))
    columns += [number_g10(items[name].to_numpy(dtype=float), integers=True) for name, _ in WEIGHTS]
    if score:
        columns.append(number_g10(np.asarray(years, dtype=float), integers=True))
    body = "".join(lines(columns).to_pylist()) if len(items) else ""
    return "\t".join(header) + "\n" + body


_LINK = "      {\n        \"source_id\": ", ",\n        \"strength\": ", ",\n        \"target_id\": ", "\n      }"
_SLOT = '"@@links@@"'


def _json_links(links: pd.DataFrame):
    """The JSON list of links as `write_json` indents it, built column-wise."""
    if not len(links):
        yield "[]"
        return
    yield "[\n"
    for part in chunks(len(links)):
        rows = links.iloc[part]
        cells = [_LINK[0], int_text(rows["id1"]), _LINK[1], float_repr(rows["strength"].to_numpy()),
                 _LINK[2], int_text(rows["id2"]), _LINK[3]]
        text = pc.binary_join_element_wise(*cells, "")
        last = part.stop == len(links)   # every link but the very last is followed by a comma
        yield pc.binary_join_element_wise(text[:-1] if last else text, ",\n", "")
        if last:
            yield text[-1:]
    yield "\n    ]"


def _json_text(values) -> pa.Array:
    """Each text as `json.dumps` (``ensure_ascii=False``) writes it."""
    return json_string(arrow_strings(values).cast(pa.large_string())).cast(pa.string())


def _json_numbers(values) -> pa.Array:
    """JSON's text of numbers: ints as ints, floats as Python's repr."""
    values = np.asarray(values)
    return int_text(values) if values.dtype.kind in "iu" else float_repr(values)


def _json_items(network, items: pd.DataFrame, xy, score, years):
    """The JSON list of items as `write_json` writes it (keys sorted, indent 2), built column-wise."""
    if not len(items):
        yield "[]"
        return
    cells = ['      {\n        "cluster": ', int_text(items["cluster"]), ',\n        "description": ',
             _json_text(network.nodes["node_id"].astype(str)), ',\n        "id": ', int_text(items["id"]),
             ',\n        "label": ', _json_text(items["label"]), ",\n"]
    if score:
        cells += [f'        "scores": {{\n          {json.dumps(score)}: ',
                  int_text(years) if all(isinstance(y, int) for y in years) else float_repr(years), "\n        },\n"]
    urls = pa.array(items["url"], type=pa.string())
    url = pc.if_else(pc.equal(urls, ""), pa.scalar(None, pa.string()),
                     pc.binary_join_element_wise('        "url": ', _json_text(urls), ",\n", ""))
    cells += [url, '        "weights": {\n          "Links": ', _json_numbers(items["Links"]),
              ',\n          "Occurrences": ', _json_numbers(items["Occurrences"]),
              ',\n          "Total link strength": ', _json_numbers(items["Total link strength"]), "\n        }"]
    if xy is not None:
        cells += [',\n        "x": ', float_repr(xy[:, 0]), ',\n        "y": ', float_repr(xy[:, 1])]
    cells.append("\n      }")
    text = pc.binary_join_element_wise(*cells, "", null_handling="skip")
    yield "[\n"
    yield pc.binary_join_element_wise(text[:-1], ",\n", "")
    yield text[-1:]
    yield "\n    ]"


def write_vosviewer(network, map_path: str | os.PathLike[str], network_path: str | os.PathLike[str],
                    json_path: str | os.PathLike[str], xy=None) -> int:
    """Write the map file, the network file and the JSON file of `network`; `xy` (n × 2, in node-table
    order) gives the items their map coordinates. The link lines (the bulk) are built column-wise.
    Returns the number of links written."""
    links = _links(network)
    items = _items(network, links)
    score, years = _scores(network)
    write_parts(map_path, [_map_rows(network, items, xy, score, years)])
    write_parts(network_path, (lines([int_text(links["id1"].iloc[p]), int_text(links["id2"].iloc[p]),
                                      number_g10(links["strength"].iloc[p].to_numpy(), integers=True)])
                               for p in chunks(len(links))))

    names = cluster_labels(network)
    clusters = [{"cluster": c, "label": names[c]} for c in sorted(names) if c <= MAX_CLUSTER]
    doc = json.dumps({"network": {"items": "@@items@@", "links": "@@links@@", "clusters": clusters}},
                     sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    head, _, rest = doc.partition('"@@items@@"')
    middle, _, tail = rest.rpartition(_SLOT)
    write_parts(json_path, [head, *_json_items(network, items, xy, score, years), middle, *_json_links(links), tail])
    return len(links)
