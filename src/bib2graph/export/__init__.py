"""Exports of a built Network: GraphML, GEXF, CSV, Pajek and VOSviewer.

Every file is written atomically and deterministically (equal networks give equal bytes).

The writers are imported when first asked for: a module that needs one helper of this package (the
curation file's CSV text) does not pay for networkx and the table schemas the others import.
"""

from __future__ import annotations

import importlib

FORMATS = ("graphml", "gexf", "csv", "pajek", "vosviewer")

_WRITERS = {f"write_{name}": name for name in FORMATS}

__all__ = ["FORMATS", *_WRITERS]


def __getattr__(name: str):
    if name in _WRITERS:
        return getattr(importlib.import_module(f".{_WRITERS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
