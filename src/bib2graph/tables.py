"""The typed tables of bib2graph: one pandera schema per table, checked when written and when read.

Works are normalised into five long tables that share `work_id` (a short OpenAlex ID such as
``W2741809807`` when known). Authorship order is a column (`position`), never a list order that a
merge could sort away. Every table is written sorted by its key columns, so equal inputs give
byte-identical Parquet files.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import pandas as pd
import pandera.pandas as pa
import numpy as np
import pyarrow as pa_arrow
import pyarrow.compute as pa_compute
import pyarrow.parquet as pq

from .atomic import atomic_path
from .errors import DataError

TEXT = pa.Column(str, nullable=False)
# OpenAlex's keywords, topics and concepts; exports' author keywords and indexer keywords (WoS Keywords
# Plus, Scopus Index Keywords).
TERM_FIELDS = ["keywords", "topics", "concepts", "author_keywords", "index_keywords", "mesh"]
OPTIONAL_TEXT = pa.Column(str, nullable=True, required=True)


def table_schema(name: str, columns: dict[str, pa.Column], key: list[str]) -> pa.DataFrameSchema:
    """A strict, ordered, coerced schema, unique on `key`, which `conform` also sorts rows by."""
    return pa.DataFrameSchema(columns, name=name, strict=True, ordered=True, coerce=True,
                              unique=key, metadata={"key": key})


WORKS = table_schema("works", {
    "work_id": TEXT,
    "doi": OPTIONAL_TEXT,
    "pmid": OPTIONAL_TEXT,
    "title": OPTIONAL_TEXT,
    "year": pa.Column("Int64", nullable=True),
    "publication_date": OPTIONAL_TEXT,
    "type": OPTIONAL_TEXT,
    "language": OPTIONAL_TEXT,
    "venue_id": OPTIONAL_TEXT,
    "venue": OPTIONAL_TEXT,
    "issn": OPTIONAL_TEXT,
    "cited_by_count": pa.Column("Int64", pa.Check.ge(0), nullable=True),
    "n_references": pa.Column("Int64", pa.Check.ge(0)),
    "is_retracted": pa.Column(bool),
    "abstract": OPTIONAL_TEXT,
    "updated_date": OPTIONAL_TEXT,
}, ["work_id"])

AUTHORSHIPS = table_schema("authorships", {
    "work_id": TEXT,
    "position": pa.Column("Int64", pa.Check.ge(0)),
    "author_id": OPTIONAL_TEXT,
    "author_name": OPTIONAL_TEXT,
    "author_position": OPTIONAL_TEXT,
}, ["work_id", "position"])

AFFILIATIONS = table_schema("affiliations", {
    "work_id": TEXT,
    "position": pa.Column("Int64", pa.Check.ge(0)),
    "institution_id": TEXT,
    "institution_name": OPTIONAL_TEXT,
    "country_code": OPTIONAL_TEXT,
}, ["work_id", "position", "institution_id"])

REFERENCES = table_schema("references", {
    "work_id": TEXT,
    "referenced_id": TEXT,
}, ["work_id", "referenced_id"])

TERMS = table_schema("terms", {
    "work_id": TEXT,
    "field": pa.Column(str, pa.Check.isin(TERM_FIELDS)),
    "term_id": TEXT,
    "term": OPTIONAL_TEXT,
    "score": pa.Column(float, nullable=True),
}, ["work_id", "field", "term_id"])

SEEDS = table_schema("seeds", {
    "work_id": TEXT,
    "seeded_by": TEXT,
}, ["work_id"])

CANDIDATES = table_schema("candidates", {
    "work_id": TEXT,
    "round": pa.Column("Int64", pa.Check.ge(1)),
    "direction": pa.Column(str, pa.Check.isin(["backward", "forward", "both", "monitor"])),
    "via": TEXT,
    "links": pa.Column("Int64", pa.Check.ge(0)),
    "score": pa.Column(float),
    "admitted": pa.Column(bool),
}, ["work_id"])

SCREENING = table_schema("screening", {
    "work_id": TEXT,
    "origin": pa.Column(str, pa.Check.isin(["seed", "chain", "monitor"])),
    "round": pa.Column("Int64", pa.Check.ge(0)),
    "via": OPTIONAL_TEXT,
    "duplicate_of": OPTIONAL_TEXT,
    "filter_verdict": OPTIONAL_TEXT,
    "excluded_by": OPTIONAL_TEXT,
    "decision": pa.Column(str, pa.Check.isin(["accept", "reject"]), nullable=True),
    "decision_reason": OPTIONAL_TEXT,
    "included": pa.Column(bool),
}, ["work_id"])

#: The works the pool cites (results/chain/cited/works.parquet): what node labels of works outside the
#: corpus are made of. `citing` = pooled works citing it; `in_pool` = its metadata came from the pool.
CITED = table_schema("cited", {
    "work_id": TEXT,
    "first_author": OPTIONAL_TEXT,
    "year": pa.Column("Int64", nullable=True),
    "title": OPTIONAL_TEXT,
    "venue": OPTIONAL_TEXT,
    "doi": OPTIONAL_TEXT,
    "citing": pa.Column("Int64", pa.Check.ge(0)),
    "in_pool": pa.Column(bool),
}, ["work_id"])

#: The cited references of export files that resolved to no work of the universe
#: (results/sources/cited.parquet): one row per cited work, ``REF:`` + a hash of its `identity`.
SOURCE_REFS = table_schema("source_refs", {
    "work_id": TEXT,
    "identity": TEXT,
    "raw": TEXT,
    "first_author": OPTIONAL_TEXT,
    "year": pa.Column("Int64", nullable=True),
    "title": OPTIONAL_TEXT,
    "venue": OPTIONAL_TEXT,
    "volume": OPTIONAL_TEXT,
    "page": OPTIONAL_TEXT,
    "doi": OPTIONAL_TEXT,
    "pmid": OPTIONAL_TEXT,
    "citing": pa.Column("Int64", pa.Check.ge(0)),
}, ["work_id"])

#: Where each work of a files source came from (results/sources/origins.parquet): one row per record
#: read; `primary` marks the record whose ID the work took, `fields` what each record supplied.
ORIGINS = table_schema("origins", {
    "work_id": TEXT,
    "file": TEXT,
    "format": TEXT,
    "record": pa.Column("Int64", pa.Check.ge(1)),
    "line": pa.Column("Int64", pa.Check.ge(0)),
    "native_id": TEXT,
    "primary": pa.Column(bool),
    "fields": pa.Column(str),
}, ["work_id", "file", "record"])

#: Screening replayed on a labelled review (results/screening/simulation.parquet, `b2g simulate`): each
#: run's order, one row per work screened after the priors; the rule's p-value after that work.
SIMULATION = table_schema("simulation", {
    "seed": pa.Column("Int64", pa.Check.ge(0)),
    "step": pa.Column("Int64", pa.Check.ge(1)),
    "work_id": TEXT,
    "label": pa.Column("Int64", pa.Check.isin([0, 1])),
    "found": pa.Column("Int64", pa.Check.ge(0)),
    "recall": pa.Column(float, pa.Check.in_range(0, 1)),
    "p_value": pa.Column(float, pa.Check.in_range(0, 1)),
}, ["seed", "step"])

BUNDLE_TABLES = {"works": WORKS, "authorships": AUTHORSHIPS, "affiliations": AFFILIATIONS,
                 "references": REFERENCES, "terms": TERMS}


#: Tables of at least this many rows (edges, evidence) are checked column-wise (`_conform_large`) rather
#: than by pandera, whose row checks took 24 s for an 8M-row edge table.
LARGE_TABLE = 200_000


def conform(df: pd.DataFrame, schema: pa.DataFrameSchema) -> pd.DataFrame:
    """Validate `df`, put its columns in schema order and sort its rows by the schema's key."""
    df = df.reindex(columns=list(schema.columns))
    if len(df) >= LARGE_TABLE:
        checked = _conform_large(df, schema)
        if checked is not None:
            return checked
    try:
        df = schema.validate(df, lazy=True)
    except (pa.errors.SchemaErrors, pa.errors.SchemaError) as exc:
        raise DataError(f"table {schema.name!r} breaks its schema: {_summary(exc)}",
                        code="TABLE_INVALID") from None
    key = schema.metadata["key"]
    return df.sort_values(key, kind="mergesort").reset_index(drop=True)


