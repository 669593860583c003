"""A time-sliced network as one dynamic GEXF file, so that Gephi's timeline plays the slices.

Each node and edge has one spell per slice it is in (``start``/``end``: the slice's first and last year,
as doubles, GEXF's ``timeformat="double"``) and its per-slice values as dynamic attributes: a node's
``cluster`` and ``occurrences``, an edge's ``count`` and ``slice_weight``; the static edge ``weight`` is its
largest per-slice weight. Written by networkx's GEXF writer, less its clock-dependent
``lastmodifieddate`` (so the bytes depend only on the tables) and the empty ``name`` it gives ``<graph>``
(not in GEXF's schema); labels and IDs without the characters XML cannot hold (graphml.xml_chars). A
slice keeps at most `MAX_EDGES_PER_SLICE` edges, its strongest by weight (ties: the first in the edge
table); `write` says how many it dropped.
"""

from __future__ import annotations

import io
import os
import re

import networkx as nx
import pandas as pd

from ..atomic import write_bytes
from .graphml import xml_chars

MAX_EDGES_PER_SLICE = 200_000


def _span(name: str) -> tuple[float, float]:
    start, end = name.split("-")
    return float(start), float(end)


def _kept(edges: pd.DataFrame) -> pd.DataFrame:
    """Each slice's strongest `MAX_EDGES_PER_SLICE` edges."""
    ranked = edges.sort_values(["slice", "weight"], ascending=[True, False], kind="stable")
    return ranked.groupby("slice", sort=False).head(MAX_EDGES_PER_SLICE)


def dynamic_graph(nodes: pd.DataFrame, edges: pd.DataFrame, directed: bool) -> nx.Graph:
    graph = nx.DiGraph(mode="dynamic") if directed else nx.Graph(mode="dynamic")
    for node_id, rows in nodes.sort_values(["node_id", "slice"]).groupby("node_id", sort=False):
        spans = [_span(s) for s in rows["slice"]]
        graph.add_node(xml_chars(str(node_id)), label=xml_chars(str(rows["label"].iat[-1])), spells=spans,
                       cluster=[(int(c), a, b) for c, (a, b) in zip(rows["cluster"], spans)],
                       occurrences=[(int(o), a, b) for o, (a, b) in zip(rows["occurrences"], spans)])
    for (source, target), rows in edges.sort_values(["source", "target", "slice"]).groupby(
            ["source", "target"], sort=False):
        spans = [_span(s) for s in rows["slice"]]
        graph.add_edge(xml_chars(str(source)), xml_chars(str(target)), weight=float(rows["weight"].max()), spells=spans,
                       count=[(float(c), a, b) for c, (a, b) in zip(rows["count"], spans)],
                       slice_weight=[(float(w), a, b) for w, (a, b) in zip(rows["weight"], spans)])
    return graph


def write(nodes: pd.DataFrame, edges: pd.DataFrame, directed: bool, path: str | os.PathLike[str]) -> dict[str, int]:
    """Write the dynamic GEXF; return the edges written and those left out by the per-slice limit."""
    kept = _kept(edges)
    buf = io.BytesIO()
    nx.write_gexf(dynamic_graph(nodes, kept, directed), buf, version="1.2draft")
    text = re.sub(rb' lastmodifieddate="[^"]*"', b"", buf.getvalue(), count=1)
    text = re.sub(rb'(<graph [^>]*?) name=""', rb"\1", text, count=1)
    write_bytes(path, text)
    return {"edges": int(len(kept)), "left_out": int(len(edges) - len(kept)),
            "max_edges_per_slice": MAX_EDGES_PER_SLICE}
