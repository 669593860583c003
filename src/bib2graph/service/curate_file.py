"""`curate dump` / `curate apply`: curation at scale through a spreadsheet.

`dump` writes a CSV (UTF-8 with a BOM, so Excel reads it right) of the works awaiting a decision:
ID, DOI, title, year, venue, authors, abstract, why the work is here, the current decision, and two
empty columns to fill: `decision` (accept, reject or empty) and `reason`. Cells a spreadsheet would run
as formulas are prefixed with a quote. `apply` reads such a file back as a spreadsheet saves it: UTF-8
(with or without a BOM) or UTF-16 with a BOM (Excel's "Unicode Text"), separated by commas, semicolons or
tabs (whichever the header uses most), CRLF line ends, the quote prefix. Rows may name works by OpenAlex
ID, URL or DOI. Every row is checked first and the file changes nothing if any row is bad — a decision
other than accept/reject/empty, a reject without a reason, a row with more cells than the header, one work
both accepted and rejected — and the error lists every such line. Rows naming unknown works are reported.
Only rows whose decision or reason differs from the recorded one are written.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from .. import curation, delimited, query, textio
from ..atomic import write_text
from ..errors import DataError
from ..export.csv import frame_text
from ..ids import normalize_doi, normalize_pmid
from ..paths import CURATION_FILE
from .curate import Known, known_works, resolve_one
from .outputs import user_output
from .result import Result
from .workspace import Workspace, given

ID_COLUMNS = ("work_id", "id", "openalex_id", "doi")
PROBLEMS = {"cells": "more cells than the header (a delimiter inside an unquoted cell?)",
            "decision": "a decision other than accept, reject or empty",
            "reason": "a reject without a reason (say why in the reason column; PRISMA reports it)",
            "long": f"a reason longer than {curation.MAX_TEXT:,} characters (shorten it; it is never cut)"}
COLUMNS = ["work_id", "doi", "title", "year", "venue", "authors", "abstract", "why_here",
           "current_decision", "decision", "reason"]
MAX_ROWS = 100_000


def dump(ws: Workspace, out: str | None, everything: bool) -> Result:
    path = Path(out) if given("--out", out) else ws.path("results/curation/to-screen.csv")
    if not path.is_absolute():
        path = Path.cwd() / path
    user_output(ws, path)
    results = ws.path("results")
    pool = results / "chain/pool"
    if not (pool / "works.parquet").is_file():
        raise DataError("no pooled works yet; run `b2g run chain` first", code="ARTIFACT_MISSING")
    rows = query.rows("""
        SELECT w.work_id, w.doi, w.title, w.year, w.venue,
               (SELECT string_agg(a.author_name, '; ' ORDER BY a.position) FROM read_parquet(?) a
                 WHERE a.work_id = w.work_id) AS authors,
               w.abstract, coalesce(c.direction || ' from ' || c.via, 'seed') AS why_here
        FROM read_parquet(?) w LEFT JOIN read_parquet(?) c ON c.work_id = w.work_id AND c.admitted
        ORDER BY w.work_id""", [str(pool / "authorships.parquet"), str(pool / "works.parquet"),
                                str(results / "chain/candidates.parquet")])
    decisions = curation.read(ws.path(CURATION_FILE))
    frame = pd.DataFrame(rows, columns=COLUMNS[:8])
    frame["current_decision"] = [decisions[w].decision if w in decisions else "" for w in frame.work_id]
    if not everything:
        frame = frame[(frame.current_decision == "") & (frame.why_here != "seed")]
    frame["decision"], frame["reason"] = "", ""
    frame["year"] = frame["year"].astype("Int64")
    write_text(path, "\ufeff" + frame_text(frame))
    return Result(data={"workspace": ws.describe(), "path": str(path), "rows": len(frame),
                        "next": f"b2g curate apply {path}"}, warnings=ws.warnings())


def _undefuse(value: str) -> str:
    value = (value or "").strip()
    return value[1:] if value.startswith("'") and value[1:2] in ("=", "+", "-", "@") else value


def _invalid(path: Path, line: int, message: str, **details) -> DataError:
    return DataError(f"{path}:{line}: {message}", code="CURATION_INVALID",
                     details={"file": str(path), "line": line, **details})


def _columns(path: Path, names: list[str], line: int) -> tuple[int, int, int | None]:
    """The positions of the ID, decision and reason columns in the header `names` (on `line`)."""
    key = next((k for k in ID_COLUMNS if k in names), None)
    if key is None or "decision" not in names:
        raise _invalid(path, line, "the header needs an ID column (work_id, id, openalex_id or doi) and a decision "
                                f"column; found {', '.join(map(repr, names)) or 'none'}")
    twice = [n for n in (key, "decision", "reason") if names.count(n) > 1]
    if twice:
        raise _invalid(path, line, f"the header names {', '.join(twice)} more than once; keep one such column")
    return names.index(key), names.index("decision"), names.index("reason") if "reason" in names else None


def _row(line: int, cells: list[str], columns: tuple[int, int, int | None], width: int,
         problems: list[dict]) -> dict[str, str | int]:
    """One data row as {line, id, decision, reason}; what is wrong with it is added to `problems`."""
    def cell(i: int | None) -> str:
        return _undefuse(cells[i]) if i is not None and i < len(cells) else ""

    row = {"line": line, "id": cell(columns[0]), "decision": cell(columns[1]).lower(), "reason": cell(columns[2])}
    if any(c.strip() for c in cells[width:]):
        problems.append({"line": line, "problem": PROBLEMS["cells"], "note": f"{len(cells)} cells"})
    if row["decision"] not in ("", *curation.DECISIONS):
        problems.append({"line": line, "problem": PROBLEMS["decision"], "note": repr(cell(columns[1]))})
    elif row["decision"] == "reject" and not curation.clean(row["reason"]):
        problems.append({"line": line, "problem": PROBLEMS["reason"], "note": ""})
    if row["decision"] and curation.too_long(row["reason"]):
        problems.append({"line": line, "problem": PROBLEMS["long"], "note": f"{len(curation.clean(row['reason'])):,}"})
    return row


def _summary(problems: list[dict]) -> str:
    """Every kind of problem with the lines that have it (the first 20 of each kind)."""
    lines: dict[str, list[str]] = {}
    for p in problems:
        lines.setdefault(p["problem"], []).append(f"{p['line']} ({p['note']})" if p["note"] else str(p["line"]))
    return "; ".join(f"{kind} on line(s) {', '.join(found[:20])}" + (f" and {len(found) - 20} more"
                                                                         if len(found) > 20 else "")
                     for kind, found in lines.items())


def read_rows(path: Path) -> list[dict[str, str | int]]:
    """The rows of a reviewed CSV; any bad row fails the whole file, and the error lists every bad line."""
    text = textio.read_text(path, max_bytes=curation.MAX_BYTES).replace("\r\n", "\n").replace("\r", "\n")
    reader = delimited.reader(text, strict=True)
    rows: list[dict[str, str | int]] = []
    problems: list[dict] = []
    end = 0
    try:
        names = [n.strip().lower() for n in next(reader, [])]
        columns = _columns(path, names, max(reader.line_num, 1))
        end = reader.line_num
        for cells in reader:
            line, end = end + 1, reader.line_num  # a quoted cell may span lines: a row starts after the last
            if not any(c.strip() for c in cells):
                continue
            if len(rows) == MAX_ROWS:
                raise DataError(f"{path}:{line}: more than {MAX_ROWS} rows; split the file", code="TOO_MANY_IDS",
                                details={"file": str(path), "line": line})
            rows.append(_row(line, cells, columns, len(names), problems))
    except csv.Error as exc:
        raise _invalid(path, end + 1, f"not readable as CSV ({exc}); is a quote in this row left open, or "
                                      "followed by text before the next delimiter?") from None
    if problems:
        raise _invalid(path, problems[0]["line"], f"nothing was changed: {_summary(problems)}",
                       bad_rows=problems)
    return rows


def _decided(path: Path, rows: list[dict],
             known: Known | None) -> tuple[dict[str, dict], list[dict]]:
    """(work ID → its row, unknown rows); one work given two different decisions is a DataError naming
    both lines (rows may name a work by ID and by DOI, so this is checked after resolving them)."""
    decided: dict[str, dict] = {}
    unknown, clashes = [], []
    for row in rows:
        work_id = resolve_one(row["id"], known)
        if work_id is None:
            unknown.append({"line": row["line"], "id": row["id"]})
            continue
        first = decided.get(work_id)
        if first is not None and first["decision"] != row["decision"]:
            clashes.append({"work_id": work_id, "lines": [first["line"], row["line"]]})
        else:
            decided[work_id] = row  # the same decision again: the later reason wins
    if clashes:
        listed = "; ".join(f"{c['work_id']} on lines {c['lines'][0]} and {c['lines'][1]}" for c in clashes[:20])
        raise DataError(f"{path}:{clashes[0]['lines'][1]}: a work is both accepted and rejected ({listed}); "
                        "keep one decision per work; nothing was changed", code="CURATION_INVALID",
                        details={"file": str(path), "line": clashes[0]["lines"][1], "conflicts": clashes})
    return decided, unknown


def _no_id(cell: str) -> bool:
    """A cell with text that names no work in any form a row may: not an empty cell (an undecided row)."""
    return bool(cell.strip()) and not (curation.work_id_of(cell) or normalize_doi(cell) or normalize_pmid(cell))


def apply(ws: Workspace, file: str, who: str, when: str) -> Result:
    path = Path(file)
    every = read_rows(path)
    rows = [r for r in every if r["decision"]]
    decided, unknown = _decided(path, rows, known_works(ws))
    recorded = curation.read(ws.path(CURATION_FILE))
    new, unchanged = [], 0
    for work_id, row in decided.items():
        current = recorded.get(work_id)
        if current and current.decision == row["decision"] and current.reason == curation.clean(row["reason"]):
            unchanged += 1
            continue
        new.append(curation.Decision(work_id, row["decision"], row["reason"], who, when))
    if new:
        curation.record(ws.path(CURATION_FILE), new, most=MAX_ROWS)
    warnings = ws.warnings() + [f"line {u['line']}: {u['id']!r} names no pooled work" for u in unknown] + [
        f"line {r['line']}: {r['id'][:80]!r} is no work ID and the row has no decision, so it was left out (a line "
        "break inside an unquoted reason on the line before?)" for r in every if not r["decision"] and _no_id(r["id"])]
    return Result(data={"workspace": ws.describe(), "applied": sorted(d.work_id for d in new),
                        "unchanged": unchanged, "unknown": unknown, "next": "b2g run"}, warnings=warnings)
