"""Where the OpenAlex works snapshot keeps its partitions: the one place that knows its layouts.

OpenAlex distributes the works as gzipped JSON Lines, one dated partition per ``updated_date``, in one
of three layouts (https://developers.openalex.org/download/snapshot-format), found from the folder:

* current (2026 on): ``data/jsonl/works/updated_date=YYYY-MM-DD/part_NNNN.gz``, listed with every
  other entity in one combined ``data/jsonl/manifest.json``;
* pre-2026: ``data/works/updated_date=YYYY-MM-DD/part_NNN.gz``, listed in ``data/works/manifest``;
* the same pre-2026 layout as OpenAlex now keeps it, under ``legacy-data/works/`` with
  ``legacy-data/works/manifest``.

The manifests are in Redshift's format: ``{"entries": [{"url": "s3://openalex/…/updated_date=…/part_000.gz",
"meta": {"content_length": …, "record_count": …}}], "meta": {…}}``. A partition is named here by its key,
``YYYY-MM-DD.part_NNN``: one Snakemake job each (the `part` wildcard), so the key holds no slash.

The manifest is the list when the folder has one (a partition it lists and the folder lacks is then a
missing input, which is what a half-finished download is); a folder without one is globbed. Nothing
here reads a partition, so the registry can list the jobs of a snapshot of any size at once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError


@dataclass(frozen=True)
class Layout:
    """One way a snapshot folder holds its works: their folder and the manifest that lists them."""

    works: str       # below the snapshot folder
    manifest: str
    combined: bool   # the manifest lists every entity, not the works only


CURRENT = Layout("data/jsonl/works", "data/jsonl/manifest.json", combined=True)
PRE_2026 = Layout("data/works", "data/works/manifest", combined=False)
LEGACY = Layout("legacy-data/works", "legacy-data/works/manifest", combined=False)
LAYOUTS = (CURRENT, PRE_2026, LEGACY)   # the first a folder holds is read

WORKS, MANIFEST = PRE_2026.works, PRE_2026.manifest   # the layout a folder of none of them is taken for
_PARTITION = re.compile(r"(?:^|/)(data/jsonl/works|data/works|legacy-data/works)/updated_date=(\d{4}-\d{2}-\d{2})/"
                        r"(part_\d+)\.gz$")
KEY_PATTERN = r"\d{4}-\d{2}-\d{2}\.part_\d+"   # Snakemake's constraint on the `part` wildcard


def layout(folder: str | Path) -> Layout:
    """The layout of the snapshot at `folder`: the first of `LAYOUTS` whose works folder or manifest is
    there, else the pre-2026 one (so that a missing folder is named as the spec's docs name it)."""
    folder = Path(folder)
    return next((found for found in LAYOUTS if (folder / found.works).is_dir() or (folder / found.manifest).is_file()),
                PRE_2026)


def partition_key(relative: str) -> str | None:
    """``data/jsonl/works/updated_date=2024-01-01/part_0000.gz`` (or a pre-2026 path) →
    ``2024-01-01.part_0000``; None for another file."""
    found = _PARTITION.search(relative)
    return f"{found.group(2)}.{found.group(3)}" if found else None


def partition_file(key: str, folder: str | Path | None = None) -> str:
    """The partition's path below the snapshot folder, in the folder's layout."""
    date, part = key.split(".", 1)
    works = (layout(folder) if folder is not None else PRE_2026).works
    return f"{works}/updated_date={date}/{part}.gz"


def partitions(folder: str | Path) -> list[str]:
    """The keys of the snapshot's partitions, sorted (oldest date first): from its manifest, else its files.
    A folder that is neither is an empty list (the preflight says so)."""
    folder = Path(folder)
    found = layout(folder)
    manifest = folder / found.manifest
    if manifest.is_file():
        return sorted(set(_manifest_keys(manifest, found)))
    files = folder.glob(f"{found.works}/updated_date=*/part_*.gz")
    return sorted({key for key in (partition_key(p.relative_to(folder).as_posix()) for p in files) if key})


def _manifest_keys(path: Path, found: Layout) -> list[str]:
    """The works partitions a manifest lists; a works manifest listing anything else is not one, a
    combined one lists the other entities too, which are passed over."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
        urls = [entry["url"] for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not an OpenAlex snapshot manifest ({exc})", code="FILE_INVALID",
                        details={"file": str(path)}) from None
    if found.combined:
        urls = [url for url in urls if isinstance(url, str) and f"/{found.works}/" in url]
    keys = [partition_key(url) if isinstance(url, str) else None for url in urls]
    bad = [url for url, key in zip(urls, keys) if key is None]
    if bad:
        raise DataError(f"{path}: entry {bad[0]!r} is not a works partition ({found.works}/updated_date=…/part_N.gz)",
                        code="FILE_INVALID", details={"file": str(path)})
    return keys
