"""igraph, imported without its plotting backends.

When matplotlib is installed, `import igraph` imports `matplotlib.pyplot` for its drawing module (about
a second, more than the rest of igraph), which no network or layout job uses. Importing igraph while
matplotlib is hidden gives igraph its placeholder instead; matplotlib itself imports normally afterwards.
"""

from __future__ import annotations

import sys


def _load():
    if "igraph" in sys.modules or "matplotlib" in sys.modules:
        import igraph

        return igraph
    sys.modules["matplotlib"] = None      # type: ignore[assignment]  # makes `import matplotlib` fail
    try:
        import igraph
    finally:
        del sys.modules["matplotlib"]
    return igraph


ig = _load()