def _broken(schema: pa.DataFrameSchema, column: str, check: str, values: pd.Series, bad) -> DataError:
    value = values[np.asarray(bad, dtype=bool)].iloc[0] if np.asarray(bad).any() else None
    return DataError(f"table {schema.name!r} breaks its schema: {column}: {check} (value {value!r})",
                     code="TABLE_INVALID")


def _conform_large(df: pd.DataFrame, schema: pa.DataFrameSchema) -> pd.DataFrame | None:
    """`conform` by whole columns: dtypes coerced as pandera coerces them, nulls and the columns' checks
    (pandera's own, which are vectorised) tested per column, the order and uniqueness of the key tested on
    neighbouring rows in Arrow (a table already sorted, as builders give them, is not sorted again).
    None when a column cannot be coerced so simply (pandera then decides)."""
    columns = {}
    for name, column in schema.columns.items():
        missing = df[name].isna()
        if not column.nullable and missing.any():
            raise _broken(schema, name, "not_nullable", df[name], missing)
        try:
            values = df[name].astype(column.dtype.type)
        except (TypeError, ValueError):
            return None
        if pd.api.types.is_string_dtype(values.dtype) and not pd.api.types.is_string_dtype(df[name].dtype):
            return None   # numbers that pandera would turn into text: let it
        _run_checks(schema, name, values[~missing] if column.nullable else values)
        columns[name] = values
    key = schema.metadata["key"]
    table = pa_arrow.table({k: pa_arrow.array(columns[k], from_pandas=True) for k in key})
    out = pd.DataFrame(columns)
    is_sorted, same = _key_order(table, key)
    if not is_sorted:   # builders mostly give sorted tables, which skip this
        out = out.sort_values(key, kind="mergesort").reset_index(drop=True)
        _, same = _key_order(pa_arrow.table({k: pa_arrow.array(out[k], from_pandas=True) for k in key}), key)
    if same.any():
        raise _broken(schema, ",".join(key), "unique", out[key[0]].iloc[1:].reset_index(drop=True), same)
    return out


