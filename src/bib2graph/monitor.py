"""Monitoring a living review: which works now cite the included corpus that the review does not know.

Each run asks OpenAlex afresh (`cites:` over the corpus, batched; responses still land in the raw
store). A citing work is *new* when the review has not met it yet: it is not in the pool (seeds and
chained works, whatever people decided about them), not among the chaining candidates (admitted or
not), not decided in `config/curation.tsv` and not already pending. So the first monitor after a build
reports every work that appeared since the build, and a work is reported once: new works are appended
to `resources/monitor/pending.jsonl.gz` with their provenance (the corpus works they cite, the day
first seen). The chain phase adds pending works to the pool as candidates of origin `monitor`, so they
are screened, filtered and curated like any other. A dated delta report lists each run's news.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any, Iterable

from .atomic import write_bytes, write_json
from .errors import DataError
from .ids import short_id

PENDING = Path("resources/monitor/pending.jsonl.gz")
REPORTS = Path("results/monitor")


def read_pending(root: Path) -> list[dict[str, Any]]:
    """The pending works of the workspace at `root`, oldest first (none before the first monitor)."""
    path = root / PENDING
    return read_pending_file(path) if path.is_file() else []


def read_pending_file(path: Path) -> list[dict[str, Any]]:
    """Pending works (OpenAlex objects with a `_b2g` provenance entry); a damaged file is a DataError."""
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
        # one work a line, split at "\n" only: the JSON keeps U+2028, U+2029 and U+0085 of a title as they
        # are, and str.splitlines would break the line there
        works = [json.loads(line) for line in text.split("\n") if line.strip()]
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise DataError(f"{path} is damaged ({exc}); restore it from version control, or delete it to drop "
                        "the works `b2g monitor` left pending", code="ARTIFACT_CORRUPT",
                        details={"file": str(path)}) from None
    if not all(isinstance(w, dict) and isinstance(w.get("id"), str) and isinstance(w.get("_b2g"), dict)
               for w in works):
        raise DataError(f"{path} holds lines that are not pending works", code="ARTIFACT_CORRUPT",
                        details={"file": str(path)})
    return works


def write_pending(root: Path, works: Iterable[dict[str, Any]]) -> None:
    lines = "".join(json.dumps(w, sort_keys=True, ensure_ascii=False) + "\n" for w in works)
    write_bytes(root / PENDING, gzip.compress(lines.encode("utf-8"), mtime=0))


def new_citing(citing: dict[str, list[dict[str, Any]]], known: set[str], day: str) -> list[dict[str, Any]]:
    """Citing works not in `known`, each once, with the corpus works it cites, sorted by ID."""
    found: dict[str, dict[str, Any]] = {}
    for cited, works in citing.items():
        for work in works:
            work_id = short_id(work.get("id")) or ""
            if not work_id or work_id in known:
                continue
            entry = found.setdefault(work_id, {**work, "_b2g": {"via": [], "first_seen": day}})
            entry["_b2g"]["via"] = sorted(set(entry["_b2g"]["via"]) | {cited})
    return [found[k] for k in sorted(found)]


def write_delta(root: Path, stamp: str, new: list[dict[str, Any]], checked: int) -> Path:
    """`results/monitor/delta-<stamp>.json`: this run's new works, for people to read and diff. A second
    run in the same second (the GUI's and the MCP server's calls are one process) writes
    `delta-<stamp>-2.json`, and so on: no run's report replaces another's (the monitor lock is held)."""
    path, n = root / REPORTS / f"delta-{stamp}.json", 2
    while path.exists():
        path, n = root / REPORTS / f"delta-{stamp}-{n}.json", n + 1
    write_json(path, {"run": stamp, "corpus_works_checked": checked, "new": [
        {"work_id": short_id(w["id"]), "title": w.get("title") or w.get("display_name"),
         "year": w.get("publication_year"), "doi": w.get("doi"), "cites": w["_b2g"]["via"]} for w in new]})
    return path
