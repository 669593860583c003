"""Input records a reader passed over, and where they were.

A reader that meets a malformed record it can do without (a BibTeX entry it cannot parse, a JSON line
that is not a work, a record without an ID) reports it here instead of crashing or dropping it
silently; so does one that repairs a record (an invalid character replaced by U+FFFD). The phase writes what was skipped into its manifest and `b2g run` repeats it as warnings;
with the spec's `strict: true` the first skip is an error naming the file and the place instead.
Problems that make a whole file unreadable (a broken zip, a truncated gzip, an unknown encoding) are
errors whatever `strict` says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import DataError


@dataclass(frozen=True)
class Skip:
    file: str    # as the spec names it (relative path or bundled:NAME)
    where: str   # "line 12", "record 3", "member a.jsonl, line 4"; "" when the file has no finer place
    reason: str

    def describe(self) -> str:
        return f"{self.file}{', ' + self.where if self.where else ''}: {self.reason}"

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "where": self.where, "reason": self.reason}


@dataclass
class Skips:
    """A collector handed to readers; `strict` turns the first skip into a DataError."""

    strict: bool = False
    items: list[Skip] = field(default_factory=list)

    def add(self, file: str, where: str, reason: str) -> None:
        skip = Skip(str(file), where, reason)
        if self.strict:
            raise DataError(f"{skip.describe()} (strict: true in the spec makes every skipped record an error)",
                            code="RECORD_INVALID", details=skip.as_dict())
        self.items.append(skip)

    def __len__(self) -> int:
        return len(self.items)

    def as_rows(self) -> list[dict[str, str]]:
        """Every skip, in the order met: what a manifest keeps."""
        return [s.as_dict() for s in self.items]

    def warnings(self, limit: int = 5) -> list[str]:
        """One warning per file: how many records were skipped and the first few places."""
        return warnings_from_rows(self.as_rows(), limit)


def warnings_from_rows(rows: list[dict[str, Any]], limit: int = 5) -> list[str]:
    """The warnings of skips as a manifest stores them (see `Skips.as_rows`)."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    out = []
    for file, found in by_file.items():
        shown = "; ".join(f"{r['where'] + ': ' if r['where'] else ''}{r['reason']}" for r in found[:limit])
        more = f"; and {len(found) - limit} more" if len(found) > limit else ""
        out.append(f"{file}: {len(found)} record(s) skipped or repaired ({shown}{more}); `strict: true` in "
                   "the spec makes this an error")
    return out
