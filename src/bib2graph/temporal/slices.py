"""Time slices of a corpus and the alignment of clusters from one slice to the next.

Slices are consecutive, equal spans of publication years (``length`` years each, the last one shorter when
the range does not divide), from ``start`` to ``end`` inclusive. A work belongs to the slice of its year.

Alignment (as in CiteSpace's timeline and bibliometrix's thematic evolution): cluster ``a`` of slice
``t−1`` continues into cluster ``b`` of slice ``t`` when the Jaccard index of their members,
``|a ∩ b| / |a ∪ b|``, is at least ``threshold``. Members are node IDs, which are the same across slices
(a cited work, an author, a term keeps its ID), so the index compares like with like. Then, per cluster:

* ``continues``: one link out of ``a`` and one into ``b``;
* ``splits``: ``a`` has links to two or more clusters of slice ``t``;
* ``merges``: ``b`` has links from two or more clusters of slice ``t−1``;
* ``emerges``: ``b`` has no link from slice ``t−1``;
* ``dissolves``: ``a`` has no link into slice ``t``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def spans(first: int, last: int, length: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each slice covering ``first``..``last`` in steps of ``length`` years."""
    if length < 1:
        raise ValueError("a slice is at least one year long")
    if last < first:
        return []
    return [(start, min(start + length - 1, last)) for start in range(first, last + 1, length)]


def in_span(works: pd.DataFrame, span: tuple[int, int]) -> pd.Series:
    """The IDs of the `works` published in the years of `span` (both ends included)."""
    years = pd.to_numeric(works["year"], errors="coerce")
    return works.loc[(years >= span[0]) & (years <= span[1]), "work_id"]


def slice_of(years: pd.Series, slices: list[tuple[int, int]]) -> pd.Series:
    """The index of each year's slice (nullable; null outside every slice or without a year)."""
    out = pd.Series(pd.NA, index=years.index, dtype="Int64")
    values = pd.to_numeric(years, errors="coerce")
    for i, (start, end) in enumerate(slices):
        out[(values >= start) & (values <= end)] = i
    return out


def yearly_matrix(rows: pd.DataFrame, works: pd.DataFrame, first: int, last: int,
                  min_total: int = 1) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The counts burst detection reads: items, ``r`` (items × years: works of the year carrying the item)
    and ``d`` (works per year), for the years ``first``..``last``.

    ``rows`` pairs ``work_id`` with ``item`` (a work carrying an item twice counts once); ``works`` has
    ``work_id`` and ``year``. Items carried by fewer than ``min_total`` works are left out.
    """
    years = np.arange(first, last + 1)
    dated = works[["work_id", "year"]].dropna()
    dated = dated[(dated["year"] >= first) & (dated["year"] <= last)]
    d = dated["year"].astype(int).value_counts().reindex(years, fill_value=0).to_numpy()
    pairs = rows[["work_id", "item"]].drop_duplicates().merge(dated, on="work_id")
    if pairs.empty:
        return [], np.zeros((0, len(years)), dtype=np.int64), d
    table = pd.crosstab(pairs["item"], pairs["year"].astype(int)).reindex(columns=years, fill_value=0)
    table = table[table.sum(axis=1) >= min_total].sort_index()
    return [str(i) for i in table.index], table.to_numpy(dtype=np.int64), d


def align(previous: pd.DataFrame, current: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Links between the clusters of two consecutive slices: ``from_cluster``, ``to_cluster``, ``shared``,
    ``jaccard``, for every pair whose Jaccard index reaches ``threshold`` (both tables: ``node_id``,
    ``cluster``), sorted by ``from_cluster``, ``to_cluster``."""
    sizes_a = previous.groupby("cluster")["node_id"].nunique()
    sizes_b = current.groupby("cluster")["node_id"].nunique()
    shared = previous[["node_id", "cluster"]].drop_duplicates().merge(
        current[["node_id", "cluster"]].drop_duplicates(), on="node_id", suffixes=("_a", "_b"))
    counts = shared.groupby(["cluster_a", "cluster_b"]).size().rename("shared").reset_index()
    union = (counts["cluster_a"].map(sizes_a).to_numpy() + counts["cluster_b"].map(sizes_b).to_numpy()
             - counts["shared"].to_numpy())
    counts["jaccard"] = np.round(counts["shared"].to_numpy() / union, 6)
    links = counts[counts["jaccard"] >= threshold].rename(
        columns={"cluster_a": "from_cluster", "cluster_b": "to_cluster"})
    return links.sort_values(["from_cluster", "to_cluster"]).reset_index(drop=True)


def events(links: pd.DataFrame, previous_clusters: list[int], current_clusters: list[int]) -> pd.DataFrame:
    """What happened to each cluster between two slices: ``side`` (``from``/``to``), ``cluster``,
    ``event`` (continues, splits, merges, emerges, dissolves), ``with`` (the clusters on the other side,
    space-separated)."""
    out = []
    for cluster in sorted(previous_clusters):
        to = links.loc[links["from_cluster"] == cluster, "to_cluster"].tolist()
        event = "dissolves" if not to else "splits" if len(to) > 1 else None
        if event is None:
            event = "continues" if (links["to_cluster"] == to[0]).sum() == 1 else "merges"
        out.append(("from", cluster, event, " ".join(map(str, to))))
    for cluster in sorted(current_clusters):
        came = links.loc[links["to_cluster"] == cluster, "from_cluster"].tolist()
        event = "emerges" if not came else "merges" if len(came) > 1 else None
        if event is None:
            event = "continues" if (links["from_cluster"] == came[0]).sum() == 1 else "splits"
        out.append(("to", cluster, event, " ".join(map(str, came))))
    return pd.DataFrame(out, columns=["side", "cluster", "event", "with"])
