"""Bibliometric networks of a corpus Bundle: build, normalise, cluster and measure.

    from bib2graph.networks import KINDS, DEFAULTS, build, Network
    net = build("coupling", bundle, {"normalization": "salton"}, {"algorithm": "leiden"})

`build` is pure and deterministic: equal inputs give equal tables and an equal metrics dict. Definitions,
formulas and the data dictionary are in docs/networks.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .params import (COUNTINGS, FIELDS, KINDS, NORMALIZATIONS, community_defaults, network_defaults,
                     resolve_communities, resolve_metrics, resolve_params)

COMMUNITY_DEFAULTS = community_defaults()
DEFAULTS = network_defaults()

# Heavy members (numpy, scipy, igraph, pandas) load on first use, so that checking a spec's network
# parameters (`.params`) costs no more than reading them.
_LAZY = {"Network": ".network", "build": ".pipeline", "definition": ".pipeline", "DEFINITIONS": ".pipeline",
         "edge_evidence": ".evidence", "EVIDENCE_MAX_ROWS": ".evidence"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMUNITY_DEFAULTS", "COUNTINGS", "DEFAULTS", "DEFINITIONS", "EVIDENCE_MAX_ROWS", "FIELDS", "KINDS",
           "NORMALIZATIONS", "Network", "build", "definition", "edge_evidence", "resolve_communities",
           "resolve_metrics", "resolve_params"]
