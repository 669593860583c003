"""The typed tables' helpers that every job leans on."""

from __future__ import annotations

import pandas as pd

from bib2graph.tables import WORKS, conform, empty, part_schema


def test_an_empty_table_is_a_fresh_frame_of_its_own_schema_each_time():
    """`empty` keeps one checked frame per schema; callers get copies, and a schema made on the fly
    (a part of a table's columns) gets its own columns, not a cached frame of another schema."""
    first = empty(WORKS)
    first["added_by_a_caller"] = pd.Series(dtype=object)
    second = empty(WORKS)
    assert "added_by_a_caller" not in second.columns
    pd.testing.assert_frame_equal(second, conform(pd.DataFrame({c: [] for c in WORKS.columns}), WORKS))
    for columns in (["work_id", "title"], ["work_id", "year"]):
        part = empty(part_schema(WORKS, columns))
        assert list(part.columns) == columns and len(part) == 0
    assert str(empty(part_schema(WORKS, ["work_id", "year"]))["year"].dtype) == str(second["year"].dtype)
