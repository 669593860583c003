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

from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ..errors import DataError
from ..expressions import compile_expression, normalize_text
from ..ids import short_id
from ..skips import Skips
from ..tables import BUNDLE_TABLES, ORIGINS, SOURCE_REFS, Bundle, conform, empty, read_table
from .exports.entries import WORK_FIELDS
from .exports.readers import OPENALEX_JSON
from .files import read_jsonl_gz
from .records import bundle_from_rows, work_rows, work_year


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


def _without_self_citation(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """A work listed among its own references is not a citation: the files source drops it too."""
    row = rows["works"][0]
    references = [r for r in rows["references"] if r["referenced_id"] != row["work_id"]]
    if len(references) < len(rows["references"]):
        rows = {**rows, "works": [{**row, "n_references": len(references)}], "references": references}
    return rows


def _fields(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The fields the record gave, as the files source's origins name them."""
    work = rows["works"][0]
    given = [name for name in WORK_FIELDS if work[name] is not None and work[name] is not False and work[name] != ""]
    given += [label for label, table in (("authors", "authorships"), ("references", "references"),
                                         ("terms", "terms")) if rows[table]]
    return ",".join(given)


def read_partition(path: str | Path, name: str, selection: dict[str, Any],
                   skips: Skips) -> tuple[Bundle, pd.DataFrame, dict[str, Any]]:
    """The selected works of one partition (`name` is how messages call it), where each came from, and counts."""
    chosen: dict[str, tuple[str, int, dict[str, list[dict[str, Any]]]]] = {}
    failed, left_out = selector(selection), Counter()
    records = 0
    for line, work in read_jsonl_gz(path, name, skips):
        records += 1
        if not _year_selected(work_year(work), selection):   # before the rows: most of a partition may be left out
            left_out["year"] += 1
            continue
        rows = _without_self_citation(work_rows(work))   # never None: the reader passed over works without an ID
        criterion = failed(rows)
        if criterion:
            left_out[criterion] += 1
            continue
        row = rows["works"][0]
        updated = row["updated_date"] or ""
        if row["work_id"] not in chosen or updated > chosen[row["work_id"]][0]:
            chosen[row["work_id"]] = (updated, line, rows)
    outside = sum(left_out.values())
    origins = pd.DataFrame([{"work_id": wid, "file": name, "format": OPENALEX_JSON, "record": line, "line": line,
                             "native_id": wid, "primary": True, "fields": _fields(rows)}
                            for wid, (_, line, rows) in chosen.items()], columns=list(ORIGINS.columns))
    counts = {"records": records, "works": len(chosen), "outside_selection": outside,
              "outside_by": dict(sorted(left_out.items())), "duplicates": records - outside - len(chosen)}
    return bundle_from_rows(rows for _, _, rows in chosen.values()), conform(origins, ORIGINS), counts


def gather(parts: list[tuple[str, Path]], write: Callable[[str, pd.DataFrame], None]) -> dict[str, Any]:
    """The universe of the partitions `parts` ((key, folder of its tables), oldest first), handed to
    `write` one table at a time (each bundle table, "cited": none, every reference of a snapshot being an
    OpenAlex ID, and "origins"), so that only the largest is ever in memory; returns the counts. DuckDB
    picks each work's latest record over the partitions' Parquet files, spilling to disk as it needs."""
    if not parts:
        raise DataError("source.snapshot.path holds no works partitions (data/works/updated_date=…/part_N.gz, "
                        "or a data/works/manifest listing them)", code="FILE_MISSING",
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
