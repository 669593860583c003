"""Human decisions in `config/curation.tsv`, the committed source of truth of curation.

One row per work: ``work_id, decision, reason, decided_by, decided_at``, tab-separated. The header is
optional (checked when present), a row may stop after its decision (spreadsheets drop trailing empty
cells), blank lines and lines starting with ``#`` are skipped (and kept, beside the row they precede, when
a writer rewrites the file). People and spreadsheets edit this file, so it is read strictly: a bad line
is a DataError (code CURATION_INVALID) whose message starts with ``path:line:`` and says how to fix it.
Work IDs are read in any form OpenAlex prints (``W1``, ``w1``, ``https://openalex.org/W1``) and written in
the short one, so two forms of one ID are one work.

Writers hold a file lock for the whole read-modify-write and replace the file atomically, so concurrent
`b2g accept` / `b2g reject` calls lose no decision; within one call the last decision for a work wins.
A bad file or a bad new decision changes nothing.
"""

from __future__ import annotations

import io
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from filelock import FileLock, Timeout

from . import textio
from .atomic import write_text
from .errors import DataError, WorkspaceError, WorkspaceLockedError
from .ids import short_id
from .sources.exports.work_ids import id_scheme

COLUMNS = ("work_id", "decision", "reason", "decided_by", "decided_at")
DECISIONS = ("accept", "reject")
MAX_LINE = 4096
MAX_IDS_PER_CALL = 10_000
#: the largest curation file read: a million decisions with reasons fit; a device named by mistake does not
MAX_BYTES = 256 << 20
# Beside the shapes `work_ids.id_scheme` knows (OpenAlex W1, WOS:…, 2-s2.0-…, Lens, pub.…, CN-…, L…, REC:…),
# any SCHEME:value an export's records keep (MEDLINE:…).
_SCHEME_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*:[^\s/:]+")


@dataclass(frozen=True)
class Decision:
    work_id: str
    decision: str
    reason: str = ""
    decided_by: str = ""
    decided_at: str = ""


def header() -> str:
    return "\t".join(COLUMNS) + "\n"


def work_id_of(raw: str) -> str | None:
    """The work ID `raw` names: a short OpenAlex ID (``W1``, ``w1``, ``https://openalex.org/W1``) or the
    ID of a work read from an export file (``WOS:000…``, ``2-s2.0-…``, ``REC:…``, and every shape
    `work_ids` knows: ``pub.…``, ``CN-…``, Embase's ``L…``), else None."""
    value = short_id(raw)
    return value if value and (id_scheme(value) is not None or _SCHEME_ID.fullmatch(value)) else None


#: the longest reason or name a cell holds: a decision with a longer one is refused, never cut
MAX_TEXT = 1000


def clean(text: str) -> str:
    """What a cell holds: one line (tabs and line breaks become spaces), without the other control
    characters (NUL, escape sequences for terminals, DEL), which no reason or name means."""
    return textio.one_line(text)


def says_something(text: str) -> bool:
    """Whether `text` shows anything once it is a cell: a reason or a name of control characters, white
    space or invisible format characters (a zero-width space) says nothing."""
    return any(unicodedata.category(ch)[0] not in "CZ" for ch in clean(text))


def too_long(text: str) -> str | None:
    """Why `text` cannot be a cell (longer than MAX_TEXT once on one line), or None."""
    size = len(clean(text))
    return f"is {size:,} characters; at most {MAX_TEXT:,} are kept: shorten it" if size > MAX_TEXT else None


def _problem(decision: Decision) -> str | None:
    """Why `decision` cannot be recorded, or None: a bad ID or decision, or a reject without a reason."""
    if work_id_of(decision.work_id) is None:
        return (f"{decision.work_id!r} is not a work ID (OpenAlex W followed by digits, e.g. W2741809807, or an "
                "export's ID as the corpus holds it: WOS:…, 2-s2.0-…, pub.…, CN-…, REC:…)")
    if decision.decision.lower() not in DECISIONS:
        return f"decision {decision.decision!r} is not one of {', '.join(DECISIONS)}"
    if decision.decision.lower() == "reject" and not says_something(decision.reason):
        return (f"{work_id_of(decision.work_id)} is rejected without a reason; say why in the reason column "
                "(the PRISMA record reports why each work was excluded)")
    for name in ("reason", "decided_by", "decided_at"):   # three of them still fit a line (MAX_LINE)
        why = too_long(getattr(decision, name))
        if why:
            named = "decided_by (from --by, else B2G_USER, else the login name)" if name == "decided_by" else name
            return f"the {named} of {work_id_of(decision.work_id)} {why}"
    return None


