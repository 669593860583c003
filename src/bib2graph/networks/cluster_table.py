"""What each cluster is made of, apart from its name: size, years, weights, silhouette, leading works.

The network job computes this from the graph it holds (codes, weights, clusters); the clusters job
(`cluster_names`) adds the label terms. Definitions (docs/networks.md, "Cluster table"):

* **internal weight** of cluster C: Σ weight of the edges with both ends in C (arcs each once);
  **external weight**: Σ weight of the edges with exactly one end in C.
* **silhouette** (Rousseeuw 1987) on the distance d(i, j) = 1 − s_ij for i ≠ j, d(i, i) = 0, where
  s_ij = w_ij / max w is the edge weight between i and j (the undirected graph as clustered: arcs and
  parallel edges summed) scaled by the largest one, 0 for nodes without an edge. For node i in cluster
  A: a(i) = mean d(i, j) over the other members of A, b(i) = min over clusters B ≠ A of the mean
  d(i, j) over B, s(i) = (b − a) / max(a, b); s(i) = 0 when A is i alone (scikit-learn's
  `silhouette_samples` convention). Undefined (null) with fewer than two clusters or none of two nodes.
  Only edges carry similarity, so the sums need one pass over the edges, never the n² distances.
* **central** works: the members of highest PageRank; **cited** works (document networks): the members
  most cited by corpus works (local citations), ties by node ID throughout.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..palette import cluster_colour

TOP = 5
#: kinds whose nodes are works, so that "most cited" means something
DOCUMENT_KINDS = ("coupling", "cocitation", "citation")


def _undirected(i: np.ndarray, j: np.ndarray, weight: np.ndarray, n: int):
    """The symmetric sparse similarity matrix: parallel edges and arcs summed, self-loops dropped."""
    from scipy.sparse import coo_matrix

    keep = i != j
    i, j, w = i[keep], j[keep], weight[keep].astype(float)
    upper = coo_matrix((w, (np.minimum(i, j), np.maximum(i, j))), shape=(n, n)).tocsr()
    upper.sum_duplicates()
    return upper + upper.T


def silhouette(n: int, i: np.ndarray, j: np.ndarray, weight: np.ndarray, clusters: np.ndarray) -> np.ndarray | None:
    """s(i) for every node (see the module's definition), or None when it is undefined."""
    from scipy.sparse import csr_matrix

    clusters = np.asarray(clusters, dtype=np.int64)
    labels, code = np.unique(clusters, return_inverse=True)
    k = len(labels)
    if n < 2 or k < 2 or k >= n:      # scikit-learn: 2 <= clusters <= n - 1
        return None
    sizes = np.bincount(code, minlength=k).astype(float)
    sim = _undirected(np.asarray(i), np.asarray(j), np.asarray(weight), n)
    top = sim.max() if sim.nnz else 0.0
    if top > 0:
        sim.data *= 1 / top                          # as `sim / top` computes it, in place (1 GB at 41.6M edges)
    # S_iC = Σ_{j∈C} s_ij: each row's entries with their columns' clusters, duplicates summed. Built from
    # the CSR arrays, not through COO, with each row's entries in the order COO would give them, so that
    # the sums (sorted and added as scipy's sum_duplicates does) are the same bits.
    by_cluster = csr_matrix((sim.data, code.astype(sim.indices.dtype)[sim.indices], sim.indptr), shape=(n, k))
    del sim
    by_cluster.sum_duplicates()
    by_cluster = by_cluster.tocoo()
    row, col, total = by_cluster.row, by_cluster.col, by_cluster.data
    mine = col == code[row]
    own = np.bincount(row[mine], weights=total[mine], minlength=n)
    own_size = sizes[code]
    a = np.where(own_size > 1, 1.0 - own / np.maximum(own_size - 1, 1), 0.0)
    closest = np.zeros(n)                            # max over other clusters of the mean similarity
    np.maximum.at(closest, row[~mine], total[~mine] / sizes[col[~mine]])
    b = 1.0 - closest
    with np.errstate(invalid="ignore", divide="ignore"):
        s = (b - a) / np.maximum(a, b)
    return np.where((own_size > 1) & np.isfinite(s), s, 0.0)


def local_citations(node_ids: pd.Series, references: pd.DataFrame) -> np.ndarray:
    """For each node, the corpus works citing it (a work citing itself not counted); the references
    table is unique on (work_id, referenced_id) by its schema, so rows are citing works."""
    cited = references["referenced_id"][references["work_id"] != references["referenced_id"]]
    return cited.value_counts().reindex(node_ids).fillna(0).to_numpy(dtype=np.int64)


def _weights(i: np.ndarray, j: np.ndarray, weight: np.ndarray, clusters: np.ndarray) -> tuple[pd.Series, pd.Series]:
    """Internal and external weight per cluster."""
    ci, cj = clusters[i], clusters[j]
    inside = ci == cj
    internal = pd.Series(weight[inside]).groupby(ci[inside]).sum()
    across = ~inside
    external = (pd.Series(np.concatenate([weight[across], weight[across]]))
                .groupby(np.concatenate([ci[across], cj[across]])).sum())
    return internal, external


def _rank_column(kind: str) -> str:
    """Coupling ranks members by strength; elsewhere occurrences (works, citations, co-citations) lead."""
    return "strength" if kind == "coupling" else "occurrences"


def _leaders(frame: pd.DataFrame, column: str, name: str) -> dict[int, list[dict]]:
    """The TOP members of each cluster by `column` (ties by node ID), in one sort of the whole frame: a
    sort per cluster cost a second for 400 clusters."""
    top = (frame[["cluster", "node_id", "label", column]]
           .sort_values(["cluster", column, "node_id"], ascending=[True, False, True], kind="mergesort")
           .groupby("cluster", sort=False).head(TOP))
    found: dict[int, list[dict]] = {}
    for r in top.itertuples(index=False):       # metrics.tidy makes the values JSON values
        found.setdefault(int(r.cluster), []).append({"node_id": str(r.node_id), "label": str(r.label),
                                                     name: getattr(r, column)})
    return found


def cluster_table(kind: str, nodes: pd.DataFrame, i: np.ndarray, j: np.ndarray, weight: np.ndarray,
                  citations: np.ndarray | None = None) -> list[dict]:
    """One entry per cluster of two or more nodes, largest first. `nodes` (node order, the codes of
    `i`/`j`) has node_id, label, mean_year, pagerank, silhouette, strength, occurrences and cluster; `citations` the local
    citations of each node (document networks)."""
    clusters = nodes["cluster"].to_numpy(dtype=np.int64)
    rank = _rank_column(kind)
    frame = nodes[["node_id", "label", "mean_year", "pagerank", "silhouette", "strength", "occurrences"]].assign(
        cluster=clusters, citations=citations if citations is not None else 0)
    internal, external = _weights(np.asarray(i), np.asarray(j), np.asarray(weight, dtype=float), clusters)
    sizes = frame.groupby("cluster").size()
    frame = frame[frame["cluster"].isin(sizes.index[sizes >= 2])]
    central, top = _leaders(frame, "pagerank", "pagerank"), _leaders(frame, rank, rank)
    cited = _leaders(frame, "citations", "citations") if kind in DOCUMENT_KINDS else {}
    out = []
    for cluster, members in frame.groupby("cluster", sort=True):
        years = members["mean_year"].dropna()
        silhouettes = members["silhouette"].dropna()
        out.append({
            "cluster": int(cluster), "size": int(len(members)), "colour": cluster_colour(cluster),
            "mean_year": float(years.mean()) if len(years) else None,
            "median_year": float(years.median()) if len(years) else None,
            "internal_weight": float(internal.get(cluster, 0.0)), "external_weight": float(external.get(cluster, 0.0)),
            "silhouette": float(silhouettes.mean()) if len(silhouettes) else None,
            "central": central[cluster], "cited": cited.get(cluster, []),
            "top_nodes": [e["node_id"] for e in top[cluster]], "ranked_by": rank,
        })
    return out
