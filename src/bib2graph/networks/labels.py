"""Human-readable descriptions of clusters: their most distinctive terms or their leading members."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..tables import Bundle
from .builders import select_terms

TOP_NODES = 5
TOP_TERMS = 5
_LABEL_PARTS = 3
_MAX_CHARS = 80

#: kinds whose nodes are all corpus works, so their clusters can be named by the works' terms
TERM_LABELLED = ("coupling", "citation")


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _MAX_CHARS else text[:_MAX_CHARS - 1] + "…"


def _rank_column(kind: str) -> str:
    """Coupling ranks members by strength; elsewhere occurrences (works, citations, co-citations) lead."""
    return "strength" if kind == "coupling" else "occurrences"


def cluster_terms(nodes: pd.DataFrame, corpus: Bundle | None) -> dict[int, list[str]]:
    """For each cluster, up to TOP_TERMS terms by tf-idf: ``n_ct · ln(N / N_t)``.

    ``n_ct`` = member works carrying term t, ``N_t`` = node works carrying t, ``N`` = node works. Terms
    are each work's keywords, or its concepts when it has none (as the keywords ``auto`` field).
    """
    if corpus is None or corpus.terms.empty:
        return {}
    rows, _ = select_terms(corpus.terms, "auto")
    rows = rows[["work_id", "term_id", "term"]].drop_duplicates(["work_id", "term_id"])
    cluster_of = nodes.set_index("node_id")["cluster"]
    rows = rows[rows["work_id"].isin(cluster_of.index)]
    if rows.empty:
        return {}
    rows = rows.assign(cluster=rows["work_id"].map(cluster_of).astype("int64"))
    total = len(nodes)
    carriers = rows.groupby("term_id").size()
    per = rows.groupby(["cluster", "term_id"]).size().rename("n").reset_index()
    per["score"] = per["n"] * np.log(total / per["term_id"].map(carriers).to_numpy())
    names = rows.dropna(subset=["term"]).drop_duplicates("term_id").set_index("term_id")["term"]
    per["term"] = per["term_id"].map(names).fillna(per["term_id"])
    per = per[per["score"] > 0].sort_values(["cluster", "score", "n", "term"],
                                            ascending=[True, False, False, True], kind="mergesort")
    top = per.groupby("cluster").head(TOP_TERMS)
    return {int(c): group["term"].astype(str).tolist() for c, group in top.groupby("cluster")}


def describe(kind: str, nodes: pd.DataFrame, corpus: Bundle | None) -> tuple[list[dict], int]:
    """One entry per cluster of two or more nodes, largest first; plus the number of singleton clusters."""
    sizes = nodes.groupby("cluster").size()
    multi = sizes[sizes >= 2]
    rank = _rank_column(kind)
    ordered = nodes[nodes["cluster"].isin(multi.index)].sort_values(
        ["cluster", rank, "node_id"], ascending=[True, False, True], kind="mergesort")
    leaders = ordered.groupby("cluster").head(TOP_NODES)
    terms = cluster_terms(nodes, corpus) if kind in TERM_LABELLED else {}
    out = []
    for cluster, group in leaders.groupby("cluster", sort=True):
        cluster = int(cluster)
        cluster_terms_ = terms.get(cluster, [])
        parts = cluster_terms_[:_LABEL_PARTS] or [_short(x) for x in group["label"].head(_LABEL_PARTS)]
        entry = {"cluster": cluster, "size": int(multi[cluster]), "label": "; ".join(parts),
                 "top_nodes": group["node_id"].astype(str).tolist(), "ranked_by": rank}
        if kind in TERM_LABELLED:
            entry["terms"] = cluster_terms_
        out.append(entry)
    return out, int((sizes == 1).sum())
