"""Read-only SQL over Parquet artifacts: a file DuckDB cannot read is an ARTIFACT_CORRUPT naming that file."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bib2graph import query
from bib2graph.errors import DataError


def test_a_corrupt_file_among_several_is_the_one_named(tmp_path):
    good, bad = tmp_path / "good.parquet", tmp_path / "bad.parquet"
    pq.write_table(pa.table({"a": [1]}), good)
    bad.write_bytes(b"not parquet" * 10)
    with pytest.raises(DataError) as info:
        query.rows("SELECT * FROM read_parquet([?, ?])", [str(good), str(bad)])
    assert info.value.code == "ARTIFACT_CORRUPT"
    assert info.value.details["files"] == [str(bad)] and str(good) not in info.value.message
    # an error naming no file (here a column that is not there) still names every file of the query
    with pytest.raises(DataError) as info:
        query.rows("SELECT nope FROM read_parquet([?, ?])", [str(good), str(good)])
    assert info.value.details["files"] == [str(good), str(good)]
