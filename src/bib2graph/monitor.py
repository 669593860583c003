"""Monitoring a living review: which works now cite the included corpus that were not seen before.

Each run asks OpenAlex afresh (`cites:` over the corpus, batched; responses still land in the raw
store) and remembers every citing work it saw in `resources/monitor/seen.txt`. The first run only
sets that baseline (what already cited the corpus when monitoring began is not news); later runs
append the works not seen, pooled or pending before to `resources/monitor/pending.jsonl.gz`, with
their provenance (the corpus works they cite, the day first seen). The chain phase adds pending works to the pool as candidates of origin `monitor`, so they
are screened, filtered and curated like any other. A dated delta report lists each run's news.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Iterable

from .atomic import write_bytes, write_json
from .ids import short_id

PENDING = Path("resources/monitor/pending.jsonl.gz")
SEEN = Path("resources/monitor/seen.txt")
REPORTS = Path("results/monitor")


def read_pending(root: Path) -> list[dict[str, Any]]:
    """The pending works (OpenAlex objects with a `_b2g` provenance entry), oldest first."""
    path = root / PENDING
    if not path.is_file():
        return []
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines() if line]


def write_pending(root: Path, works: Iterable[dict[str, Any]]) -> None:
    lines = "".join(json.dumps(w, sort_keys=True, ensure_ascii=False) + "\n" for w in works)
    write_bytes(root / PENDING, gzip.compress(lines.encode("utf-8"), mtime=0))


def read_seen(root: Path) -> set[str] | None:
    """The citing works earlier runs saw; None before the first run."""
    path = root / SEEN
    return set(path.read_text(encoding="utf-8").split()) if path.is_file() else None


def write_seen(root: Path, seen: set[str]) -> None:
    write_bytes(root / SEEN, "".join(f"{w}\n" for w in sorted(seen)).encode("utf-8"))


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
    """`results/monitor/delta-<stamp>.json`: this run's new works, for people to read and diff."""
    path = root / REPORTS / f"delta-{stamp}.json"
    write_json(path, {"run": stamp, "corpus_works_checked": checked, "new": [
        {"work_id": short_id(w["id"]), "title": w.get("title") or w.get("display_name"),
         "year": w.get("publication_year"), "doi": w.get("doi"), "cites": w["_b2g"]["via"]} for w in new]})
    return path
