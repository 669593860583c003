"""The works of an OpenAlex snapshot (`source.kind: snapshot`): one partition read into bundle tables
(the scatter: one `snapshot_part` job each), then the partitions gathered into the universe the
`sources` job writes, the same tables a files source gives, so that seed, chain and corpus read them alike.

A partition's works are normalised as every OpenAlex Work object is (`records.work_rows`: the 2023 and
the current schema alike) and selected as `source.snapshot` says (publication years, topics, concepts, a
term expression: the universe a review seeds and chains in, kept small enough for one machine). A work found
in several partitions keeps its record with the latest `updated_date` (on a tie, the later partition's):
OpenAlex moves a changed work to the partition of the day it changed, and an older copy can linger in a
snapshot synced incrementally.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pyarrow as pa_arrow
import pyarrow.parquet as pq

from ..atomic import atomic_path
from ..errors import DataError
from ..expressions import compile_expression, normalize_text
from ..ids import short_id
from ..skips import Skips
from ..tables import BUNDLE_TABLES, ORIGINS, SOURCE_REFS, arrow_schema, empty
from .exports.entries import WORK_FIELDS
from .exports.readers import OPENALEX_JSON
from .files import read_jsonl_gz
from .records import work_rows, work_year


def _year_selected(year: int | None, selection: dict[str, Any]) -> bool:
    low, high = selection.get("year_min"), selection.get("year_max")
    if low is None and high is None:
        return True
    return year is not None and (low is None or year >= low) and (high is None or year <= high)


def selector(selection: dict[str, Any]) -> Callable[[dict[str, list[dict[str, Any]]]], str | None]:
    """A function a work's rows → the first criterion of `source.snapshot` it fails (topics, concepts,
    include), None when it passes them all; the term expression is the corpus filter's (expressions.py)."""
    wanted = {field: {short_id(v) or v for v in selection.get(field) or []} for field in ("topics", "concepts")}
    include = (compile_expression(selection["include"], "source.snapshot.include")
               if selection.get("include") else None)

    def failed(rows: dict[str, list[dict[str, Any]]]) -> str | None:
        for field, ids in wanted.items():
            if ids and not any(t["field"] == field and t["term_id"] in ids for t in rows["terms"]):
                return field
        if include is not None:
            work = rows["works"][0]
            text = " ".join(x for x in (work["title"], work["abstract"], *(t["term"] for t in rows["terms"]))
                            if isinstance(x, str))
            if not include(normalize_text(text)):
                return "include"
        return None
    return failed


def _fields(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The fields the record gave, as the files source's origins name them."""
    work = rows["works"][0]
    given = [name for name in WORK_FIELDS if work[name] is not None and work[name] is not False and work[name] != ""]
    given += [label for label, table in (("authors", "authorships"), ("references", "references"),
                                         ("terms", "terms")) if rows[table]]
    return ",".join(given)


BATCH = 20_000   # works a partition job holds before it writes them out


def read_partition(path: str | Path, name: str, selection: dict[str, Any], skips: Skips,
                   folder: str | Path) -> dict[str, Any]:
    """The selected works of one partition (`name` is how messages call it) written to `folder` as bundle
    tables and origins; returns the counts. Works are written in batches as they are read and the latest
    record of each is picked by DuckDB at the end (a real partition is ~2 GB gzipped: never all in memory)."""
    failed, left_out = selector(selection), Counter()
    records = 0
    with _Batches(Path(folder)) as batches:
        for line, work in read_jsonl_gz(path, name, skips):
            records += 1
            if not _year_selected(work_year(work), selection):   # before the rows: most may be left out
                left_out["year"] += 1
                continue
            rows = work_rows(work)   # never None: the reader passed over works without an ID
            criterion = failed(rows)
            if criterion:
                left_out[criterion] += 1
                continue
            wid = rows["works"][0]["work_id"]
            rows["origins"] = [{"work_id": wid, "file": name, "format": OPENALEX_JSON, "record": line, "line": line,
                                "native_id": wid, "primary": True, "fields": _fields(rows)}]
            batches.add(line, rows)
        works = batches.finish()
    outside = sum(left_out.values())
    return {"records": records, "works": works, "outside_selection": outside,
            "outside_by": dict(sorted(left_out.items())), "duplicates": records - outside - works}


class _Batches:
    """A partition's rows written to Parquet a batch at a time (each row with the line of its record),
    then, per table, the rows of each work's latest record (the latest `updated_date`; on a tie the
    earlier line) sorted by the table's key, streamed from DuckDB to the table's file."""

    TABLES = {**BUNDLE_TABLES, "origins": ORIGINS}

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.raw = folder / ".raw"
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in self.TABLES}
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.pending = 0
        self.final = {name: self.arrow_schema(schema) for name, schema in self.TABLES.items()}
        self.batch = {name: pa_arrow.schema([*arrow, pa_arrow.field("_line", pa_arrow.int64()),
                                             *([pa_arrow.field("_updated", pa_arrow.string())] if name == "works" else [])])
                      for name, arrow in self.final.items()}

    def __enter__(self) -> "_Batches":
        shutil.rmtree(self.raw, ignore_errors=True)
        self.raw.mkdir(parents=True)
        return self

    def __exit__(self, *exc) -> None:
        for writer in self.writers.values():
            writer.close()
        shutil.rmtree(self.raw, ignore_errors=True)

    @staticmethod
    def arrow_schema(schema) -> pa_arrow.Schema:
        """The Arrow types `write_table` gives the table."""
        return arrow_schema(schema).remove_metadata()

    def add(self, line: int, rows: dict[str, list[dict[str, Any]]]) -> None:
        work = rows["works"][0]
        rows["works"] = [{**work, "_updated": work["updated_date"] or ""}]
        for name in self.TABLES:
            self.rows[name].extend({**row, "_line": line} for row in rows[name])
        self.pending += 1
        if self.pending >= BATCH:
            self.flush()

    def flush(self) -> None:
        for name, arrow in self.batch.items():
            if name not in self.writers:
                self.writers[name] = pq.ParquetWriter(self.raw / f"{name}.parquet", arrow)
            self.writers[name].write_table(pa_arrow.Table.from_pylist(self.rows[name], schema=arrow))
            self.rows[name] = []
        self.pending = 0

    def finish(self) -> int:
        """Write each table's latest-record rows sorted by its key; the number of works."""
        self.flush()
        for writer in self.writers.values():
            writer.close()
        self.writers = {}
        import duckdb

        with duckdb.connect(":memory:") as con:
            con.execute(f"SET temp_directory = '{self.raw / 'spill'}'")   # our results/snapshot/<key>: no quotes
            con.execute(f"""CREATE TEMP TABLE winner AS SELECT work_id, arg_max(_line, (_updated, -_line)) AS _line
                            FROM read_parquet('{self.raw / 'works.parquet'}', hive_partitioning = false) GROUP BY work_id""")
            for name, schema in self.TABLES.items():
                key = ", ".join(f'"{k}"' for k in schema.metadata["key"])
                query = con.sql(f"""SELECT t.* EXCLUDE (_line{', _updated' if name == 'works' else ''})
                                    FROM read_parquet('{self.raw / name}.parquet', hive_partitioning = false) t
                                    SEMI JOIN winner w ON t.work_id = w.work_id AND t._line = w._line
                                    ORDER BY {key}""")
                with atomic_path(self.folder / f"{name}.parquet") as tmp:
                    with pq.ParquetWriter(tmp, self.final[name], compression="zstd") as writer:
                        for batch in query.to_arrow_reader(batch_size=BATCH * 10):
                            writer.write_batch(batch.cast(self.final[name]))
            return con.execute("SELECT count(*) FROM winner").fetchone()[0]


