"""Human decisions in `config/curation.tsv`, the committed source of truth of curation.

One row per work: ``work_id, decision, reason, decided_by, decided_at``; the latest decision for a
work replaces the earlier one. Writers hold a file lock for the whole read-modify-write and replace
the file atomically, so concurrent `b2g accept` / `b2g reject` calls lose no decision.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from filelock import FileLock, Timeout

from .atomic import write_text
from .errors import DataError, WorkspaceLockedError

COLUMNS = ("work_id", "decision", "reason", "decided_by", "decided_at")
DECISIONS = ("accept", "reject")
MAX_LINE = 4096
MAX_IDS_PER_CALL = 10_000


@dataclass(frozen=True)
class Decision:
    work_id: str
    decision: str
    reason: str = ""
    decided_by: str = ""
    decided_at: str = ""


def header() -> str:
    return "\t".join(COLUMNS) + "\n"


def read(path: str | Path) -> dict[str, Decision]:
    """The decisions in `path` (an absent file holds none); malformed rows are a DataError."""
    path = Path(path)
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8-sig")
    decisions: dict[str, Decision] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE:
            raise DataError(f"{path}:{lineno}: line longer than {MAX_LINE} characters", code="CURATION_INVALID")
        if not line.strip() or line.startswith("#") or (lineno == 1 and line.startswith("work_id")):
            continue
        cells = (line.split("\t") + [""] * len(COLUMNS))[:len(COLUMNS)]
        work_id, decision = cells[0].strip(), cells[1].strip().lower()
        if decision not in DECISIONS:
            raise DataError(f"{path}:{lineno}: decision {cells[1]!r} is not one of {', '.join(DECISIONS)}",
                            code="CURATION_INVALID")
        decisions[work_id] = Decision(work_id, decision, *[c.strip() for c in cells[2:]])
    return decisions


def _clean(text: str) -> str:
    return " ".join(str(text).split())[:1000]


def render(decisions: dict[str, Decision]) -> str:
    out = io.StringIO()
    out.write(header())
    for work_id in sorted(decisions):
        d = decisions[work_id]
        out.write("\t".join([d.work_id, d.decision, _clean(d.reason), _clean(d.decided_by),
                             _clean(d.decided_at)]) + "\n")
    return out.getvalue()


def lock_for(path: Path) -> FileLock:
    return FileLock(str(path.parent / f".{path.name}.lock"))


def record(path: str | Path, new: Iterable[Decision], *, wait: float = 0) -> dict[str, Decision]:
    """Add `new` decisions under the file lock; return the file's decisions after the write."""
    path = Path(path)
    new = list(new)
    if len(new) > MAX_IDS_PER_CALL:
        raise DataError(f"{len(new)} IDs in one call; at most {MAX_IDS_PER_CALL}", code="TOO_MANY_IDS")
    lock = lock_for(path)
    try:
        with lock.acquire(timeout=wait):
            decisions = read(path)
            for decision in new:
                decisions[decision.work_id] = decision
            write_text(path, render(decisions))
            return decisions
    except Timeout:
        raise WorkspaceLockedError(f"{path} is locked by another b2g process; retry, or pass --wait SECONDS",
                                   ) from None


def as_rows(decisions: dict[str, Decision]) -> list[dict[str, str]]:
    return [dict(zip(COLUMNS, (d.work_id, d.decision, d.reason, d.decided_by, d.decided_at)))
            for _, d in sorted(decisions.items())]

