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


#: edges read from Parquet at a time by `edge_codes`
EDGE_BATCH = 1 << 20


def edge_codes(path, node_ids) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The source and target of every edge of an edges table as int32 positions among `node_ids`, and its
    weights, read from Parquet a batch at a time: the string IDs are never held whole, so the edges cost
    16 bytes each, not the ~115 of a pandas edge table (the layout job at 41.6M edges). An ID that is not
    a node, or a weight that is missing or not positive, is a DataError: the table is not the network's."""
    import pyarrow.parquet as pq

    from ..errors import DataError
    from ..tables import parquet_errors

    ids = arrow_strings(node_ids)
    with parquet_errors(path):
        table = pq.ParquetFile(path, pre_buffer=False)
        m = table.metadata.num_rows
        source, target, weight = np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m)
        at = 0
        for batch in table.iter_batches(EDGE_BATCH, columns=["source", "target", "weight"]):
            part = slice(at, at + batch.num_rows)
            for codes, name in ((source, "source"), (target, "target")):
                found = pa_compute.index_in(batch.column(name), value_set=ids)
                if found.null_count:
                    raise DataError(f"artifact {path}: an edge's {name} is not a node of the network",
                                    code="ARTIFACT_CORRUPT")
                codes[part] = found.to_numpy(zero_copy_only=False)
            weight[part] = batch.column("weight").to_numpy(zero_copy_only=False)
            at += batch.num_rows
    pa_arrow.default_memory_pool().release_unused()   # the batches' pages, which mimalloc would keep
    if not (weight > 0).all():   # a null reads as NaN
        raise DataError(f"artifact {path}: an edge's weight is missing or not positive", code="ARTIFACT_CORRUPT")
    return source, target, weight
