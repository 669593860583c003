"""The pandera schemas of the trend tables (results/trends/) and of the time-sliced networks
(results/slices/<kind>/), with the conventions of `bib2graph.tables` (rows sorted by the key)."""

from __future__ import annotations

import pandera.pandas as pa

from ..networks.schema import EDGES, NODES
from ..tables import OPTIONAL_TEXT, TEXT, table_schema

_int = pa.Column("Int64", nullable=False)
_float = pa.Column(float, nullable=False)

BURSTS = table_schema("bursts", {
    "family": pa.Column(str, pa.Check.isin(["references", "terms", "authors"])),
    "item": TEXT,
    "label": OPTIONAL_TEXT,
    "works": _int,
    "begin": _int,
    "end": _int,
    "strength": pa.Column(float, pa.Check.gt(0)),
}, ["family", "item", "begin"])

RPYS = table_schema("rpys", {
    "year": _int,
    "citations": pa.Column("Int64", pa.Check.ge(0)),
    "median": _float,
    "deviation": _float,
    "peak": pa.Column(bool),
}, ["year"])

RPYS_TOP = table_schema("rpys_top", {
    "year": _int,
    "rank": pa.Column("Int64", pa.Check.ge(1)),
    "referenced_id": TEXT,
    "label": OPTIONAL_TEXT,
    "citations": pa.Column("Int64", pa.Check.ge(1)),
}, ["year", "rank"])

SLICE = pa.Column(str, nullable=False)

SLICE_NODES = table_schema("slice_nodes", {"slice": SLICE, **NODES.columns}, ["slice", "node_id"])
SLICE_EDGES = table_schema("slice_edges", {"slice": SLICE, **EDGES.columns}, ["slice", "source", "target"])

ALIGNMENT = table_schema("alignment", {
    "from_slice": SLICE,
    "to_slice": SLICE,
    "from_cluster": _int,
    "to_cluster": _int,
    "shared": pa.Column("Int64", pa.Check.ge(1)),
    "jaccard": _float,
}, ["from_slice", "from_cluster", "to_cluster"])

EVENTS = table_schema("events", {
    "from_slice": SLICE,
    "to_slice": SLICE,
    "side": pa.Column(str, pa.Check.isin(["from", "to"])),
    "cluster": _int,
    "event": pa.Column(str, pa.Check.isin(["continues", "splits", "merges", "emerges", "dissolves"])),
    "with": pa.Column(str, nullable=False),
}, ["from_slice", "side", "cluster"])

THEMES = table_schema("themes", {
    "slice": SLICE,
    "cluster": _int,
    "label": TEXT,
    "size": _int,
    "occurrences": _int,
    "centrality": _float,
    "density": _float,
    "quadrant": pa.Column(str, pa.Check.isin(["motor", "basic", "niche", "emerging or declining"])),
}, ["slice", "cluster"])

FLOWS = table_schema("flows", {
    "from_slice": SLICE,
    "to_slice": SLICE,
    "from_cluster": _int,
    "to_cluster": _int,
    "shared": pa.Column("Int64", pa.Check.ge(1)),
    "inclusion": _float,
}, ["from_slice", "from_cluster", "to_cluster"])

SLICE_TABLES = {"nodes": SLICE_NODES, "edges": SLICE_EDGES, "alignment": ALIGNMENT, "events": EVENTS,
                "themes": THEMES, "flows": FLOWS}
TREND_TABLES = {"bursts": BURSTS, "rpys": RPYS, "rpys_top": RPYS_TOP}
