"""A synthetic OpenAlex works snapshot, in one of OpenAlex's layouts (pre-2026 by default, below; the
current `data/jsonl/works/…/part_NNNN.gz` with `data/jsonl/manifest.json`, or `legacy-data/works/…`),
from real Work objects (the SYNERGY works).

    <folder>/data/works/updated_date=YYYY-MM-DD/part_NNN.gz   gzipped JSON Lines, one Work a line
    <folder>/data/works/manifest                            {"entries": [{"url": "s3://openalex/…",
                                                              "meta": {"content_length", "record_count"}}],
                                                             "meta": {"content_length", "record_count"}}

Works go to dated partitions in the order of their `updated_date` (each partition dated by its newest work,
as an incrementally synced snapshot is), Work objects unchanged, so a files source on the same objects is
the reference. `replicate` grows a set of works to N with new IDs, DOIs and titles (so that no merge rule
joins a copy to its original) and citations: a copy cites the copies of its original's references, plus a
few works of earlier copies. Used by tests/integration/test_snapshot_source.py and benchmarks/.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
from pathlib import Path
from collections import deque
from typing import Any, Iterable, Iterator

from bib2graph.sources.files import read_work_objects
from bib2graph.sources.snapshot_layout import PRE_2026, Layout, partition_key

SYNERGY = Path("/work/shared/data/synergy")


def synergy_works(*paths: str | Path) -> list[dict[str, Any]]:
    """The Work objects of SYNERGY works zips (default: every review under /work/shared/data/synergy)."""
    files = [Path(p) for p in paths] or sorted(SYNERGY.glob("*/works_*.zip"))
    return [work for path in files for work in read_work_objects(path)]


def _date(work: dict[str, Any]) -> str:
    return (work.get("updated_date") or "2023-01-01")[:10]


def write_partition(folder: str | Path, date: str, part: int, works: Iterable[dict[str, Any]],
                    level: int = 9, layout: Layout = PRE_2026) -> Path:
    """One partition file (byte-stable: gzip without a timestamp), in `layout` (the current one numbers
    parts with four digits)."""
    digits = 4 if layout.combined else 3
    path = Path(folder) / layout.works / f"updated_date={date}" / f"part_{part:0{digits}d}.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=level) as out:
        for work in works:
            out.write(json.dumps(work, ensure_ascii=False).encode("utf-8") + b"\n")
    return path


def write_manifest(folder: str | Path, layout: Layout = PRE_2026) -> Path:
    """The layout's manifest listing every partition file of `folder`, as OpenAlex writes it (the current
    layout's combined manifest lists an authors partition too, as the real one lists every entity)."""
    folder = Path(folder)
    entries = []
    for path in sorted(folder.glob(f"{layout.works}/updated_date=*/part_*.gz")):
        relative = path.relative_to(folder).as_posix()
        if partition_key(relative):
            with gzip.open(path, "rb") as stream:
                records = sum(1 for _ in stream)
            entries.append({"url": f"s3://openalex/{relative}",
                            "meta": {"content_length": path.stat().st_size, "record_count": records}})
    if layout.combined:
        entries.insert(0, {"url": "s3://openalex/data/jsonl/authors/updated_date=2024-01-01/part_0000.gz",
                           "meta": {"content_length": 1, "record_count": 1}})
    meta = {"content_length": sum(e["meta"]["content_length"] for e in entries),
            "record_count": sum(e["meta"]["record_count"] for e in entries)}
    path = folder / layout.manifest
    path.write_text(json.dumps({"entries": entries, "meta": meta}, indent=1), encoding="utf-8")
    return path


