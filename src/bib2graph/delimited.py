"""How a spreadsheet saved as text separates its cells: what Excel, LibreOffice and Numbers write.

Excel's "Unicode Text" is tab-separated, European Excel writes `;`-separated CSV, and a first line
``sep=;`` (which Excel reads and writes to say so) names the separator outright; it is no row.
"""

from __future__ import annotations

import csv
import io
import re

DELIMITERS = ("\t", ";", ",")
_SEP_LINE = re.compile(r"\ufeff?sep=(.)")


def reader(text: str, **options) -> csv.reader:
    """A csv reader over `text` with its separator: the ``sep=X`` line's (consumed, so the reader's line
    numbers stay the file's), else the most frequent of TAB, `;` and `,` in the first line (ties in that
    order)."""
    first = text.split("\n", 1)[0].rstrip("\r")
    named = _SEP_LINE.fullmatch(first.strip())
    rows = csv.reader(io.StringIO(text), delimiter=named.group(1) if named else max(DELIMITERS, key=first.count),
                      **options)
    if named:
        next(rows, None)
    return rows
