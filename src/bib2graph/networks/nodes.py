"""The node tables of the builders: works (year, DOI, inside the corpus or not) and items (authors,
institutions, terms: the mean year of their works), and the label an item takes (its most frequent).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..tables import Bundle
from .coding import lookup
from .counting import COUNT_DIGITS, round_sig


def work_nodes(corpus: Bundle, ids: pd.Index, occurrences: np.ndarray) -> pd.DataFrame:
    """Node rows for works: year/doi for corpus works; the label is the ID until `build` names the work."""
    works = corpus.works
    at = lookup(ids, works["work_id"])                       # node row of each corpus work, or -1
    row = np.full(len(ids), -1, dtype=np.int64)               # corpus row of each node, or -1
    row[at[at >= 0]] = np.flatnonzero(at >= 0)
    inside = row >= 0
    where = np.flatnonzero(inside)
    meta = works.iloc[row[inside]]
    years = pd.array(meta["year"], dtype="Int64")
    year = np.zeros(len(ids), dtype=np.int64)
    missing = np.ones(len(ids), dtype=bool)
    year[where] = years.to_numpy(dtype=np.int64, na_value=0)
    missing[where] = years.isna()
    doi = np.full(len(ids), None, dtype=object)
    doi[where] = meta["doi"].astype(object).where(meta["doi"].notna(), None).to_numpy()
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": np.asarray(ids, dtype=object),
        "occurrences": np.asarray(occurrences, dtype=np.int64),
        "year": pd.arrays.IntegerArray(year, missing),
        "mean_year": np.where(missing, np.nan, year.astype(np.float64)),
        "doi": doi,
        "in_corpus": inside,
    })


def item_nodes(ids: pd.Index, occurrences: np.ndarray, labels: pd.Series, mean_year: np.ndarray) -> pd.DataFrame:
    """Node rows for authors, institutions and terms (never corpus works themselves)."""
    named = labels.reindex(ids)
    return pd.DataFrame({
        "node_id": ids.astype(str),
        "label": named.fillna(pd.Series(ids, index=ids)).astype(str).to_numpy(),
        "occurrences": np.asarray(occurrences, dtype=np.int64),
        "year": pd.array([pd.NA] * len(ids), dtype="Int64"),
        "mean_year": np.asarray(mean_year, dtype=np.float64),
        "doi": np.full(len(ids), None, dtype=object),
        "in_corpus": np.zeros(len(ids), dtype=bool),
    })


def work_years(corpus: Bundle) -> pd.Series:
    """work_id → publication year (float; NaN when unknown) of the corpus works."""
    works = corpus.works
    return pd.Series(pd.array(works["year"], dtype="Float64").to_numpy(dtype=np.float64, na_value=np.nan),
                     index=pd.Index(works["work_id"], dtype="str"))


def mean_years(a: sp.csr_matrix, work_ids, years: pd.Series | None) -> np.ndarray:
    """For each column (node) of the works × nodes 0/1 matrix `a`: the mean year of its works that have
    one (NaN when none do, or without `years`), rounded to 12 significant digits."""
    if years is None:
        return np.full(a.shape[1], np.nan)
    y = years.reindex(pd.Index(work_ids, dtype="str")).to_numpy(dtype=np.float64)
    known = ~np.isnan(y)
    total = a.T @ np.where(known, y, 0.0)
    count = a.T @ known.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return round_sig(np.where(count > 0, total / count, np.nan), COUNT_DIGITS)


def mode_label(df: pd.DataFrame, key: str, label: str) -> pd.Series:
    """For each `key`, its most frequent non-null `label` (ties: the smallest label)."""
    named = df.loc[df[label].notna(), [key, label]]
    if named.empty:
        return pd.Series(dtype=object, name=label)
    counts = named.groupby([key, label], sort=True).size().rename("n").reset_index()
    counts = counts.sort_values([key, "n", label], ascending=[True, False, True], kind="mergesort")
    return counts.drop_duplicates(key).set_index(key)[label]
