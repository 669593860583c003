"""The typed tables' helpers that every job leans on."""

from __future__ import annotations

import pandas as pd
import pytest

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


@pytest.mark.long
def test_the_tables_an_import_reads_back_unchecked_are_the_checked_ones(shared_data, tmp_path):
    """`ingest` reads its just-written tables without pandera (`write_arrow` checked every row): each is
    the frame a checked read gives, for real files of several kinds and for an empty one."""
    from bib2graph.skips import Skips
    from bib2graph.sources.ingest import SCHEMAS, ingest
    from bib2graph.tables import BUNDLE_TABLES

    (tmp_path / "empty.bib").write_bytes(b"")
    files = [shared_data / "wos" / "wos_plaintext.txt", shared_data / "ris" / "litstudy-ieee-example.ris",
             shared_data / "synergy" / "Sep_2021" / "works_1.zip"]
    for paths in ([p] for p in files + [tmp_path / "empty.bib"]):
        found = ingest(paths, [p.name for p in paths], skips=Skips())
        tables = {**{n: getattr(found.bundle, n) for n in BUNDLE_TABLES}, "cited": found.cited,
                  "origins": found.origins}
        for name, frame in tables.items():
            pd.testing.assert_frame_equal(frame, conform(frame.copy(), SCHEMAS[name]), obj=f"{paths[0].name} {name}")


def test_a_table_missing_a_column_says_so(tmp_path):
    """Not as the nulls conforming would have put there ("work_id: not_nullable (value nan)")."""
    from bib2graph.errors import DataError
    from bib2graph.tables import SEEDS, read_table

    path = tmp_path / "seeds.parquet"
    pd.DataFrame({"work_id": ["W1"], "other": [1]}).to_parquet(path)
    with pytest.raises(DataError) as caught:
        read_table(path, SEEDS)
    assert caught.value.code == "ARTIFACT_CORRUPT" and "seeded_by missing" in caught.value.message
    assert "work_id" not in caught.value.message.split("column(s)")[1].split("missing")[0]