def write_snapshot(folder: str | Path, works: list[dict[str, Any]], dates: int = 3, parts: int = 1,
                   manifest: bool = True, layout: Layout = PRE_2026) -> list[Path]:
    """`works` in `dates` dated partitions of `parts` files each, oldest `updated_date` first."""
    ordered = sorted(works, key=lambda w: (_date(w), w["id"]))
    size = -(-len(ordered) // dates)
    written, last = [], ""
    for start in range(0, len(ordered), size):
        chunk = ordered[start:start + size]
        date = max(_date(chunk[-1]), _next_day(last) if last else "")
        last = date
        step = -(-len(chunk) // parts)
        for part, first in enumerate(range(0, len(chunk), step)):
            written.append(write_partition(folder, date, part, chunk[first:first + step], layout=layout))
    if manifest:
        write_manifest(folder, layout)
    return written


def _next_day(date: str) -> str:
    return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()


COPY_BASE, COPY_STRIDE = 9_000_000_000, 10_000_000   # copy k of the i-th work is W{COPY_BASE + k·COPY_STRIDE + i}


def original_id(work_id: str, works: list[dict[str, Any]]) -> str:
    """The ID of the work of `works` (as given to `replicas`) that `work_id` is a copy of, or itself."""
    number = int(work_id[1:])
    if number < COPY_BASE:
        return work_id
    return works[(number - COPY_BASE) % COPY_STRIDE]["id"].rsplit("/", 1)[-1]


def replicate(works: list[dict[str, Any]], n: int, seed: int = 0, cross: int = 3) -> list[dict[str, Any]]:
    """`works` and copies of them up to `n` works (`replicas`, as a list)."""
    return list(replicas(works, n, seed, cross))


def replicas(works: list[dict[str, Any]], n: int, seed: int = 0, cross: int = 3) -> Iterator[dict[str, Any]]:
    """`works` and copies of them up to `n` works, one at a time (a million copies do not fit in memory):
    copy k of W123 is a new work (ID, DOI and title marked with k) citing the copies k of its original's
    references and `cross` works among the last 50,000 before it."""
    rng = random.Random(seed)
    earlier: deque[str] = deque(maxlen=50_000)
    ids = [w["id"].rsplit("/", 1)[-1] for w in works]
    for work in works[:n]:
        earlier.append(work["id"])
        yield work
    made, copy_no = min(n, len(works)), 0
    while made < n:
        copy_no += 1
        renamed = {old: f"W{COPY_BASE + copy_no * COPY_STRIDE + i}" for i, old in enumerate(ids)}
        pool = list(earlier)
        for original in works:
            if made >= n:
                break
            work = dict(original)   # only top-level keys change: the nested objects are shared, never changed
            new_id = renamed[original["id"].rsplit("/", 1)[-1]]
            work["id"] = f"https://openalex.org/{new_id}"
            work.pop("ids", None)
            if work.get("doi"):
                work["doi"] = f"https://doi.org/10.5555/b2g.{copy_no}.{new_id.lower()}"
            if isinstance(work.get("title"), str):
                work["title"] = work["display_name"] = f"{work['title']} (copy {copy_no})"
            refs = [renamed.get(r.rsplit("/", 1)[-1], r.rsplit("/", 1)[-1]) for r in work.get("referenced_works") or []]
            refs += [e.rsplit("/", 1)[-1] for e in rng.sample(pool, min(cross, len(pool)))]
            work["referenced_works"] = [f"https://openalex.org/{r}" for r in dict.fromkeys(refs)]
            earlier.append(work["id"])
            made += 1
            yield work


def write_stream(folder: str | Path, works: Iterable[dict[str, Any]], n: int, dates: int, parts: int,
                 first: str = "2024-01-01", level: int = 1) -> list[Path]:
    """`n` works from a stream into `dates` × `parts` partitions in stream order, dated a day apart from
    `first` (a snapshot too large to sort in memory; gzip `level` 1 to write a million works quickly)."""
    stream, written = iter(works), []
    per_file = -(-n // (dates * parts))
    date = first
    for d in range(dates):
        for part in range(parts):
            chunk = [w for _, w in zip(range(per_file), stream)]
            if chunk:
                written.append(write_partition(folder, date, part, chunk, level))
        date = _next_day(date)
    write_manifest(folder)
    return written