def _invalid(path: Path, lineno: int, message: str, **details) -> DataError:
    return DataError(f"{path}:{lineno}: {message}", code="CURATION_INVALID",
                     details={"file": str(path), "line": lineno, **details})


def _is_header(cells: list[str]) -> bool:
    return cells[0].strip().lower() == COLUMNS[0]


def _check_header(path: Path, lineno: int, cells: list[str]) -> None:
    if [c.strip().lower() for c in cells] != list(COLUMNS):
        raise _invalid(path, lineno, f"the header should be {'<TAB>'.join(COLUMNS)}, found "
                                     f"{'<TAB>'.join(cells)!r}; fix it or delete the line")


def _row(path: Path, lineno: int, cells: list[str]) -> Decision:
    """The decision on one data line, whose `cells` are its tab-separated cells."""
    if len(cells) > len(COLUMNS):
        raise _invalid(path, lineno, f"{len(cells)} tab-separated cells, at most {len(COLUMNS)} "
                                     f"({', '.join(COLUMNS)}); is there a tab inside a reason?")
    if len(cells) < 2:
        raise _invalid(path, lineno, "no decision; a row is work_id<TAB>decision[<TAB>reason<TAB>decided_by"
                                     "<TAB>decided_at]")
    decision = Decision(*[c.strip() for c in cells])
    why = _problem(decision)
    if why:
        raise _invalid(path, lineno, why)
    return Decision(work_id_of(decision.work_id), decision.decision.lower(), *[clean(c) for c in cells[2:]])


def _add(path: Path, lineno: int, decision: Decision, decisions: dict[str, Decision],
         lines: dict[str, int]) -> None:
    """Add one line's decision; a work decided on an earlier line too is a DataError naming both lines."""
    if decision.work_id in lines:
        raise _invalid(path, lineno, f"{decision.work_id} is also decided on line {lines[decision.work_id]}; "
                                     "keep one of the two lines", first_line=lines[decision.work_id])
    lines[decision.work_id] = lineno
    decisions[decision.work_id] = decision


@dataclass
class _Parsed:
    """A curation file's decisions, and the lines people wrote around them (comments, blank lines): each
    kept with the row it precedes (`before`), or before the header or after the last row."""
    decisions: dict[str, Decision]
    before: dict[str, list[str]]
    head: list[str]
    tail: list[str]


def read(path: str | Path) -> dict[str, Decision]:
    """The decisions in `path` in file order (an absent file holds none); a bad line is a DataError."""
    return _parse(Path(path)).decisions


def _parse(path: Path) -> _Parsed:
    try:
        text = textio.read_text(path, max_bytes=MAX_BYTES)
    except DataError as exc:
        if exc.code == "FILE_MISSING":
            return _Parsed({}, {}, [], [])
        raise
    found = _Parsed({}, {}, [], [])
    lines: dict[str, int] = {}
    first, notes = True, []
    rows = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for lineno, line in enumerate(rows[:-1] if rows[-1] == "" else rows, 1):
        if len(line) > MAX_LINE:
            raise _invalid(path, lineno, f"line longer than {MAX_LINE} characters; shorten its reason")
        if not line.strip() or line.lstrip().startswith("#"):
            notes.append(line)
            continue
        cells = line.split("\t")
        if first and _is_header(cells):
            _check_header(path, lineno, cells)
            found.head, notes = notes, []
        else:
            decision = _row(path, lineno, cells)
            _add(path, lineno, decision, found.decisions, lines)
            if notes:
                found.before[decision.work_id], notes = notes, []
        first = False
    found.tail = notes
    return found


def render(decisions: dict[str, Decision], around: _Parsed | None = None) -> str:
    """The file holding `decisions`, sorted by work ID, with the comments and blank lines `around` held
    kept beside the rows they preceded (those of a withdrawn decision move to the end)."""
    around = around or _Parsed({}, {}, [], [])
    out = io.StringIO()
    out.writelines(line + "\n" for line in around.head)
    out.write(header())
    for work_id in sorted(decisions):
        d = decisions[work_id]
        out.writelines(line + "\n" for line in around.before.get(work_id, []))
        out.write("\t".join([d.work_id, d.decision, clean(d.reason), clean(d.decided_by),
                             clean(d.decided_at)]) + "\n")
    orphans = [line for work_id, notes in sorted(around.before.items()) if work_id not in decisions
               for line in notes]
    out.writelines(line + "\n" for line in orphans + around.tail)
    return out.getvalue()