def _run_checks(schema: pa.DataFrameSchema, name: str, values: pd.Series) -> None:
    """Column `name`'s pandera checks (vectorised) on its non-null `values`; the first failing is a DataError."""
    for check in schema.columns[name].checks:
        passed = check(values).check_output
        if not bool(passed.all()):
            raise _broken(schema, name, str(check), values, ~passed)


def _key_order(table, key: list[str]) -> tuple[bool, np.ndarray]:
    """(whether `table` is sorted by `key`; mask of rows whose key equals the next row's), by comparing
    neighbouring rows in Arrow."""
    n = max(table.num_rows - 1, 0)
    less, same = pa_arrow.array(np.zeros(n, dtype=bool)), pa_arrow.array(np.ones(n, dtype=bool))
    for k in key:
        a, b = table.column(k)[:-1], table.column(k)[1:]
        less = pa_compute.or_(less, pa_compute.and_(same, pa_compute.less(a, b)))
        same = pa_compute.and_(same, pa_compute.equal(a, b))
    same = same.to_numpy(zero_copy_only=False)
    return pa_compute.all(pa_compute.or_(less, pa_arrow.array(same))).as_py() is not False, same


def _summary(exc: Exception) -> str:
    cases = getattr(exc, "failure_cases", None)
    if cases is None or len(cases) == 0:
        return str(exc).splitlines()[0]
    rows = cases.head(3).to_dict("records")
    return "; ".join(f"{r.get('column')}: {r.get('check')} (value {r.get('failure_case')!r})" for r in rows)


@dataclass
class _Made:
    """What is made once per schema: its empty frame (pandera's checks of an empty frame cost 20 ms, and
    an import of a one-record file asked for sixteen) and its Arrow schema (pyarrow derives one from a
    frame in 4 ms, asked for every table written). The schema is held so that its id is not reused."""

    schema: pa.DataFrameSchema
    frame: pd.DataFrame
    arrow: pa_arrow.Schema | None = None


