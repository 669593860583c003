"""Exports of a built Network: GraphML, GEXF, CSV, Pajek and VOSviewer.

Every file is written atomically and deterministically (equal networks give equal bytes).
"""

from __future__ import annotations

from .csv import write_csv
from .gexf import write_gexf
from .graphml import write_graphml
from .pajek import write_pajek
from .vosviewer import write_vosviewer

FORMATS = ("graphml", "gexf", "csv", "pajek", "vosviewer")

__all__ = ["FORMATS", "write_csv", "write_gexf", "write_graphml", "write_pajek", "write_vosviewer"]
