"""GEXF 1.2 export (Gephi's native format) with typed attributes and no timestamp, so output is stable.

Written column-wise, as GraphML is (graphml.py): the bytes are those networkx's ``generate_gexf`` gives for
the graph of the tables (tests/unit/export_reference.py), less its clock-dependent ``lastmodifieddate``
and the empty ``name`` networkx gives ``<graph>`` (GEXF's schema has no such attribute), characters XML
cannot hold left out (graphml.xml_chars): attribute IDs by first use (node attributes, then the edges'
``count``), the edge block of ``<attributes>`` first, edges numbered in networkx's order with ``weight``
as an XML attribute.
"""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from ..tables import Bundle
from .graphml import _TYPES, _column, _edge_order, _node_columns, _xml, xml_cells
from .text import chunks, float_repr, int_text, node_blocks, node_codes, write_parts

_HEAD = ('<gexf {viz}xmlns="http://www.gexf.net/1.2draft" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
         'xsi:schemaLocation="http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd" version="1.2">\n'
         f'  <meta>\n    <creator>NetworkX {nx.__version__}</creator>\n  </meta>\n')
_VIZ = 'xmlns:viz="http://www.gexf.net/1.2draft/viz" '


def gexf_parts(network, corpus: Bundle | None = None, xy=None):
    """The GEXF text of `network` in parts; `xy` (n × 2, node order) gives each node a ``viz:position``."""
    n, m = len(network.nodes), len(network.edges)
    if xy is not None and len(xy) != n:
        raise DataError(f"the network has {n} nodes and the layout {len(xy)}", code="ARTIFACT_CORRUPT")
    columns = _node_columns(network, corpus)
    labels = columns.pop("label")
    texts, firsts = {}, []
    for position, (name, values) in enumerate(columns.items()):
        kind, text = _column(values, attribute=True)
        text = pc.utf8_lower(text) if kind is bool else text   # GEXF's booleans: true, false
        present = text.is_valid().to_numpy(zero_copy_only=False) if n else np.zeros(0, bool)
        if present.any():
            texts[name] = (kind, text)
            firsts.append((int(np.argmax(present)), position, name))
    ids = {name: str(k) for k, (_, _, name) in enumerate(sorted(firsts))}
    yield _HEAD.format(viz=_VIZ if xy is not None and n else "")
    yield (f'  <graph defaultedgetype="{"directed" if network.directed else "undirected"}" mode="static">\n')
    if m:
        yield (f'    <attributes mode="static" class="edge">\n      <attribute id="{len(ids)}" title="count" '
               'type="double" />\n    </attributes>\n')
    if ids:
        yield '    <attributes mode="static" class="node">\n'
        yield "".join(f'      <attribute id="{ids[name]}" title="{_xml(name, True)}" type="{_TYPES[texts[name][0]]}" />\n'
                      for _, _, name in sorted(firsts))
        yield "    </attributes>\n"
    node_ids = xml_cells(network.nodes["node_id"].astype(str), True)
    if n:
        yield "    <nodes>\n"
        label_text = xml_cells(labels, True)
        cells = ['      <node id="', node_ids, '" label="', label_text, '">\n']
        if xy is not None:
            cells += ['        <viz:position x="', float_repr(xy[:, 0]), '" y="', float_repr(xy[:, 1]),
                      '" z="0.0" />\n']
        if ids:   # every node has some attribute (occurrences, degree, … are never missing)
            cells.append("        <attvalues>\n")
            for name in texts:
                cells.append(pc.binary_join_element_wise(f'          <attvalue for="{ids[name]}" value="',
                                                         texts[name][1], '" />\n', ""))
            cells.append("        </attvalues>\n")
        cells.append("      </node>\n")
        yield from node_blocks(cells, n)
        yield "    </nodes>\n"
    if m:
        yield "    <edges>\n"
        order, s, t = _edge_order(network, (node_codes(network.nodes["node_id"], network.edges["source"]),
                                            node_codes(network.nodes["node_id"], network.edges["target"])))
        count = network.edges["count"].to_numpy(dtype=np.float64)
        weight = network.edges["weight"].to_numpy(dtype=np.float64)
        for part in chunks(m):
            rows = order[part]
            yield pc.binary_join_element_wise(
                '      <edge source="', node_ids.take(pa.array(s[part])), '" target="', node_ids.take(pa.array(t[part])),
                '" id="', int_text(np.arange(part.start, part.stop)), '" weight="', float_repr(weight[rows]),
                f'">\n        <attvalues>\n          <attvalue for="{len(ids)}" value="', float_repr(count[rows]),
                '" />\n        </attvalues>\n      </edge>\n', "")
        yield "    </edges>\n"
    yield "  </graph>\n</gexf>\n"


def write_gexf(network, corpus: Bundle | None, path: str | os.PathLike[str], xy=None) -> None:
    """Write `network` as GEXF. `xy` (n × 2, in node-table order) gives each node a ``viz:position``,
    which Gephi draws."""
    write_parts(path, gexf_parts(network, corpus, xy))
