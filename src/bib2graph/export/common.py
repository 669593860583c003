"""Shared helpers of the exporters: node URLs, clean labels, native attribute dicts and the nx graph."""

from __future__ import annotations

import math
import re

import networkx as nx
import pandas as pd

from ..tables import Bundle

_OPENALEX_ID = re.compile(r"^(?:[WAISTCPF]\d+|keywords/.+)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def node_url(node_id: str, doi) -> str | None:
    """``https://doi.org/<doi>`` when the node has a DOI, else its OpenAlex page when the ID is one."""
    if isinstance(doi, str) and doi:
        return f"https://doi.org/{doi}"
    if _OPENALEX_ID.match(str(node_id)):
        return f"https://openalex.org/{node_id}"
    return None


def clean(text) -> str:
    """One line of text: control characters (tabs, newlines) become single spaces."""
    return _CONTROL.sub(" ", str(text)).strip()


def native(value):
    """A plain Python scalar, or None for missing values (so exporters can omit them)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cluster_labels(network) -> dict[int, str]:
    return {int(c["cluster"]): str(c["label"]) for c in network.metrics.get("clusters", []) if c.get("label")}


def _corpus_extras(network, corpus: Bundle | None) -> dict[str, dict]:
    """Extra attributes from the corpus: bibliographic fields of work nodes, countries of institutions."""
    if corpus is None:
        return {}
    ids = set(network.nodes["node_id"])
    extras: dict[str, dict] = {}
    if network.kind in ("coupling", "cocitation", "citation"):
        works = corpus.works[corpus.works["work_id"].isin(ids)]
        for row in works[["work_id", "venue", "type", "publication_date", "cited_by_count", "abstract"]] \
                .itertuples(index=False):
            extras[row.work_id] = {k: native(getattr(row, k)) for k in
                                   ("venue", "type", "publication_date", "cited_by_count", "abstract")}
    elif network.kind == "institutions":
        aff = corpus.affiliations[corpus.affiliations["institution_id"].isin(ids)].dropna(subset=["country_code"])
        counts = aff.groupby(["institution_id", "country_code"]).size().rename("n").reset_index()
        counts = counts.sort_values(["institution_id", "n", "country_code"], ascending=[True, False, True])
        for row in counts.drop_duplicates("institution_id").itertuples(index=False):
            extras[row.institution_id] = {"country_code": row.country_code}
    return extras


NODE_ATTRIBUTES = ("label", "occurrences", "year", "mean_year", "doi", "in_corpus", "degree", "strength", "link_strength",
                   "pagerank", "betweenness", "eigenvector", "cluster", "silhouette")


def to_networkx(network, corpus: Bundle | None = None, xy=None) -> nx.Graph:
    """An nx graph with typed attributes; missing values are omitted, never written as None. `xy`, the
    map coordinates of the nodes in table order (n × 2), become GEXF's ``viz:position``."""
    graph = nx.DiGraph() if network.directed else nx.Graph()
    params = network.metrics.get("parameters", {})
    graph.graph.update({"kind": network.kind, "normalization": str(params.get("normalization", "")),
                        "definition": str(network.metrics.get("definition", ""))})
    if "counting" in params:
        graph.graph["counting"] = str(params["counting"])
    names = cluster_labels(network)
    extras = _corpus_extras(network, corpus)
    for k, row in enumerate(network.nodes.itertuples(index=False)):
        attrs = {key: native(getattr(row, key)) for key in NODE_ATTRIBUTES}
        if xy is not None:
            attrs["viz"] = {"position": {"x": float(xy[k, 0]), "y": float(xy[k, 1]), "z": 0.0}}
        attrs["label"] = clean(attrs["label"])
        attrs["url"] = node_url(row.node_id, attrs["doi"])
        attrs["cluster_label"] = names.get(attrs["cluster"])
        attrs.update(extras.get(row.node_id, {}))
        graph.add_node(row.node_id, **{k: v for k, v in attrs.items() if v is not None})
    for row in network.edges.itertuples(index=False):
        graph.add_edge(row.source, row.target, count=float(row.count), weight=float(row.weight))
    return graph
