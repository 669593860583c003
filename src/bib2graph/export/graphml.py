"""GraphML export (Gephi, Cytoscape, yEd, networkx) with typed node and edge attributes."""

from __future__ import annotations

import os

import networkx as nx

from ..atomic import write_text
from ..tables import Bundle
from .common import to_networkx


def write_graphml(network, corpus: Bundle | None, path: str | os.PathLike[str]) -> None:
    """Write `network` as GraphML; with `corpus`, work nodes also carry venue, type, citations, abstract."""
    graph = to_networkx(network, corpus)
    write_text(path, "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n")