_MADE: dict[int, _Made] = {}


def _made(schema: pa.DataFrameSchema) -> _Made:
    made = _MADE.get(id(schema))
    if made is None:
        if len(_MADE) >= 256:            # schemas made on the fly (part_schema): keep the cache small
            _MADE.clear()
        made = _MADE[id(schema)] = _Made(schema, conform(pd.DataFrame({c: [] for c in schema.columns}), schema))
    return made


def empty(schema: pa.DataFrameSchema) -> pd.DataFrame:
    """A table of no rows with the schema's columns and types (a copy of the one made per schema)."""
    return _made(schema).frame.copy()


def arrow_schema(schema: pa.DataFrameSchema) -> pa_arrow.Schema:
    """The Arrow schema, pandas metadata included, that `Table.from_pandas` gives a table of `schema`."""
    made = _made(schema)
    if made.arrow is None:
        made.arrow = pa_arrow.Schema.from_pandas(made.frame, preserve_index=False)
    return made.arrow


def write_table(df: pd.DataFrame, schema: pa.DataFrameSchema, path: str | os.PathLike[str],
                conformed: bool = False) -> pd.DataFrame:
    """Validate, sort and write one table atomically; return what was written. `conformed`: `df` is what
    `conform` returned for `schema` (a network's tables, conformed as they were built), not checked again."""
    df = df if conformed else conform(df, schema)
    table = pa_arrow.Table.from_pandas(df, preserve_index=False)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return df


#: rows per Parquet row group, as pyarrow's write_table cuts them
ROW_GROUP = 1024 * 1024


def write_arrow(batches: Iterable[pa_arrow.RecordBatch], schema: pa.DataFrameSchema,
                path: str | os.PathLike[str], checked: bool = True) -> int:
    """`write_table` for rows built outside pandas (millions of cited references), given as Arrow batches
    already sorted by the schema's key: the same checks and the same bytes (`write_table`'s Arrow types
    and pandas metadata, row groups of `ROW_GROUP` rows, each one chunk, zstd), never more than one row
    group in memory. Returns the rows written. `checked` False skips the columns' value checks (rows
    that passed them when first written); nulls, order and uniqueness are always checked."""
    written = arrow_schema(schema)
    rows, last = 0, None
    with atomic_path(path) as tmp:
        writer = None
        try:
            typed = (_owned(batch.select(list(schema.columns)), written) for batch in batches)
            for group in _row_groups(typed):
                last = _checked_group(group, schema, last, checked)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, written, compression="zstd")
                writer.write_table(group, row_group_size=ROW_GROUP)
                rows += group.num_rows
                del group   # not held while the next one gathers (its pages let go as that one is joined)
        finally:
            if writer is not None:
                writer.close()
        if writer is None:   # no rows: what write_table writes for an empty table
            pq.write_table(pa_arrow.Table.from_pandas(empty(schema), preserve_index=False), tmp, compression="zstd")
    pa_arrow.default_memory_pool().release_unused()   # Arrow's allocator keeps freed pages otherwise
    return rows


def _owned(batch: pa_arrow.RecordBatch, schema: pa_arrow.Schema) -> pa_arrow.RecordBatch:
    """`batch` cast to `schema`, each column copied into buffers of its own: a column kept as it came would
    keep a whole DuckDB batch alive (its columns are freed together), and a row group's batches twice."""
    return pa_arrow.RecordBatch.from_arrays(
        [column.cast(field.type) if column.type != field.type else pa_arrow.concat_arrays([column])
         for column, field in zip(batch.columns, schema)], schema=schema)


