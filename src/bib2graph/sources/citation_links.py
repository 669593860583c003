"""The citation links of a files universe, held as arrays for chaining.

A universe of 100,000 works citing 5.8M references held its links as dictionaries of Python lists
(work → references, work → citing works) beside every table of the universe in pandas: the chain job
peaked at 1.7–2.4 GB. Here each reference is one row of two int32 codes (the citing work's place among
the universe's sorted IDs; the cited work's place, or -1 outside the universe), the referenced IDs stay
as the Parquet reader's dictionaries (one string per distinct reference and row group), and a work's
rows are found by binary search over the codes. The answers are those the dictionaries gave, in the
same order: a work's references as its rows come in the table; the works citing it in table order too.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class _Column:
    """A string column as its chunks' dictionaries and indices (a reference cited by a thousand works is
    held once per row group), with each row's place in a sorted list of IDs."""

    def __init__(self, column: pa.ChunkedArray, universe: pa.Array) -> None:
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        self.chunks = [chunk for chunk in column.chunks if len(chunk)]
        self.starts = np.cumsum([0] + [len(chunk) for chunk in self.chunks])
        places = [_places(chunk.dictionary, universe)[chunk.indices.to_numpy(zero_copy_only=False)]
                  for chunk in self.chunks]
        self.places = np.concatenate(places) if places else np.zeros(0, dtype=np.int32)

    def values(self, rows: np.ndarray) -> list[str]:
        """The strings at `rows` (positions in the whole column), in the order given."""
        chunk = np.searchsorted(self.starts, rows, side="right") - 1
        out: list[str] = [""] * len(rows)
        for k in np.unique(chunk):
            at = np.flatnonzero(chunk == k)
            local = pa.array(rows[at] - self.starts[k], pa.int64())
            for i, value in zip(at, self.chunks[k].take(local).to_pylist()):
                out[i] = value
        return out


def _places(values: pa.Array, universe: pa.Array) -> np.ndarray:
    """Each value's place in `universe` (sorted, distinct), -1 where it is not there."""
    return pc.fill_null(pc.index_in(values, value_set=universe), -1).to_numpy(zero_copy_only=False).astype(np.int32)


class Links:
    """Who cites whom in a universe (see the module docstring)."""

    def __init__(self, references: pa.Table, ids: Iterable[str]) -> None:
        """`references`: the universe's `work_id` and `referenced_id` columns; `ids`: its works."""
        self.ids = sorted(ids)
        self._place = {w: i for i, w in enumerate(self.ids)}
        universe = pa.array(self.ids, pa.string())
        citing = _Column(references.column("work_id"), universe).places
        self._referenced = _Column(references.column("referenced_id"), universe)
        cited = self._referenced.places
        order = np.argsort(citing, kind="stable")                 # by citing work, table order within
        self._rows = order[citing[order] >= 0]
        del order
        self._starts = np.searchsorted(citing[self._rows], np.arange(len(self.ids) + 1))
        self._cited = cited[self._rows]
        order = np.argsort(cited, kind="stable")                  # by cited work, table order within
        order = order[(cited[order] >= 0) & (citing[order] >= 0)]
        self._citers = citing[order]
        self._citer_starts = np.searchsorted(cited[order], np.arange(len(self.ids) + 1))

    def _span(self, work_id: str, starts: np.ndarray) -> tuple[int, int]:
        place = self._place.get(work_id)
        return (0, 0) if place is None else (int(starts[place]), int(starts[place + 1]))

    def references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """All works each one references (inside the universe or not)."""
        spans = [self._span(w, self._starts) for w in work_ids]
        rows = np.concatenate([np.arange(a, b) for a, b in spans]) if spans else np.array([], dtype=np.int64)
        values = self._referenced.values(self._rows[rows])
        out, at = {}, 0
        for w, (a, b) in zip(work_ids, spans):
            out[w], at = values[at:at + b - a], at + b - a
        return out

    def reachable_references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The referenced works the universe holds."""
        out = {}
        for w in work_ids:
            a, b = self._span(w, self._starts)
            out[w] = [self.ids[c] for c in self._cited[a:b] if c >= 0]
        return out

    def citing(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The works of the universe citing each one."""
        out = {}
        for w in work_ids:
            a, b = self._span(w, self._citer_starts)
            out[w] = [self.ids[c] for c in self._citers[a:b]]
        return out