def gather(parts: list[tuple[str, Path]], write: Callable[[str, pd.DataFrame], None]) -> dict[str, Any]:
    """The universe of the partitions `parts` ((key, folder of its tables), oldest first), handed to
    `write` one table at a time (each bundle table, "cited": none, every reference of a snapshot being an
    OpenAlex ID, and "origins"), so that only the largest is ever in memory; returns the counts. DuckDB
    picks each work's latest record over the partitions' Parquet files, spilling to disk as it needs."""
    if not parts:
        raise DataError("source.snapshot.path holds no works partitions (data/jsonl/works/updated_date=…/part_N.gz "
                        "or the pre-2026 data/works/…, or a manifest listing them)", code="FILE_MISSING",
                        details={"place": "source.snapshot.path"})
    import duckdb

    with duckdb.connect(":memory:") as con:
        con.execute("CREATE TEMP TABLE part_order (folder VARCHAR, part_no INTEGER)")
        con.executemany("INSERT INTO part_order VALUES (?, ?)", [[str(Path(f)), i] for i, (_, f) in enumerate(parts)])

        def rows_of(name: str) -> str:
            files = ", ".join(f"'{Path(f) / name}'" for _, f in parts)   # our results/snapshot/<key>: no quotes
            return (f"(SELECT t.*, o.part_no AS _order FROM read_parquet([{files}], filename = true, hive_partitioning = false) t "
                    f"JOIN part_order o ON parse_dirpath(t.filename) = o.folder)")

        con.execute(f"""CREATE TEMP TABLE winner AS SELECT work_id, arg_max(_order, (coalesce(updated_date, ''),
                        _order)) AS _order FROM {rows_of('works.parquet')} GROUP BY work_id""")
        sizes = {}
        for name in [*BUNDLE_TABLES, "origins"]:
            table = con.sql(f"""SELECT t.* EXCLUDE (filename, _order) FROM {rows_of(name + '.parquet')} t
                                SEMI JOIN winner w ON t.work_id = w.work_id AND t._order = w._order""")
            table = table.to_arrow_table().to_pandas()
            sizes[name] = len(table)
            write(name, table)   # the writer conforms it to its schema
            del table
        records = dict(con.execute(f"SELECT _order, count(*) FROM {rows_of('works.parquet')} GROUP BY _order").fetchall())
        won = dict(con.execute("SELECT _order, count(*) FROM winner GROUP BY _order").fetchall())
    write("cited", empty(SOURCE_REFS))
    files = [{"file": key, "records": records.get(i, 0), "duplicates": records.get(i, 0) - won.get(i, 0)}
             for i, (key, _) in enumerate(parts)]
    return {"records": sum(records.values()), "works": sizes["works"], "partitions": len(parts), "files": files,
            "references": {"total": sizes["references"], "unparsed": 0, "with_doi": 0, "identities": 0,
                           "unparsed_shown": []}}
