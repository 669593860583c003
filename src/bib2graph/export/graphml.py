"""GraphML export (Gephi, Cytoscape, yEd, networkx) with typed node and edge attributes.

Written column-wise: each attribute column becomes its ``<data>`` lines in Arrow (text escaped in Arrow
too), and the edges, the bulk of the file, are written a chunk at a time. The bytes are those networkx's
``generate_graphml`` gives for the graph of the tables (tests/unit/export_reference.py builds it): key IDs
``d0``… in order of first use, listed last first; non-ASCII characters as character references; graph
attributes after the edges. So a file reads back in networkx with the same attributes and types.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..tables import Bundle
from .common import NODE_ATTRIBUTES, clean_cells, cluster_labels, corpus_columns, url_cells
from .text import chunks, float_repr, int_text, node_blocks, node_codes, string_array, write_parts
from .text_columns import python, where

_HEAD = ('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
         'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
         'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
         'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
_LINE_BREAKS = re.compile(r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e]")   # what str.splitlines breaks in ASCII text
_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;",
                            "\n": "&#10;", "\t": "&#09;"})
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
#: what XML 1.0 cannot hold even as a character reference: C0 controls other than tab, newline and carriage
#: return (those `_LINE_BREAKS` turns into newlines aside), surrogates, U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0e-\x1b\x1f\ud800-\udfff\ufffe\uffff]")
_TYPES = {str: "string", int: "long", float: "double", bool: "boolean"}
#: `_NOT_XML` and `_LINE_BREAKS` as RE2 (Arrow's regex engine) reads them; Arrow's UTF-8 holds no surrogates
_NOT_XML_RE2 = r"[\x00-\x08\x0e-\x1b\x1f\x{FFFE}\x{FFFF}]"
_LINE_BREAKS_RE2 = r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e]"
#: a cell holding none of these needs no escape: what `_xml` removes, escapes or breaks as a line
_SPECIAL_RE2 = r'[&<>"\x00-\x1f\x{FFFE}\x{FFFF}]'
_TEXT_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))   # "&" first: the others write one
_ATTRIBUTE_ESCAPES = _TEXT_ESCAPES + (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;"))


def xml_chars(value: str) -> str:
    """`value` without the characters no XML file may hold (`_NOT_XML`): one such character in an abstract
    would make the whole file unreadable to every XML parser."""
    return _NOT_XML.sub("", value)


def _xml(value: str, attribute: bool = False) -> str:
    """ElementTree's escapes in its us-ascii output (non-ASCII as ``&#N;``), lines broken as networkx's
    ``splitlines`` breaks them; characters XML cannot hold left out (`xml_chars`)."""
    text = xml_chars(value).translate(_ATTRIBUTE if attribute else _TEXT)
    text = text.encode("ascii", "xmlcharrefreplace").decode("ascii")
    return _LINE_BREAKS.sub("\n", text)


def xml_cells(values, attribute: bool = False) -> pa.Array:
    """`_xml` of each text cell (null where it holds no text), computed in Arrow: an abstract per node made
    this the export's largest cost in Python. Only cells with non-ASCII characters go through Python, for
    their character references."""
    text = string_array(values)
    if text is None:
        return pa.array([_xml(v, attribute) if isinstance(v, str) else None for v in pd.Series(values, dtype=object)],
                        type=pa.string())

    def escaped(some: pa.Array) -> pa.Array:
        some = pc.replace_substring_regex(some, _NOT_XML_RE2, "")
        for old, new in _ATTRIBUTE_ESCAPES if attribute else _TEXT_ESCAPES:
            some = pc.replace_substring(some, old, new)
        return pc.replace_substring_regex(some, _LINE_BREAKS_RE2, "\n")

    text = where(text, pc.match_substring_regex(text, _SPECIAL_RE2), escaped)   # one scan; most cells need nothing
    wide = pc.invert(pc.fill_null(pc.string_is_ascii(text), True))
    return python(text, wide, lambda cell: cell.encode("ascii", "xmlcharrefreplace").decode("ascii"))


def _column(values: pd.Series, attribute: bool = False) -> tuple[type, pa.Array]:
    """(Python type, text of each cell or null where networkx would omit the attribute); `attribute`:
    text escaped for an XML attribute's value rather than element text."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return bool, pa.array(np.where(values.to_numpy(dtype=bool), "True", "False"), type=pa.string())
    if pd.api.types.is_integer_dtype(values.dtype):
        return int, int_text(values)
    if pd.api.types.is_float_dtype(values.dtype):
        x = values.to_numpy(dtype=np.float64, na_value=np.nan)
        return float, pc.if_else(pa.array(np.isfinite(x)), float_repr(x), pa.nulls(len(x), pa.string()))
    return str, xml_cells(values, attribute)