def _row_groups(batches: Iterable[pa_arrow.RecordBatch]) -> Iterable[pa_arrow.Table]:
    """The rows of `batches` cut into tables of `ROW_GROUP` rows (the last one shorter), each one chunk.

    The batches are kept column by column and each column's pieces let go as it is joined, so that a
    group is held once, not twice (a group of cited references is some 200 MB)."""
    columns: list[list[pa_arrow.Array]] = []
    schema, size = None, 0
    for batch in batches:
        schema = batch.schema
        columns = columns or [[] for _ in schema]
        for pieces, array in zip(columns, batch.columns):
            pieces.append(array)
        size += batch.num_rows
        del batch
        while size >= ROW_GROUP:
            yield _joined(columns, schema, ROW_GROUP)
            size -= ROW_GROUP
    if size:
        yield _joined(columns, schema, size)


def _joined(columns: list[list[pa_arrow.Array]], schema: pa_arrow.Schema, rows: int) -> pa_arrow.Table:
    """The first `rows` rows of `columns` as a table of one chunk; each column keeps only the rest."""
    joined = []
    for i, pieces in enumerate(columns):
        chunked = pa_arrow.chunked_array(pieces, schema.field(i).type)
        pieces.clear()
        joined.append(chunked.slice(0, rows).combine_chunks())
        rest = chunked.slice(rows).combine_chunks()
        del chunked
        pa_arrow.default_memory_pool().release_unused()   # the pieces' pages, else kept beside the column
        if len(rest):
            pieces.append(rest)
    return pa_arrow.Table.from_arrays(joined, schema=schema)


def _checked_group(group: pa_arrow.Table, schema: pa.DataFrameSchema, last: tuple | None,
                   checked: bool = True) -> tuple:
    """The schema's checks on one row group, its rows sorted and unique by key after `last` (the key of
    the row before it); returns the key of its last row."""
    for name, column in schema.columns.items():
        values = group.column(name)
        if not column.nullable and values.null_count:
            raise _broken(schema, name, "not_nullable", pd.Series([None]), [True])
        if checked and column.checks:
            _run_checks(schema, name, values.drop_null().to_pandas().astype(column.dtype.type))
    key = schema.metadata["key"]
    keys = group.select(key)
    if last is not None:
        keys = pa_arrow.concat_tables([pa_arrow.table({k: pa_arrow.array([v], keys.schema.field(k).type)
                                                       for k, v in zip(key, last)}), keys])
    is_sorted, same = _key_order(keys, key)
    if not is_sorted or same.any():
        raise DataError(f"table {schema.name!r} breaks its schema: rows not sorted and unique by {key}",
                        code="TABLE_INVALID")
    return tuple(group.column(k)[-1].as_py() for k in key)


def read_arrow(path: str | os.PathLike[str], columns: list[str] | None = None, filters=None) -> pa_arrow.Table:
    """One Parquet file as an Arrow table (some `columns`, the rows `filters` keep); a missing or broken
    file is a DataError naming the path, as `read_table` says it."""
    with parquet_errors(path):
        return pq.read_table(Path(path), columns=columns, filters=filters)


def read_dictionaries(path: str | os.PathLike[str], columns: list[str]) -> pa_arrow.Table:
    """String `columns` of one Parquet file as dictionary arrays (a value repeated in a row group is held
    once), read a row group at a time: `read_table`'s threads decode several groups' pages at once."""
    with parquet_errors(path):
        source = pq.ParquetFile(Path(path), read_dictionary=columns)
        groups = [source.read_row_group(i, columns=columns) for i in range(source.num_row_groups)]
        return pa_arrow.concat_tables(groups) if groups else source.schema_arrow.empty_table().select(columns)


@contextmanager
def parquet_errors(path: str | os.PathLike[str]):
    """A missing or unreadable Parquet file met inside the block as the DataError naming the path that
    `read_arrow` raises (for readers that go through a file a batch at a time)."""
    try:
        yield
    except FileNotFoundError:
        raise DataError(f"artifact {Path(path)} does not exist; run `b2g run` to build it",
                        code="ARTIFACT_MISSING") from None
    except (OSError, pa_arrow.ArrowException) as exc:
        raise DataError(f"artifact {Path(path)} is not a readable Parquet file ({exc})",
                        code="ARTIFACT_CORRUPT", details={"files": [str(path)]}) from None


