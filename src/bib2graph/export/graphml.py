"""GraphML export (Gephi, Cytoscape, yEd, networkx) with typed node and edge attributes."""

from __future__ import annotations

import os
import re
from pathlib import Path

import networkx as nx

from ..atomic import write_text
from ..errors import DataError
from ..tables import Bundle
from .common import to_networkx

_NODE = re.compile(r'^    <node id="[^"]*"( /)?>$', re.MULTILINE)
_GRAPH = re.compile(r"^  <graph ", re.MULTILINE)
_KEYS = ('  <key id="x" for="node" attr.name="x" attr.type="double" />\n'
         '  <key id="y" for="node" attr.name="y" attr.type="double" />\n')


def write_graphml(network, corpus: Bundle | None, path: str | os.PathLike[str]) -> None:
    """Write `network` as GraphML; with `corpus`, work nodes also carry venue, type, citations, abstract."""
    graph = to_networkx(network, corpus)
    write_text(path, "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n")


def with_positions(text: str, xy) -> str:
    """GraphML `text` (as `write_graphml` writes it) with node attributes ``x`` and ``y`` (Gephi's and
    yEd's position attributes) from `xy` (n × 2, in node order), inserted in one pass over the text
    instead of building the graph again. Element text never holds a raw ``<``, so only real node tags match."""
    rows = iter(range(len(xy)))
    used = []

    def add(match: re.Match) -> str:
        k = next(rows, None)
        if k is None:
            raise DataError("the GraphML file has more nodes than the layout", code="ARTIFACT_CORRUPT")
        used.append(k)
        tag = match.group(0)
        data = (f'\n      <data key="x">{float(xy[k, 0])!r}</data>'
                f'\n      <data key="y">{float(xy[k, 1])!r}</data>')
        return tag[:-3] + ">" + data + "\n    </node>" if match.group(1) else tag + data

    graph_at = _GRAPH.search(text)
    if graph_at is None:
        raise DataError("the network's GraphML file has no <graph> element", code="ARTIFACT_CORRUPT")
    out = text[:graph_at.start()] + _KEYS + _NODE.sub(add, text[graph_at.start():])
    if len(used) != len(xy):
        raise DataError(f"the GraphML file has {len(used)} nodes and the layout {len(xy)}", code="ARTIFACT_CORRUPT")
    return out


def write_graphml_with_positions(source: str | os.PathLike[str], path: str | os.PathLike[str], xy) -> None:
    """Copy the network's GraphML file `source` to `path` with the map coordinates `xy` added."""
    write_text(path, with_positions(Path(source).read_text(encoding="utf-8"), xy))
