"""A labels file: which works a finished review included, to replay its screening (`b2g simulate`).

SYNERGY's labels.csv form: a header naming ``label_included`` and at least one of ``openalex_id``
(short or URL), ``doi`` (any form) and ``pmid``; one row per screened work, its label 1 (included) or 0.
Other columns are ignored; cells are separated as a spreadsheet saved them (`,`, `;` or TAB, or as a
``sep=`` first line says: `delimited.py`). A row is matched to a pooled work by its OpenAlex ID, else its
DOI, else its PMID; rows matching no pooled work are counted, not an error (a review's pool may hold part
of a record set). The file is read strictly: a bad label, a row without an ID, or one work labelled twice
differently is a DataError (code LABELS_INVALID) naming the file and line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import delimited, textio
from ..errors import DataError
from ..ids import normalize_doi, normalize_pmid, short_id

ID_COLUMNS = ("openalex_id", "doi", "pmid")
MAX_ROWS = 5_000_000
MAX_BYTES = 1 << 30     # 5M rows of SYNERGY's form are some 400 MB


@dataclass(frozen=True)
class Labels:
    table: pd.DataFrame        # work_id, label: the pooled works labelled, sorted by work ID
    rows: int                  # data rows read
    unmatched: int             # rows naming no pooled work


def _invalid(path: Path, line: int, message: str) -> DataError:
    return DataError(f"{path}:{line}: {message}", code="LABELS_INVALID", details={"file": str(path), "line": line})


def pool_identifiers(works: str | Path) -> dict[str, str]:
    """DOI → pooled work and ``pmid:N`` → pooled work, from the pool's works table (the first by work ID
    when works share one): where a labels row without an OpenAlex ID finds its work."""
    from ..query import columns
    from ..tables import WORKS, read_columns

    names = ["work_id", "doi"] + (["pmid"] if "pmid" in columns(works) else [])
    table = read_columns(works, WORKS, names).sort_values("work_id", kind="mergesort")
    found: dict[str, str] = {}
    for column, prefix in (("doi", ""), ("pmid", "pmid:")):
        for work_id, value in zip(table["work_id"], table.get(column, [])):
            if isinstance(value, str):
                found.setdefault(prefix + value, work_id)
    return found


def read(path: str | Path, pool_ids: set[str], identifiers: dict[str, str]) -> Labels:
    """The labels of the pooled works (IDs in `pool_ids`; DOIs and ``pmid:N`` in `identifiers`)."""
    path = Path(path)
    try:
        text = textio.read_text(path, max_bytes=MAX_BYTES)
    except DataError as exc:
        if exc.code != "FILE_INVALID":
            raise
        raise DataError(f"{exc.message}; name a labels CSV (one row per screened work)", code="LABELS_INVALID",
                        details={**exc.details, "line": 0}) from None
    reader = delimited.reader(text)
    try:
        return _read_rows(path, reader, pool_ids, identifiers)
    except csv.Error as exc:           # a cell past the csv module's limit, a NUL byte
        raise _invalid(path, reader.line_num, f"not readable as CSV ({exc})") from None


def _read_rows(path: Path, reader, pool_ids: set[str], identifiers: dict[str, str]) -> Labels:
    header = [cell.strip().lower().lstrip("\ufeff") for cell in next(reader, [])]
    if "label_included" not in header or not any(c in header for c in ID_COLUMNS):
        raise _invalid(path, 1, f"the header needs label_included and openalex_id, doi or pmid, found {header!r}")
    at = {name: header.index(name) for name in ("label_included", *ID_COLUMNS) if name in header}
    labels: dict[str, tuple[int, int]] = {}
    rows = unmatched = 0
    for line, cells in enumerate(reader, 2):
        if not any(c.strip() for c in cells):
            continue
        rows += 1
        if rows > MAX_ROWS:
            raise _invalid(path, line, f"more than {MAX_ROWS} rows")
        value = cells[at["label_included"]].strip() if len(cells) > at["label_included"] else ""
        if value not in ("0", "1"):
            raise _invalid(path, line, f"label_included is {value!r}; it must be 1 (included) or 0")
        cell = lambda name: cells[at[name]].strip() if name in at and len(cells) > at[name] else ""  # noqa: E731
        work_id, doi = short_id(cell("openalex_id")) if cell("openalex_id") else None, normalize_doi(cell("doi"))
        pmid = normalize_pmid(cell("pmid"))
        if not work_id and not doi and not pmid:
            raise _invalid(path, line, "no openalex_id, doi or pmid on this row")
        found = work_id if work_id in pool_ids else None
        found = found or (identifiers.get(doi) if doi else None) or (identifiers.get(f"pmid:{pmid}") if pmid else None)
        if found is None:
            unmatched += 1
            continue
        if found in labels and labels[found][0] != int(value):
            raise _invalid(path, line, f"{found} is labelled {labels[found][0]} on line {labels[found][1]} and "
                                       f"{value} here; keep one")
        labels.setdefault(found, (int(value), line))
    table = pd.DataFrame({"work_id": sorted(labels), "label": [labels[w][0] for w in sorted(labels)]})
    return Labels(table, rows, unmatched)
