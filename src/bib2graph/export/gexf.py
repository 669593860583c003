"""GEXF 1.2 export (Gephi's native format) with typed attributes and no timestamp, so output is stable."""

from __future__ import annotations

import os
import re

import networkx as nx

from ..atomic import write_text
from ..tables import Bundle
from .common import to_networkx

_DATE = re.compile(r'\s+lastmodifieddate="[^"]*"')


def write_gexf(network, corpus: Bundle | None, path: str | os.PathLike[str], xy=None) -> None:
    """Write `network` as GEXF; networkx's clock-dependent ``lastmodifieddate`` is left out. `xy`
    (n × 2, in node-table order) gives each node a ``viz:position``, which Gephi draws."""
    graph = to_networkx(network, corpus, xy)
    text = "\n".join(nx.generate_gexf(graph, encoding="utf-8", prettyprint=True, version="1.2draft"))
    write_text(path, _DATE.sub("", text, count=1) + "\n")
