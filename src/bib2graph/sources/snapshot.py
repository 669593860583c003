"""The works of an OpenAlex snapshot (`source.kind: snapshot`): one partition read into bundle tables
(the scatter: one `snapshot_part` job each), then the partitions gathered into the universe the
`sources` job writes, the same tables a files source gives, so that seed, chain and corpus read them alike.

A partition's works are normalised as every OpenAlex Work object is (`records.work_rows`: the 2023 and
the current schema alike) and selected by publication year when `source.snapshot` says so. A work found
in several partitions keeps its record with the latest `updated_date` (on a tie, the later partition's):
OpenAlex moves a changed work to the partition of the day it changed, and an older copy can linger in a
snapshot synced incrementally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError
from ..skips import Skips
from ..tables import BUNDLE_TABLES, ORIGINS, SOURCE_REFS, Bundle, conform, empty, read_table
from .exports.entries import WORK_FIELDS
from .exports.readers import OPENALEX_JSON
from .files import read_jsonl_gz
from .records import bundle_from_rows, work_rows, work_year


def _selected(year: int | None, selection: dict[str, Any]) -> bool:
    low, high = selection.get("year_min"), selection.get("year_max")
    if low is None and high is None:
        return True
    return year is not None and (low is None or year >= low) and (high is None or year <= high)


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
    records = outside = 0
    for line, work in read_jsonl_gz(path, name, skips):
        records += 1
        if not _selected(work_year(work), selection):   # before the rows: most of a partition may be left out
            outside += 1
            continue
        rows = _without_self_citation(work_rows(work))   # never None: the reader passed over works without an ID
        row = rows["works"][0]
        updated = row["updated_date"] or ""
        if row["work_id"] not in chosen or updated > chosen[row["work_id"]][0]:
            chosen[row["work_id"]] = (updated, line, rows)
    origins = pd.DataFrame([{"work_id": wid, "file": name, "format": OPENALEX_JSON, "record": line, "line": line,
                             "native_id": wid, "primary": True, "fields": _fields(rows)}
                            for wid, (_, line, rows) in chosen.items()], columns=list(ORIGINS.columns))
    counts = {"records": records, "works": len(chosen), "outside_selection": outside,
              "duplicates": records - outside - len(chosen)}
    return bundle_from_rows(rows for _, _, rows in chosen.values()), conform(origins, ORIGINS), counts


def gather(parts: list[tuple[str, Path]]) -> tuple[Bundle, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """The universe of the partitions `parts` ((key, folder of its tables), oldest first): bundle, cited
    references (none: every reference of a snapshot is an OpenAlex ID), origins and counts."""
    if not parts:
        raise DataError("source.snapshot.path holds no works partitions (data/works/updated_date=…/part_N.gz, "
                        "or a data/works/manifest listing them)", code="FILE_MISSING",
                        details={"place": "source.snapshot.path"})
    read = [(key, Bundle.read(folder), read_table(Path(folder) / "origins.parquet", ORIGINS))
            for key, folder in parts]
    works = pd.concat([b.works.assign(_order=i) for i, (_, b, _) in enumerate(read)], ignore_index=True)
    latest = (works.assign(_updated=works["updated_date"].fillna(""))
              .sort_values(["_updated", "_order"], kind="mergesort")
              .drop_duplicates("work_id", keep="last"))
    winner = pd.Series(latest["_order"].to_numpy(), index=latest["work_id"].to_numpy())

    def kept(frames: list[pd.DataFrame], schema) -> pd.DataFrame:
        table = pd.concat([f.assign(_order=i) for i, f in enumerate(frames)], ignore_index=True)
        table = table[table["_order"].to_numpy() == table["work_id"].map(winner).to_numpy()]
        return conform(table.drop(columns="_order"), schema)

    bundle = Bundle(**{name: kept([getattr(b, name) for _, b, _ in read], schema)
                       for name, schema in BUNDLE_TABLES.items()})
    origins = kept([o for _, _, o in read], ORIGINS)
    from_part = latest["_order"].value_counts()
    files = [{"file": key, "records": len(b.works), "duplicates": len(b.works) - int(from_part.get(i, 0))}
             for i, (key, b, _) in enumerate(read)]
    counts = {"records": len(works), "works": len(bundle.works), "partitions": len(parts), "files": files,
              "references": {"total": len(bundle.references), "unparsed": 0, "with_doi": 0, "identities": 0,
                             "unparsed_shown": []}}
    return bundle, conform(empty(SOURCE_REFS), SOURCE_REFS), origins, counts
