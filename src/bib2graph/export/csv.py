"""Node and edge tables as UTF-8 CSV, safe to open in a spreadsheet (no formula injection).

Written column-wise in Arrow, a chunk of rows at a time, with the bytes pandas' ``to_csv`` gives
(floats as ``repr``, missing values empty, fields with a comma, quote or newline quoted, quotes doubled).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .text import arrow_strings, chunks, float_repr, int_text, write_parts

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_FIRST = pa.array(_FORMULA_START)
_NEEDS_QUOTES = (",", '"', "\n")
#: cells from which a text column is worth escaping by its distinct values
_SHARED_MIN = 1 << 16


def _any_of(text: pa.Array, needles: tuple[str, ...]):
    """Whether each cell holds any of `needles` (plain substring searches, cheaper than one regex)."""
    found = pc.match_substring(text, needles[0])
    for needle in needles[1:]:
        found = pc.or_(found, pc.match_substring(text, needle))
    return found


def defuse(value):
    """Prefix a text cell that a spreadsheet would run as a formula with a single quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _text_cells(values: pd.Series) -> pa.Array:
    """Text cells defused (a leading ``= + - @`` tab or CR gets a single quote) and quoted where needed."""
    if values.dtype == object and not all(isinstance(v, str) for v in values.dropna()):
        values = values.map(lambda v: v if pd.isna(v) or isinstance(v, str) else str(v))   # as pandas writes them
    text = arrow_strings(values)
    if len(text) >= _SHARED_MIN:   # an edge table's node IDs: each distinct cell escaped once
        coded = pc.dictionary_encode(text)
        if 2 * len(coded.dictionary) <= len(text):
            return _escaped(coded.dictionary).take(coded.indices)
    return _escaped(text)


def _escaped(text: pa.Array) -> pa.Array:
    """Each cell defused and quoted as `_text_cells` says."""
    formula = pc.is_in(pc.utf8_slice_codeunits(text, 0, 1), value_set=_FORMULA_FIRST)   # cheaper than a regex
    if pc.any(formula).as_py():
        text = pc.if_else(formula, pc.binary_join_element_wise("'", text, ""), text)
    quote = _any_of(text, _NEEDS_QUOTES)
    if pc.any(quote).as_py():
        quoted = pc.binary_join_element_wise('"', pc.replace_substring(text, '"', '""'), '"', "")
        text = pc.if_else(quote, quoted, text)
    return text


def _cells(values: pd.Series) -> pa.Array:
    """One column's CSV cells (nulls: empty), as pandas writes them."""
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype) and not values.isna().any():
        return pa.array(np.where(values.to_numpy(dtype=bool), "True", "False"), type=pa.string())
    if pd.api.types.is_integer_dtype(dtype):
        return int_text(values)
    if pd.api.types.is_float_dtype(dtype):
        x = values.to_numpy(dtype=np.float64, na_value=np.nan)
        return pc.if_else(pa.array(np.isnan(x)), pa.nulls(len(x), pa.string()), float_repr(x))
    return _text_cells(values)


def csv_parts(df: pd.DataFrame):
    """The CSV text of `df` in parts: the header, then each chunk of rows."""
    yield ",".join(_text_cells(pd.Series(list(df.columns), dtype=object)).to_pylist()) + "\n"
    for part in chunks(len(df)):
        rows = df.iloc[part]
        cells = [pc.fill_null(_cells(rows[c]), "") for c in df.columns]
        yield pc.binary_join_element_wise(pc.binary_join_element_wise(*cells, ","), "\n", "")


def frame_text(df: pd.DataFrame) -> str:
    """The CSV text of `df` with every text cell defused."""
    return "".join(p if isinstance(p, str) else "".join(p.to_pylist()) for p in csv_parts(df))


def write_frame(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write `df` as CSV, atomically."""
    write_parts(path, csv_parts(df))


def write_csv(network, nodes_path: str | os.PathLike[str], edges_path: str | os.PathLike[str]) -> None:
    """Write the node table and the edge table (columns as in docs/networks.md)."""
    write_frame(network.nodes, nodes_path)
    write_frame(network.edges, edges_path)
