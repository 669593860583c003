"""`curate dump` / `curate apply`: curation at scale through a spreadsheet.

`dump` writes a CSV (UTF-8 with a BOM, so Excel reads it right) of the works awaiting a decision:
ID, DOI, title, year, venue, authors, abstract, why the work is here, the current decision, and two
empty columns to fill: `decision` (accept, reject or empty) and `reason`. Cells a spreadsheet would run
as formulas are prefixed with a quote. `apply` reads such a file back (a BOM, CRLF and the quote
prefix are tolerated; rows may name works by OpenAlex ID, URL or DOI), checks every row first and
changes nothing if any decision is not accept/reject/empty; rows naming unknown works are reported.
Only rows whose decision differs from the recorded one are written.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from .. import curation, query
from ..atomic import write_text
from ..errors import DataError
from ..export.csv import frame_text
from ..paths import CURATION_FILE
from .curate import known_works, resolve_one
from .result import Result
from .workspace import Workspace

COLUMNS = ["work_id", "doi", "title", "year", "venue", "authors", "abstract", "why_here",
           "current_decision", "decision", "reason"]
MAX_ROWS = 100_000


def dump(ws: Workspace, out: str | None, everything: bool) -> Result:
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
    path = Path(out) if out else ws.path("results/curation/to-screen.csv")
    if not path.is_absolute():
        path = Path.cwd() / path
    write_text(path, "\ufeff" + frame_text(frame))
    return Result(data={"workspace": ws.describe(), "path": str(path), "rows": len(frame),
                        "next": f"b2g curate apply {path}"}, warnings=ws.warnings())


def _undefuse(value: str) -> str:
    value = (value or "").strip()
    return value[1:] if value.startswith("'") and value[1:2] in ("=", "+", "-", "@") else value


def read_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a reviewed CSV; a decision outside accept/reject/empty fails the whole file."""
    if not path.is_file():
        raise DataError(f"{path} does not exist", code="FILE_MISSING")
    text = path.read_bytes().decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    reader = csv.DictReader(io.StringIO(text))
    fields = {f.strip().lower() for f in reader.fieldnames or []}
    key = next((k for k in ("work_id", "id", "openalex_id", "doi") if k in fields), None)
    if key is None or "decision" not in fields:
        raise DataError(f"{path}: needs an ID column (work_id, id, openalex_id or doi) and a decision column",
                        code="CURATION_INVALID")
    rows, bad = [], []
    for number, row in enumerate(reader, 2):
        if number > MAX_ROWS:
            raise DataError(f"{path}: more than {MAX_ROWS} rows", code="TOO_MANY_IDS")
        row = {(k or "").strip().lower(): _undefuse(v if isinstance(v, str) else "") for k, v in row.items()}
        decision = row.get("decision", "").lower()
        if decision not in ("", "accept", "reject"):
            bad.append(f"line {number}: {row.get('decision')!r}")
        rows.append({"line": number, "id": row.get(key, ""), "decision": decision, "reason": row.get("reason", "")})
    if bad:
        raise DataError(f"{path}: decisions must be accept, reject or empty; nothing was changed ({'; '.join(bad[:5])})",
                        code="CURATION_INVALID", details={"bad_rows": bad})
    return rows


def apply(ws: Workspace, file: str, who: str, when: str) -> Result:
    rows = [r for r in read_rows(Path(file)) if r["decision"]]
    known = known_works(ws)
    recorded = curation.read(ws.path(CURATION_FILE))
    new, unknown, unchanged = [], [], 0
    for row in rows:
        work_id = resolve_one(row["id"], known)
        if work_id is None:
            unknown.append({"line": row["line"], "id": row["id"]})
            continue
        current = recorded.get(work_id)
        if current and current.decision == row["decision"] and current.reason == " ".join(row["reason"].split()):
            unchanged += 1
            continue
        new.append(curation.Decision(work_id, row["decision"], row["reason"], who, when))
    if new:
        curation.record(ws.path(CURATION_FILE), new)
    warnings = ws.warnings() + [f"line {u['line']}: {u['id']!r} names no pooled work" for u in unknown]
    return Result(data={"workspace": ws.describe(), "applied": sorted(d.work_id for d in new),
                        "unchanged": unchanged, "unknown": unknown, "next": "b2g run"}, warnings=warnings)
