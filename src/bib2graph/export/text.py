"""Column-wise text for the exporters: numbers, node codes and lines built in Arrow, never one Python
object per edge.

Each helper turns a column into an Arrow string array whose cells equal, byte for byte, what Python's own
formatting gives (`repr` of a float, ``%.10g``, ``str`` of an int), so that exporters written this way
produce the files the per-row code produced. Lines are joined in Arrow too, and a chunk's text is the data
buffer of its string array, written as it is.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import atomic_path

#: rows per chunk of text: bounded memory whatever the table's length
CHUNK = 1 << 20
#: nodes per chunk (a node's lines may hold an abstract)
NODE_CHUNK = 1 << 16

_TINY = r"^(?P<s>-?)0\.(?P<z>0{4,})(?P<d>\d)(?P<r>\d*)$"  # Arrow's positional form of |x| < 1e-4
_EXP = r"^(?P<s>-?)(?P<d>\d)(?:\.(?P<r>\d+))?e(?P<e>[+-])(?P<p>\d+)$"  # Arrow's exponent form


def _strings(values: Iterable) -> pa.Array:
    return pa.array(values, type=pa.string())


def _replace(text: pa.Array, mask: np.ndarray, cells) -> pa.Array:
    """`text` with the cells at `mask` (in order) replaced by `cells`."""
    if not mask.any():
        return text
    return pc.replace_with_mask(text, pa.array(mask), _strings(cells) if not isinstance(cells, pa.Array) else cells)


def _python(values: np.ndarray, mask: np.ndarray, text: pa.Array, fmt) -> pa.Array:
    """`text` with the cells at `mask` replaced by `fmt` of the value, in Python (the rare cases)."""
    return _replace(text, mask, [fmt(v) for v in values[mask].tolist()])


def _tiny(text: pa.Array) -> pa.Array:
    """Python's exponent notation (``1.5e-05``) from Arrow's text of values below 1e-4 (``0.000015`` or
    ``1.5e-5``)."""
    positional = pc.extract_regex(text, _TINY)   # 0.0000ddd → d.dde-0N
    if pc.any(pc.is_valid(positional)).as_py():
        sign, zeros, first, rest = (pc.struct_field(positional, [k]) for k in range(4))
        power = pc.utf8_lpad(pc.cast(pc.add(pc.utf8_length(zeros), 1), pa.string()), 2, "0")
        mantissa = pc.if_else(pc.equal(rest, ""), first, pc.binary_join_element_wise(first, ".", rest, ""))
        text = pc.coalesce(pc.binary_join_element_wise(sign, mantissa, "e-", power, ""), text)
    exponent = pc.extract_regex(text, _EXP)   # d.ddde-N → d.ddde-0N
    if pc.any(pc.is_valid(exponent)).as_py():
        sign, first, rest, direction, power = (pc.struct_field(exponent, [k]) for k in range(5))
        rest = pc.coalesce(rest, "")
        mantissa = pc.if_else(pc.equal(rest, ""), first, pc.binary_join_element_wise(first, ".", rest, ""))
        text = pc.coalesce(pc.binary_join_element_wise(sign, mantissa, "e", direction,
                                                       pc.utf8_lpad(power, 2, "0"), ""), text)
    return text


def _integral(x: np.ndarray, limit: float) -> np.ndarray:
    """Integral values below `limit` in magnitude, negative zero excepted (Python writes its sign)."""
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & (x == np.trunc(x)) & (np.abs(x) < limit) & ~((x == 0) & np.signbit(x))


def float_repr(values) -> pa.Array:
    """``repr(float(x))`` of each value ("1.0", "0.1", "1e-05", "nan"): Arrow's shortest round-trip digits
    (the same digits as Python's) in Python's notation; the few values Arrow writes with an exponent
    above 1e-4 go through Python."""
    x = np.asarray(values, dtype=np.float64)
    integral = _integral(x, 1e16)
    if integral.all():   # raw counts and weights: integers with ".0", no float text to make and replace
        return pc.binary_join_element_wise(pc.cast(pa.array(x.astype(np.int64)), pa.string()), ".0", "")
    text = pc.cast(pa.array(x), pa.string())
    text = _replace(text, integral, pc.binary_join_element_wise(
        pc.cast(pa.array(x[integral].astype(np.int64)), pa.string()), ".0", ""))
    with np.errstate(invalid="ignore"):
        tiny = np.isfinite(x) & (x != 0) & (np.abs(x) < 1e-4)
        rare = ~np.isfinite(x) | (np.abs(x) >= 1e16) | ((x == 0) & np.signbit(x))
    rare |= ~tiny & pc.match_substring(text, "e").to_numpy(zero_copy_only=False)   # Arrow's 1.5e+11
    text = _replace(text, tiny, _tiny(pc.filter(text, pa.array(tiny))))
    return _python(x, rare, text, repr)


def _g10(value: float) -> str:
    return f"{value:.10g}"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.10g}"


def number_g10(values, integers: bool = False) -> pa.Array:
    """``f"{x:.10g}"`` of each value; with `integers`, integral values as ``str(int(x))`` instead (VOSviewer's
    numbers). Integral values are formatted in Arrow, the others in Python once per distinct value."""
    x = np.asarray(values, dtype=np.float64)
    integral = _integral(x, 2.0 ** 63 if integers else 1e10)
    text = pc.cast(pa.array(np.where(integral, x, 0).astype(np.int64)), pa.string())
    if integral.all():
        return text
    distinct, inverse = np.unique(x[~integral], return_inverse=True)
    fmt = _number if integers else _g10
    cells = np.asarray([fmt(v) for v in distinct.tolist()], dtype=object)[inverse.ravel()]
    return _replace(text, ~integral, cells)


def int_text(values) -> pa.Array:
    """``str(int(x))`` of each value; nulls (pandas' NA) stay null."""
    return pc.cast(pa.array(values, type=pa.int64(), from_pandas=True), pa.string())


def lines(columns: list, sep: str = "\t", end: str = "\n") -> pa.Array:
    """One line per row: the cells of `columns` (string arrays or constant strings) joined by `sep`."""
    return pc.binary_join_element_wise(*columns, end, "") if sep == "" else \
        pc.binary_join_element_wise(pc.binary_join_element_wise(*columns, sep), end, "")


def text_bytes(text: pa.Array) -> memoryview:
    """The concatenated text of a string array (nulls are empty): its data buffer, not a copy."""
    text = pc.fill_null(text, "") if text.null_count else text
    if len(text) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int32 if text.type == pa.string() else np.int64,
                            count=len(text) + 1, offset=text.offset * (4 if text.type == pa.string() else 8))
    return memoryview(text.buffers()[2])[offsets[0]:offsets[-1]]


def node_codes(node_ids, values) -> np.ndarray:
    """The position of each of `values` among `node_ids` (0-based; -1 when absent), hashed in Arrow."""
    found = pc.index_in(arrow_strings(values), value_set=arrow_strings(node_ids))
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def string_array(values) -> pa.Array | None:
    """The column as an Arrow string array, nulls where a cell is missing; None where a cell is neither
    text nor missing, or holds a surrogate (which UTF-8 cannot): the callers' Python path."""
    try:
        text = pa.array(values, from_pandas=True) if not isinstance(values, pa.Array) else values
    except (pa.ArrowException, UnicodeEncodeError):
        return None
    text = _whole(text)
    if pa.types.is_null(text.type) or pa.types.is_string(text.type) or pa.types.is_large_string(text.type):
        return text.cast(pa.string())
    return None


def _whole(array):
    """An Arrow array in one piece: `pa.array` of a pandas column backed by a chunked Arrow array (a table
    read from Parquet, such as a 522k-node network's labels) is chunked too, and the mask kernels the
    writers use (`text_columns.where`) take no chunked arrays."""
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def arrow_strings(values) -> pa.Array:
    """A column as an Arrow string array (pandas' Arrow-backed strings without a copy)."""
    array = _whole(values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values, from_pandas=True))
    return array.cast(pa.string()) if array.type != pa.string() else array


def chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    """Row slices of at most `size` rows covering 0..n."""
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


def node_blocks(cells: list, n: int) -> Iterator[pa.Array]:
    """One XML block per node: `cells` (strings, and string arrays of n rows) joined row by row, a
    `NODE_CHUNK` of rows at a time so that string arrays stay far below Arrow's 2 GB per array; a null
    cell (an attribute the node lacks) leaves its part out."""
    for part in chunks(n, NODE_CHUNK):
        yield pc.binary_join_element_wise(*(c[part] if isinstance(c, pa.Array) else c for c in cells), "",
                                          null_handling="skip")


def write_parts(path: str | os.PathLike[str], parts: Iterable) -> None:
    """Write the parts (str, bytes or string arrays) one after another, atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        for part in parts:
            if isinstance(part, str):
                fh.write(part.encode("utf-8"))
            elif isinstance(part, pa.Array):
                fh.write(text_bytes(part))
            else:
                fh.write(part)
