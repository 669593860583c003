"""An import's cited references held in DuckDB (sources/reference_table.py) and its tables written from
Arrow (tables.write_arrow): the same tables, whatever the cache and batch sizes, and `write_table`'s bytes."""

from __future__ import annotations

import hashlib
import random

import pandas as pd
import pyarrow as pa
import pytest

from bib2graph import tables
from bib2graph.errors import DataError
from bib2graph.sources import ingest as ingest_module
from bib2graph.sources import reference_table
from bib2graph.sources.ingest import ingest
from bib2graph.tables import REFERENCES, SOURCE_REFS, conform, filter_table, write_arrow, write_table

from .test_reference_identity import _unpacked


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.long
def test_arrow_batches_write_the_bytes_write_table_writes(tmp_path):
    """Two row groups (pyarrow cuts at 2^20 rows), batches that straddle them; then half the works kept."""
    rng = random.Random(7)
    rows = sorted({(f"W{rng.randrange(50_000)}", f"REF:{rng.getrandbits(40):010X}") for _ in range(1_100_000)})
    frame = pd.DataFrame(rows, columns=["work_id", "referenced_id"])
    write_table(frame, REFERENCES, tmp_path / "pandas.parquet")
    batches = pa.Table.from_pandas(frame, preserve_index=False).to_batches(max_chunksize=300_001)
    assert write_arrow(batches, REFERENCES, tmp_path / "arrow.parquet") == len(frame)
    assert _sha(tmp_path / "pandas.parquet") == _sha(tmp_path / "arrow.parquet")
    # the corpus job's filter, a row group at a time: what write_table writes for the rows kept
    keep = sorted(set(frame["work_id"]))[::2]
    assert filter_table(tmp_path / "pandas.parquet", tmp_path / "kept.parquet", REFERENCES,
                        pa.array(keep, pa.large_string())) == frame["work_id"].isin(keep).sum()
    write_table(frame[frame["work_id"].isin(keep)], REFERENCES, tmp_path / "kept-pandas.parquet")
    assert _sha(tmp_path / "kept.parquet") == _sha(tmp_path / "kept-pandas.parquet")


def test_arrow_rows_with_nulls_and_none_at_all_write_write_tables_bytes(tmp_path):
    cited = conform(pd.DataFrame({
        "work_id": ["REF:2", "REF:1"], "identity": ["b", "a"], "raw": ["B 2001", "A 1999"], "first_author": [None, None],
        "year": [None, 1999], "title": ["t", None], "venue": [None, None], "volume": [None, "3"], "page": [None, None],
        "doi": [None, None], "pmid": [None, None], "citing": [1, 0]}), SOURCE_REFS)
    write_table(cited, SOURCE_REFS, tmp_path / "pandas.parquet")
    write_arrow(pa.Table.from_pandas(cited, preserve_index=False).to_batches(), SOURCE_REFS, tmp_path / "arrow.parquet")
    assert _sha(tmp_path / "pandas.parquet") == _sha(tmp_path / "arrow.parquet")
    write_table(cited.iloc[:0], SOURCE_REFS, tmp_path / "empty-pandas.parquet")
    assert write_arrow([], SOURCE_REFS, tmp_path / "empty-arrow.parquet") == 0
    assert _sha(tmp_path / "empty-pandas.parquet") == _sha(tmp_path / "empty-arrow.parquet")


@pytest.mark.parametrize("rows", [[("W2", "W1"), ("W1", "W3")], [("W1", "W3"), ("W1", "W3")], [("W1", None)]],
                         ids=["unsorted", "repeated", "null"])
def test_arrow_rows_that_break_the_schema_are_refused_and_nothing_is_written(tmp_path, rows):
    batch = pa.RecordBatch.from_pydict({"work_id": [r[0] for r in rows], "referenced_id": [r[1] for r in rows]})
    with pytest.raises(DataError) as error:
        write_arrow([batch], REFERENCES, tmp_path / "references.parquet")
    assert error.value.code == "TABLE_INVALID"
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pair")
    return [_unpacked("dse-citan-wos.txt.gz", folder), _unpacked("dse-citan-scopus.csv.gz", folder)]