def _node_columns(network, corpus: Bundle | None) -> dict[str, pd.Series]:
    """The node attributes in networkx's order (the reference graph's dict order), one column each."""
    nodes = network.nodes
    columns = {key: nodes[key] for key in NODE_ATTRIBUTES}
    columns["label"] = clean_cells(nodes["label"]).to_pandas()
    columns["url"] = url_cells(nodes["node_id"], nodes["doi"]).to_pandas()
    names = cluster_labels(network)
    columns["cluster_label"] = pd.Series([names.get(int(c)) if pd.notna(c) else None for c in nodes["cluster"].tolist()],
                                         dtype=object)
    columns.update(corpus_columns(network, corpus))
    return {k: v.reset_index(drop=True) for k, v in columns.items()}


def _edge_order(network, codes: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row order, source codes, target codes) in networkx's edge order: by the first endpoint in node order
    (the source, when directed), then by table row."""
    s, t = codes
    if not network.directed:
        s, t = np.minimum(s, t), np.maximum(s, t)
    order = np.argsort(s, kind="stable")
    return order, s[order], t[order]


def graphml_parts(network, corpus: Bundle | None = None, xy=None):
    """The GraphML text of `network` in parts (strings and Arrow string arrays); `xy` (n × 2, node order)
    adds the node attributes ``x`` and ``y`` (Gephi's and yEd's positions), keyed ``x`` and ``y``."""
    params = network.metrics.get("parameters", {})
    graph_attrs = {"kind": network.kind, "normalization": str(params.get("normalization", "")),
                   "definition": str(network.metrics.get("definition", ""))}
    if "counting" in params:
        graph_attrs["counting"] = str(params["counting"])
    keys = [("graph", name, "string") for name in graph_attrs]
    n = len(network.nodes)
    if xy is not None and len(xy) != n:
        raise DataError(f"the network has {n} nodes and the layout {len(xy)}", code="ARTIFACT_CORRUPT")
    texts, firsts = {}, []
    for position, (name, values) in enumerate(_node_columns(network, corpus).items()):
        kind, text = _column(values)
        present = text.is_valid().to_numpy(zero_copy_only=False) if n else np.zeros(0, bool)
        if present.any():
            texts[name] = (kind, text)
            firsts.append((int(np.argmax(present)), position, name))
    ids = {}
    for _, _, name in sorted(firsts):
        ids[name] = f"d{len(keys)}"
        keys.append(("node", name, _TYPES[texts[name][0]]))
    m = len(network.edges)
    if m:
        edge_ids = {"count": f"d{len(keys)}", "weight": f"d{len(keys) + 1}"}
        keys += [("edge", "count", "double"), ("edge", "weight", "double")]
    yield _HEAD
    keyed = [f'  <key id="d{k}" for="{scope}" attr.name="{_xml(name, True)}" attr.type="{kind}" />\n'
             for k, (scope, name, kind) in enumerate(keys)][::-1]
    yield "".join(keyed)
    if xy is not None:
        yield ('  <key id="x" for="node" attr.name="x" attr.type="double" />\n'
               '  <key id="y" for="node" attr.name="y" attr.type="double" />\n')
    yield f'  <graph edgedefault="{"directed" if network.directed else "undirected"}">\n'
    node_ids = xml_cells(network.nodes["node_id"].astype(str), True)
    if n:
        cells = [pc.binary_join_element_wise('    <node id="', node_ids, '">\n', "")]
        if xy is not None:   # first, where positions were added to networkx's file before
            for k, key in enumerate(("x", "y")):
                cells.append(pc.binary_join_element_wise(f'      <data key="{key}">', float_repr(xy[:, k]),
                                                         "</data>\n", ""))
        for name in texts:   # a node's data in its attributes' order; key IDs in order of first use
            key, text = ids[name], texts[name][1]
            full = pc.binary_join_element_wise(f'      <data key="{key}">', text, "</data>\n", "")
            empty = pa.scalar(f'      <data key="{key}" />\n')
            cells.append(pc.if_else(pc.equal(text, ""), empty, full))
        cells.append(pa.array(["    </node>\n"] * n, type=pa.string()))
        yield from node_blocks(cells, n)
    if m:
        ids = network.nodes["node_id"]
        order, s, t = _edge_order(network, (node_codes(ids, network.edges["source"]),
                                            node_codes(ids, network.edges["target"])))
        count = network.edges["count"].to_numpy(dtype=np.float64)
        weight = network.edges["weight"].to_numpy(dtype=np.float64)
        for part in chunks(m):
            rows = order[part]
            yield pc.binary_join_element_wise(
                '    <edge source="', node_ids.take(pa.array(s[part])), '" target="', node_ids.take(pa.array(t[part])),
                f'">\n      <data key="{edge_ids["count"]}">', float_repr(count[rows]),
                f'</data>\n      <data key="{edge_ids["weight"]}">', float_repr(weight[rows]),
                "</data>\n    </edge>\n", "")
    yield "".join(f'    <data key="d{k}">{_xml(value)}</data>\n' for k, value in enumerate(graph_attrs.values()))
    yield "  </graph>\n</graphml>\n"


def write_graphml(network, corpus: Bundle | None, path: str | os.PathLike[str], xy=None) -> None:
    """Write `network` as GraphML; with `corpus`, work nodes also carry venue, type, citations, abstract;
    with `xy` (n × 2, in node order), nodes carry the map's ``x`` and ``y``."""
    write_parts(path, graphml_parts(network, corpus, xy))