def _checked(df: pd.DataFrame, schema: pa.DataFrameSchema, path) -> pd.DataFrame:
    missing = [name for name in schema.columns if name not in df.columns]
    if missing:    # said as such, not as the nulls conforming would put in their place
        raise DataError(f"artifact {path}: column(s) {', '.join(missing)} missing from table {schema.name!r}; "
                        "`b2g run` rebuilds it", code="ARTIFACT_CORRUPT", details={"files": [str(path)]})
    try:
        return conform(df, schema)
    except DataError as exc:
        raise DataError(f"artifact {path}: {exc.message}", code="ARTIFACT_CORRUPT") from None


def read_table(path: str | os.PathLike[str], schema: pa.DataFrameSchema, checked: bool = True) -> pd.DataFrame:
    """Read one table and check it; a missing or broken file is a DataError naming the path. `checked`
    False is for a file this process has just written with `write_arrow`, which checked every row on the
    way out: its frame is the checked one, without pandera's 20 ms a table (a one-record import reads
    seven back)."""
    frame = read_arrow(path).to_pandas()
    if not checked and list(frame.columns) == list(schema.columns):
        return frame
    return _checked(frame, schema, path)


def part_schema(schema: pa.DataFrameSchema, columns: list[str]) -> pa.DataFrameSchema:
    """`schema` restricted to its key and `columns`, in the schema's order: what a reader of a few
    columns can check (types, nulls, the key's order and uniqueness) without the others."""
    key = schema.metadata["key"]
    kept = [c for c in schema.columns if c in key or c in columns]
    return table_schema(schema.name, {c: schema.columns[c] for c in kept}, key)


def read_columns(path: str | os.PathLike[str], schema: pa.DataFrameSchema, columns: list[str]) -> pd.DataFrame:
    """The key and `columns` of one table, checked as `read_table` checks the whole: screening a million
    works needs seven columns of the works table, not the abstracts that make most of its bytes."""
    part = part_schema(schema, columns)
    return _checked(read_arrow(path, list(part.columns)).to_pandas(), part, path)


def _id_array(work_ids) -> pa_arrow.Array:
    """Work IDs as the Arrow value set the filters below take (sorted, distinct)."""
    return pa_arrow.array(sorted(set(work_ids)), pa_arrow.large_string())


#: rows decoded at once where a table is read a batch at a time
ROWS_AT_ONCE = 65_536


def read_rows(path: str | os.PathLike[str], schema: pa.DataFrameSchema, work_ids) -> pd.DataFrame:
    """The rows of one table whose `work_id` is in `work_ids`, checked as `read_table` checks. The other
    columns of a row group are read only when its `work_id` column holds one of them, and then a batch at
    a time: a look-up of a hundred works in a universe of 100,000 (2.9M cited works beside them) decodes
    the ID columns and the batches it keeps from, where a filtered `read_table` decoded every column of
    every group at once (400 MB more)."""
    keep = _id_array(work_ids)
    with parquet_errors(path):
        source = pq.ParquetFile(Path(path))
        parts = []
        for group in range(source.num_row_groups):
            found = pa_compute.is_in(source.read_row_group(group, columns=["work_id"]).column("work_id"),
                                     value_set=keep)
            if pa_compute.any(found).as_py():     # the group's rows a batch at a time: abstracts are large
                parts.extend(batch.filter(pa_compute.is_in(batch.column("work_id"), value_set=keep))
                             for batch in source.iter_batches(ROWS_AT_ONCE, row_groups=[group], use_threads=False))
        table = pa_arrow.Table.from_batches(parts, source.schema_arrow) if parts else source.schema_arrow.empty_table()
    return _checked(table.to_pandas(), schema, path)


def read_filtered(folder: str | os.PathLike[str], work_ids) -> "Bundle":
    """The bundle in `folder` restricted to `work_ids` (`read_rows` of each table)."""
    work_ids = list(work_ids)
    return Bundle(**{name: read_rows(Path(folder) / f"{name}.parquet", schema, work_ids)
                     for name, schema in BUNDLE_TABLES.items()})