@pytest.mark.long
def test_a_tiny_cache_and_tiny_batches_give_the_same_import(pair, monkeypatch):
    """References parsed again after the cache is cleared, rows sent to DuckDB a hundred at a time, joined on
    identities rather than their hashes, cited works sorted some 2,000 at a time, the works' rows spilled 7 at a
    time and written in row groups of 1,000: the same works, references, cited works, origins and counts
    (a WoS and a Scopus export of one query)."""
    names = [p.name for p in pair]
    wide = ingest(pair, names)
    monkeypatch.setattr(reference_table, "CACHE", 5)
    monkeypatch.setattr(reference_table, "BATCH", 100)
    monkeypatch.setattr(reference_table, "HASH_JOIN", False)   # as when two identities share a hash
    monkeypatch.setattr(reference_table, "RANGE_ROWS", 2_000)
    monkeypatch.setattr(ingest_module._Rows, "ROWS", 7)
    monkeypatch.setattr(tables, "ROW_GROUP", 1000)
    narrow = ingest(pair, names)
    assert wide.counts == narrow.counts and wide.counts["agreement"]
    assert len(wide.bundle.references) > 1000 and len(wide.cited) > 1000
    for name in ("works", "authorships", "affiliations", "references", "terms"):
        pd.testing.assert_frame_equal(getattr(wide.bundle, name), getattr(narrow.bundle, name))
    pd.testing.assert_frame_equal(wide.cited, narrow.cited)
    pd.testing.assert_frame_equal(wide.origins, narrow.origins)


def test_the_ranges_of_ref_ids_hold_each_id_once_in_order():
    rng = random.Random(3)
    ids = sorted({reference_table.ref_id(str(rng.random())) for _ in range(5_000)} | {"REF:000000000000", "REF:FFFFFFFFFFFF"})
    for rows in (0, 1, 249_999, 250_001, 3_000_000, 10**12):
        ranges = reference_table._id_ranges(rows)
        parts = len(ranges)   # enough parts for RANGE_ROWS each, no more, and at most one per 3 hex digits
        assert 1 <= parts <= 4096 and (parts == 4096 or parts * reference_table.RANGE_ROWS >= rows)
        assert parts == 1 or (parts - 1) * reference_table.RANGE_ROWS < rows
        assert [i for low, high in ranges for i in ids if low <= i < high] == ids


def test_a_reference_with_no_key_counts_as_unparsed_each_time_it_is_met(tmp_path):
    """"CATIA" (software cited by name) and "[Anonymous], BIORXIV" give no author–year key: ``raw:`` rows
    of cited.parquet, counted and listed as unparsed at every record citing them, the first too (the
    count once depended on whether the raw string had been met before)."""
    from .test_ingest import _wos

    records = [{"AU": "Smith, J", "TI": f"A paper about graphs number {n}", "PY": "2019", "SO": "J TESTS",
                "UT": f"WOS:00000000000000{n}", "CR": ["[Anonymous], BIORXIV", "CATIA", "Lee K, 2010, J TESTS, V12, P100"]}
               for n in (1, 2)]
    found = ingest([_wos(tmp_path / "savedrecs.txt", records)], ["savedrecs.txt"])
    refs = found.counts["references"]
    assert refs["total"] == 6 and refs["unparsed"] == 4
    assert [(r["line"], r["reference"]) for r in refs["unparsed_shown"]] == [
        (9, "[Anonymous], BIORXIV"), (10, "CATIA"), (20, "[Anonymous], BIORXIV"), (21, "CATIA")]
    assert found.cited["identity"].str.startswith("raw:").sum() == 2
