"""String IDs as integer codes and back (steps 1 and 3 of the recipe in builders.py).

Each distinct string is hashed once and everything after that works on integer arrays; where an order
matters, codes follow the sorted order of the IDs (code point order, that of the tables), computed in
Arrow, and string columns are gathered back in Arrow rather than as millions of Python objects.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa_arrow
import pyarrow.compute as pa_compute

from ..tables import Bundle


def corpus_rows(corpus: Bundle, name: str) -> pd.DataFrame:
    """Rows of table `name` whose work is in `corpus.works`, so that a stray row cannot add nodes."""
    df = getattr(corpus, name)
    inside = df["work_id"].isin(corpus.works["work_id"])
    return df if inside.all() else df[inside]


def arrow_strings(values) -> pa_arrow.Array:
    """Strings as one Arrow array: zero-copy from a pandas str Index or Series, converted from objects."""
    if not isinstance(values, (pd.Index, pd.Series)):
        values = np.asarray(values, dtype=object)
    return pa_arrow.array(values, type=pa_arrow.large_string())


def coded_frame(coded: dict[str, tuple], plain: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """A frame whose string columns are ``ids[codes]`` (`coded` maps a name to ``(ids, codes)``), gathered in
    Arrow rather than as millions of Python objects, then the `plain` columns."""
    columns = {}
    for name, (ids, codes) in coded.items():
        columns[name] = arrow_strings(ids).take(pa_arrow.array(np.asarray(codes)))
    for name, values in (plain or {}).items():
        columns[name] = pa_arrow.array(np.asarray(values))
    return pa_arrow.table(columns).to_pandas()


def argsort_ids(ids) -> np.ndarray:
    """The order that sorts string IDs by code point (= UTF-8 byte order, the order of the tables), in Arrow."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    return pa_compute.array_sort_indices(arrow_strings(ids)).to_numpy().astype(np.int64)


def sorted_ids(values: pd.Series) -> pd.Index:
    """The distinct IDs, sorted."""
    ids = pd.Index(pd.unique(values), dtype="str")
    return pd.Index(ids[argsort_ids(ids)])


def lookup(index: pd.Index, values: pd.Series) -> np.ndarray:
    """Position of each value in `index`, -1 when absent; each distinct string is hashed once."""
    codes, uniques = pd.factorize(values)
    where = np.append(index.get_indexer(uniques), -1).astype(np.int64)
    return where[codes]


def factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (first-appearance order) and the distinct values (a str Index)."""
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), pd.Index(uniques, dtype="str")
