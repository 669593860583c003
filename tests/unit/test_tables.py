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


def test_the_arrow_schema_of_a_table_is_what_pyarrow_derives_from_its_frame():
    """`arrow_schema` (kept per schema) is the Arrow schema, pandas metadata and all, that pyarrow gives a
    conformed frame of that schema, for every table kind and for parts made on the fly."""
    import pyarrow as pa

    from bib2graph.networks.schema import EDGES, NODES
    from bib2graph.tables import BUNDLE_TABLES, ORIGINS, SOURCE_REFS, arrow_schema

    schemas = [*BUNDLE_TABLES.values(), SOURCE_REFS, ORIGINS, NODES, EDGES,
               part_schema(WORKS, ["work_id", "year"]), part_schema(WORKS, ["work_id", "title"])]
    for schema in schemas:
        derived = pa.Schema.from_pandas(conform(pd.DataFrame({c: [] for c in schema.columns}), schema),
                                        preserve_index=False)
        assert arrow_schema(schema).equals(derived, check_metadata=True), schema.name
