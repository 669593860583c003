"""Themes of a keyword network: the strategic diagram of one slice and the flows between slices.

Strategic diagram (Callon, Courtial & Laville 1991; bibliometrix ``thematicMap``). A theme is a cluster of
the keyword co-occurrence network. With ``w`` the edge weights of the network (association strength by
default):

* centrality: ``Σ w`` over edges with one end in the theme and the other outside it (how much the theme
  is tied to the rest of the field);
* density: ``Σ w`` over edges inside the theme divided by its number of keywords (how developed it is);
* quadrant, against the medians of all themes of the slice: ``motor`` (centrality and density above or
  at the median), ``basic`` (central, not dense), ``niche`` (dense, not central), ``emerging or
  declining`` (neither).

A theme is named by its keywords of most occurrences (ties by label), and its size is its number of
keywords; its ``occurrences`` sum theirs.

Flows between themes of consecutive slices use bibliometrix's weighted inclusion index: for themes ``A``
(slice t−1) and ``B`` (slice t) sharing keywords ``K = A ∩ B``,
``inclusion = Σ_{k∈K} occ(k) / min(Σ_{k∈A} occ(k), Σ_{k∈B} occ(k))``, where ``occ`` is a keyword's
occurrences in its own slice (the smaller total of the two themes is used on each side: ``occ`` of
``K`` summed in A and in B, whichever is smaller). Only pairs sharing a keyword are flows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: keywords named in a theme's label
LABEL_TERMS = 3


def strategic_diagram(nodes: pd.DataFrame, edges: pd.DataFrame) -> pd.DataFrame:
    """One row per theme: ``cluster``, ``label``, ``size``, ``occurrences``, ``centrality``, ``density``,
    ``quadrant`` (nodes: ``node_id``, ``label``, ``occurrences``, ``cluster``; edges: ``source``,
    ``target``, ``weight``)."""
    if nodes.empty:
        return pd.DataFrame(columns=["cluster", "label", "size", "occurrences", "centrality", "density",
                                     "quadrant"])
    cluster_of = nodes.set_index("node_id")["cluster"]
    a = edges["source"].map(cluster_of).to_numpy()
    b = edges["target"].map(cluster_of).to_numpy()
    w = edges["weight"].to_numpy(dtype=float)
    inside = pd.Series(w[a == b]).groupby(a[a == b]).sum()
    across = a != b
    outward = pd.concat([pd.Series(w[across], index=a[across]), pd.Series(w[across], index=b[across])])
    outward = outward.groupby(level=0).sum()
    ranked = nodes.sort_values(["cluster", "occurrences", "label"], ascending=[True, False, True], kind="stable")
    rows = []
    for cluster, group in ranked.groupby("cluster", sort=True):
        rows.append({"cluster": int(cluster), "label": "; ".join(group["label"].head(LABEL_TERMS)),
                     "size": len(group), "occurrences": int(group["occurrences"].sum()),
                     "centrality": round(float(outward.get(cluster, 0.0)), 10),
                     "density": round(float(inside.get(cluster, 0.0)) / len(group), 10)})
    table = pd.DataFrame(rows)
    central = table["centrality"] >= table["centrality"].median()
    dense = table["density"] >= table["density"].median()
    table["quadrant"] = np.select([central & dense, central, dense], ["motor", "basic", "niche"],
                                  "emerging or declining")
    return table


def flows(previous: pd.DataFrame, current: pd.DataFrame) -> pd.DataFrame:
    """Weighted inclusion between the themes of two slices: ``from_cluster``, ``to_cluster``, ``shared``
    (keywords in both), ``inclusion``; both tables hold ``node_id``, ``occurrences``, ``cluster``."""
    a = previous[["node_id", "occurrences", "cluster"]]
    b = current[["node_id", "occurrences", "cluster"]]
    pairs = a.merge(b, on="node_id", suffixes=("_a", "_b"))
    if pairs.empty:
        return pd.DataFrame(columns=["from_cluster", "to_cluster", "shared", "inclusion"])
    grouped = pairs.groupby(["cluster_a", "cluster_b"]).agg(
        shared=("node_id", "size"), occ_a=("occurrences_a", "sum"), occ_b=("occurrences_b", "sum")).reset_index()
    total_a = a.groupby("cluster")["occurrences"].sum()
    total_b = b.groupby("cluster")["occurrences"].sum()
    denominator = np.minimum(grouped["cluster_a"].map(total_a).to_numpy(),
                             grouped["cluster_b"].map(total_b).to_numpy()).astype(float)
    numerator = np.minimum(grouped["occ_a"].to_numpy(), grouped["occ_b"].to_numpy()).astype(float)
    grouped["inclusion"] = np.round(numerator / denominator, 6)
    out = grouped.rename(columns={"cluster_a": "from_cluster", "cluster_b": "to_cluster"})
    return out[["from_cluster", "to_cluster", "shared", "inclusion"]].sort_values(
        ["from_cluster", "to_cluster"]).reset_index(drop=True)
