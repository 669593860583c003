"""Where the OpenAlex works snapshot keeps its partitions: the one place that knows its layout.

OpenAlex distributes the works as gzipped JSON Lines under ``data/works/updated_date=YYYY-MM-DD/
part_NNN.gz`` and lists them in ``data/works/manifest`` (Redshift's manifest format:
``{"entries": [{"url": "s3://openalex/data/works/updated_date=…/part_000.gz", "meta":
{"content_length": …, "record_count": …}}], "meta": {…}}``). A partition is named here by its key,
``YYYY-MM-DD.part_NNN``: one Snakemake job each (the `part` wildcard), so the key holds no slash.

The manifest is the list when the folder has one (a partition it lists and the folder lacks is then a
missing input, which is what a half-finished download is); a folder without one is globbed. Nothing
here reads a partition, so the registry can list the jobs of a snapshot of any size at once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import DataError

WORKS = "data/works"
MANIFEST = f"{WORKS}/manifest"
_PARTITION = re.compile(r"(?:^|/)data/works/updated_date=(\d{4}-\d{2}-\d{2})/(part_\d+)\.gz$")
KEY_PATTERN = r"\d{4}-\d{2}-\d{2}\.part_\d+"   # Snakemake's constraint on the `part` wildcard


def partition_key(relative: str) -> str | None:
    """``data/works/updated_date=2024-01-01/part_000.gz`` → ``2024-01-01.part_000``; None for another file."""
    found = _PARTITION.search(relative)
    return f"{found.group(1)}.{found.group(2)}" if found else None


def partition_file(key: str) -> str:
    """The partition's path below the snapshot folder."""
    date, part = key.split(".", 1)
    return f"{WORKS}/updated_date={date}/{part}.gz"


def partitions(folder: str | Path) -> list[str]:
    """The keys of the snapshot's partitions, sorted (oldest date first): from its manifest, else its files.
    A folder that is neither is an empty list (the preflight says so)."""
    folder = Path(folder)
    manifest = folder / MANIFEST
    if manifest.is_file():
        return sorted(set(_manifest_keys(manifest)))
    found = (partition_key(p.relative_to(folder).as_posix()) for p in folder.glob(f"{WORKS}/updated_date=*/part_*.gz"))
    return sorted({key for key in found if key})


def _manifest_keys(path: Path) -> list[str]:
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
        urls = [entry["url"] for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not an OpenAlex snapshot manifest ({exc})", code="FILE_INVALID",
                        details={"file": str(path)}) from None
    keys = [partition_key(url) if isinstance(url, str) else None for url in urls]
    bad = [url for url, key in zip(urls, keys) if key is None]
    if bad:
        raise DataError(f"{path}: entry {bad[0]!r} is not a works partition (data/works/updated_date=…/part_N.gz)",
                        code="FILE_INVALID", details={"file": str(path)})
    return keys