def lock_for(path: Path) -> FileLock:
    return FileLock(str(path.parent / f".{path.name}.lock"))


def _checked(decision: Decision) -> Decision:
    """`decision` as the file will hold it; one that cannot be recorded is a DataError."""
    why = _problem(decision)
    if why:
        raise DataError(f"cannot record {decision.work_id!r}: {why}", code="CURATION_INVALID",
                        details={"work_id": str(decision.work_id)})
    return Decision(work_id_of(decision.work_id), decision.decision.lower(), clean(decision.reason),
                    clean(decision.decided_by), clean(decision.decided_at))


def record(path: str | Path, new: Iterable[Decision], *, wait: float = 0,
           most: int = MAX_IDS_PER_CALL) -> dict[str, Decision]:
    """Add `new` decisions under the file lock; return the file's decisions after the write. `most`: the
    decisions one call may make (a spreadsheet applied at once may hold more than a command line)."""
    path = Path(path)
    new = [_checked(d) for d in capped(list(new), most)]

    def add(decisions: dict[str, Decision]) -> None:
        for decision in new:
            decisions[decision.work_id] = decision
    return _update(path, add, wait)


def withdraw(path: str | Path, work_ids: Iterable[str], *, wait: float = 0) -> dict[str, Decision]:
    """Remove the decisions of `work_ids` under the file lock (the works are pending again); return the
    file's decisions after the write. IDs without a decision are left alone."""
    path, work_ids = Path(path), capped(list(work_ids))

    def remove(decisions: dict[str, Decision]) -> None:
        for work_id in work_ids:
            decisions.pop(work_id, None)
    return _update(path, remove, wait)


def capped(items: list, most: int = MAX_IDS_PER_CALL) -> list:
    """`items`, or TOO_MANY_IDS when one call names more than `most` works."""
    if len(items) > most:
        raise DataError(f"{len(items)} IDs in one call; at most {most}: split them over "
                        "several calls, or decide them in a spreadsheet with `b2g curate apply FILE`",
                        code="TOO_MANY_IDS")
    return items


def totals(decisions: dict[str, Decision]) -> dict[str, int]:
    """How many works the file accepts and rejects."""
    return {kind: sum(d.decision == kind for d in decisions.values()) for kind in ("accept", "reject")}


def _update(path: Path, change, wait: float) -> dict[str, Decision]:
    """Read, change and rewrite the file under its lock: one writer at a time, no decision lost. A
    symlinked file is written through (a file shared between checkouts stays shared); a file nobody may
    write (a frozen review) is refused, not replaced."""
    target = Path(os.path.realpath(path))
    lock = lock_for(target)
    try:
        with lock.acquire(timeout=wait):
            found = _parse(target)
            _refuse_read_only(path, target)
            change(found.decisions)
            write_text(target, render(found.decisions, found))
            return found.decisions
    except Timeout:
        raise WorkspaceLockedError(f"{path} is locked by another b2g process; retry, or pass --wait SECONDS",
                                   ) from None
    except OSError as exc:
        raise WorkspaceError(f"{path} cannot be written ({exc.strerror or exc}); check the permissions of "
                             f"{target.parent}", code="WORKSPACE_UNWRITABLE", details={"file": str(path)}) from None


def _refuse_read_only(path: Path, target: Path) -> None:
    """WORKSPACE_UNWRITABLE when the file's mode lets nobody write it, or this user may not: replacing it
    would undo its protection (root may write anything, so the mode bits are read too)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise WorkspaceError(f"{path} is read-only (mode {mode:o}), so no decision was recorded; make it "
                             f"writable (chmod u+w {path}) to record decisions", code="WORKSPACE_UNWRITABLE",
                             details={"file": str(path)})


def as_rows(decisions: dict[str, Decision]) -> list[dict[str, str]]:
    return [dict(zip(COLUMNS, (d.work_id, d.decision, d.reason, d.decided_by, d.decided_at)))
            for _, d in sorted(decisions.items())]
