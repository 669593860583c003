"""The rows of a CSV export, streamed, each with the physical line it starts on.

Scopus, Lens and OpenAlex export CSV with quoted cells that may hold line breaks, so a record's line is
not its row number: skips and origins name the line where the row starts. Columns are found by header
name (case and surrounding space ignored), never by position, since each service has changed its
layout over the years.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ...errors import DataError
from ...skips import Skips
from .record import Record
from .textfile import raw_lines

# A Scopus `References` cell of a long review runs past the csv module's default 128 KiB cell limit.
_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)


@dataclass(frozen=True)
class Row:
    number: int        # 1-based record number (the header is not a record)
    line: int          # physical line where the row starts
    cells: list[str]
    error: str | None = None   # why the csv module could not split the row


class Header:
    """Column positions by normalised name."""

    def __init__(self, cells: list[str]) -> None:
        self.names = [_key(c) for c in cells]
        self.index: dict[str, int] = {}
        for i, name in enumerate(self.names):
            self.index.setdefault(name, i)

    def __len__(self) -> int:
        return len(self.names)

    def has(self, *names: str) -> bool:
        return any(_key(n) in self.index for n in names)

    def get(self, cells: list[str], *names: str) -> str | None:
        """The stripped cell of the first of `names` the header holds, None when absent or empty."""
        for name in names:
            i = self.index.get(_key(name))
            if i is not None and i < len(cells):
                value = cells[i].strip()
                return value or None
        return None


def _key(name: str) -> str:
    return " ".join(name.replace("\ufeff", "").split()).lower()


def rows(path: Path, name: str, preamble: Callable[[list[str]], bool] | None = None) -> Iterator[Header | Row]:
    """The header (the first non-blank row that is not `preamble`, such as Dimensions' "About the data"
    note), then every non-blank row after it; undecodable bytes are a DataError (FILE_ENCODING) naming
    the line, a missing file FILE_MISSING."""
    csv.field_size_limit(_FIELD_LIMIT)
    yield from _rows(raw_lines(path, name), name, preamble)


def _rows(text: Iterator[str], name: str,
          preamble: Callable[[list[str]], bool] | None = None) -> Iterator[Header | Row]:
    reader = csv.reader(text)
    header: Header | None = None
    number, consumed = 0, 0
    while True:
        start = consumed + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            consumed = reader.line_num
            if header is None:
                raise DataError(f"{name}: line {start}: the header is not CSV ({exc})", code="FILE_INVALID",
                                details={"file": name, "line": start}) from None
            number += 1
            yield Row(number, start, [], error=str(exc))
            continue
        consumed = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            if preamble is not None and preamble(cells):
                continue
            header = Header(cells)
            yield header
            continue
        number += 1
        yield Row(number, start, cells)


def read_records(path: str | Path, name: str, skips: Skips, what: str, required: tuple[str, ...],
                 convert: Callable[[Header, Row], Record | str],
                 preamble: Callable[[list[str]], bool] | None = None) -> Iterator[Record]:
    """Records of a CSV export: `convert(header, row)` turns a row into a Record or returns the reason
    it cannot (a str); a row of fewer cells than the header is skipped too (its cells may be any
    column's). A header without any of `required` is not this kind of export (FILE_INVALID); rows
    before the header for which `preamble` is true are skipped."""
    count, header = 0, None
    for row in rows(Path(path), name, preamble):
        if isinstance(row, Header):
            header = row
            if not header.has(*required):
                raise DataError(f"{name}: not a {what} CSV export (its header has none of "
                                f"{', '.join(required)})", code="FILE_INVALID", details={"file": name})
            continue
        where = f"record {row.number}, line {row.line}"
        if row.error is not None:
            skips.add(name, where, f"not valid CSV ({row.error}); skipped")
            continue
        assert header is not None
        result = convert(header, row)
        if isinstance(result, str):
            skips.add(name, where, f"{result}; skipped")
            continue
        if len(row.cells) < len(header):    # a file cut off in a row, or a row a spreadsheet cut short
            skips.add(name, where, f"{len(row.cells)} cells where the header has {len(header)}; skipped")
            continue
        count += 1
        yield result
    if not count:
        skips.add(name, "", f"holds no {what} records")


def split(value: str | None, sep: str) -> list[str]:
    """The non-empty, stripped parts of a multi-valued cell."""
    return [p.strip() for p in value.split(sep) if p.strip()] if value else []


def integer(value: str | None) -> int | None:
    """A count or year a cell writes ("12", "12.0"); None for none, and for a negative one, which no
    count or year of these exports is (a damaged cell must not break the works table's schema)."""
    if not value:
        return None
    try:
        number = int(value.strip().split(".")[0])
    except ValueError:
        return None
    return number if number >= 0 else None

