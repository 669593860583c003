"""A network built in every time slice, its clusters aligned slice to slice, its themes placed.

Each slice's network is the kind's network of the corpus works published in the slice (same definition,
thresholds, normalisation, clustering and metrics as the whole network; no evidence table), so node IDs
are the same across slices and alignment compares members directly. A slice is named ``START-END``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..networks import build
from ..tables import Bundle
from . import slices, themes


def slice_name(span: tuple[int, int]) -> str:
    return f"{span[0]}-{span[1]}"


def _pairs(frames: dict[str, pd.DataFrame], names: list[str], step) -> pd.DataFrame:
    """`step(previous, current)` for each pair of consecutive slices, tagged with their names."""
    out = []
    for before, after in zip(names, names[1:]):
        table = step(frames[before], frames[after])
        out.append(table.assign(from_slice=before, to_slice=after))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def build_slices(kind: str, corpus: Bundle, spans: list[tuple[int, int]], params: dict, communities: dict,
                 metrics: dict | None, threshold: float, cited: pd.DataFrame | None = None
                 ) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """The tables of results/slices/<kind>/ and, per slice, its counts and summary."""
    nodes, edges, summaries, directed = {}, {}, [], False
    for span in spans:
        name = slice_name(span)
        ids = slices.in_span(corpus.works, span)
        net = build(kind, corpus.subset(ids), params, communities, evidence_limit=0, cited=cited, metrics=metrics,
                    name=False)
        directed = net.directed
        nodes[name] = net.nodes.assign(slice=name)
        edges[name] = net.edges.assign(slice=name)
        summaries.append({"slice": name, "works": int(len(ids)), "nodes": net.metrics["nodes"],
                          "edges": net.metrics["edges"], "clusters": net.metrics["n_clusters"],
                          "modularity": net.metrics["modularity"],
                          "clusters_reproducible": net.metrics["clusters_reproducible"]})
    names = [slice_name(s) for s in spans]
    alignment = _pairs(nodes, names, lambda a, b: slices.align(a, b, threshold))
    events = _pairs(nodes, names, lambda a, b: slices.events(
        slices.align(a, b, threshold), sorted(a["cluster"].unique()), sorted(b["cluster"].unique())))
    diagram = [themes.strategic_diagram(nodes[n], edges[n]).assign(slice=n) for n in names if not nodes[n].empty]
    tables = {
        "nodes": pd.concat(nodes.values(), ignore_index=True) if nodes else pd.DataFrame(),
        "edges": pd.concat(edges.values(), ignore_index=True) if edges else pd.DataFrame(),
        "alignment": alignment, "events": events,
        "themes": pd.concat(diagram, ignore_index=True) if diagram else pd.DataFrame(),
        "flows": _pairs(nodes, names, themes.flows),
    }
    return tables, {"directed": directed, "slices": summaries, "links": int(len(alignment)),
                    "events": events["event"].value_counts().sort_index().to_dict() if len(events) else {}}