def filter_table(path_in: str | os.PathLike[str], path_out: str | os.PathLike[str], schema: pa.DataFrameSchema,
                 keep: pa_arrow.Array) -> int:
    """Write the rows of `path_in` whose work is in `keep` to `path_out`, in Arrow: the bytes
    `write_table` would give for the same rows (`write_arrow`), a row group at a time, without a pandas
    copy of a table of millions of rows or the whole table in memory. Returns the rows kept. The input's
    columns are checked against the schema (its rows were when it was written) and its Arrow types and
    pandas metadata made `write_table`'s (a pool an older pandas wrote)."""
    written = arrow_schema(schema)
    with parquet_errors(path_in):
        source = pq.ParquetFile(Path(path_in))
    if source.schema_arrow.names != list(schema.columns):
        raise DataError(f"artifact {path_in}: table {schema.name!r} has columns {source.schema_arrow.names}, "
                        f"not {list(schema.columns)}", code="ARTIFACT_CORRUPT")

    def kept() -> Iterator[pa_arrow.RecordBatch]:
        for group in range(source.num_row_groups):
            with parquet_errors(path_in):
                table = source.read_row_group(group)
            try:
                table = table.cast(written)
            except (pa_arrow.ArrowException, ValueError) as exc:
                raise DataError(f"artifact {path_in}: table {schema.name!r} has types its schema cannot take ({exc})",
                                code="ARTIFACT_CORRUPT") from None
            yield from table.filter(pa_compute.is_in(table.column("work_id"), value_set=keep)).to_batches()
    return write_arrow(kept(), schema, path_out, checked=False)


def filter_bundle(folder_in: str | os.PathLike[str], folder_out: str | os.PathLike[str], work_ids) -> dict[str, int]:
    """The bundle of `folder_in` restricted to `work_ids`, written to `folder_out` one table at a time
    (the corpus job: the pool's tables never all in memory, never in pandas); rows kept per table."""
    keep = _id_array(work_ids)
    return {name: filter_table(Path(folder_in) / f"{name}.parquet", Path(folder_out) / f"{name}.parquet", schema,
                               keep)
            for name, schema in BUNDLE_TABLES.items()}


@dataclass
class Bundle:
    """The five normalised tables of a set of works."""

    works: pd.DataFrame
    authorships: pd.DataFrame
    affiliations: pd.DataFrame
    references: pd.DataFrame
    terms: pd.DataFrame

    @classmethod
    def empty(cls) -> "Bundle":
        return cls(**{name: empty(schema) for name, schema in BUNDLE_TABLES.items()})

    def subset(self, work_ids) -> "Bundle":
        """The bundle restricted to `work_ids`."""
        keep = set(work_ids)
        return Bundle(**{name: getattr(self, name)[getattr(self, name)["work_id"].isin(keep)]
                         .reset_index(drop=True) for name in BUNDLE_TABLES})

    def write(self, folder: str | os.PathLike[str]) -> None:
        for name, schema in BUNDLE_TABLES.items():
            write_table(getattr(self, name), schema, Path(folder) / f"{name}.parquet")

    @classmethod
    def read(cls, folder: str | os.PathLike[str], without: dict[str, list[str]] | None = None,
             tables: Iterable[str] | None = None, checked: bool = True) -> "Bundle":
        """The bundle in `folder`; `without` names, per table, columns a job never uses and need not
        hold (the network job and the works' abstracts, most of the corpus's bytes); `tables`, when
        given, the tables it reads at all: the others stand empty (a co-citation network needs no terms,
        2 GB at a million works); `checked` as `read_table`'s."""
        without = without or {}
        wanted = set(BUNDLE_TABLES) if tables is None else set(tables)
        return cls(**{name: empty(schema) if name not in wanted
                      else read_columns(Path(folder) / f"{name}.parquet", schema,
                                        [c for c in schema.columns if c not in without[name]])
                      if without.get(name) else read_table(Path(folder) / f"{name}.parquet", schema, checked)
                      for name, schema in BUNDLE_TABLES.items()})


def bundle_paths(folder: str) -> list[str]:
    return [f"{folder}/{name}.parquet" for name in BUNDLE_TABLES]
