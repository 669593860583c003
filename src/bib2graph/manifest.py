"""The manifest every job writes beside its outputs: what made them, from what, and how big they are.

No clocks and no absolute paths, so that equal inputs give an equal manifest. Paths are relative to
the workspace root; files shipped with bib2graph are named `bundled:…`. The hashes it records are
what `b2g status` and `b2g run` compare the files on disk with: an output edited, replaced or
corrupted after its job wrote it, or an input that is no longer what the job read, makes that job
stale even where file times say nothing (Snakemake itself only compares times and params).

Hashing every file on every status call would cost seconds per gigabyte, so the job also leaves the
(size, mtime) of each file it hashed in `.snakemake/b2g/stat/<job>.json`, outside the artifacts; a
file whose size and mtime are unchanged is taken to hold the content recorded then, as make and
Snakemake assume.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .atomic import canonical_json, sha256_file, sha256_text, write_json
from .paths import bundled_data_dir

STAT_DIR = Path(".snakemake/b2g/stat")


def name_of(path: str | Path, root: Path | None = None) -> str:
    """A file's name in a manifest: relative to the workspace `root` (default: the current folder),
    or `bundled:…`."""
    path = Path(path).resolve()
    try:
        return "bundled:" + path.relative_to(bundled_data_dir().resolve()).as_posix()
    except ValueError:
        pass
    try:
        return path.relative_to((root or Path.cwd()).resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def path_of(name: str, root: Path) -> Path:
    """The file a manifest name stands for, in the workspace at `root`."""
    if name.startswith("bundled:"):
        return bundled_data_dir() / name[len("bundled:"):]
    return root / name


def _stat(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _stat_file(root: Path, job: str) -> Path:
    return root / STAT_DIR / f"{job.replace(':', '.')}.json"


def write_manifest(path: str | Path, job: str, spec_part: str, inputs: Iterable[str | Path],
                   outputs: Iterable[str | Path], counts: dict[str, Any],
                   skipped: list[dict[str, str]] = ()) -> dict[str, Any]:
    """Write `manifest.json` for one job's outputs (and its stat record); return the manifest."""
    hashed: dict[str, tuple[str, list[int]]] = {}
    for file in sorted(set(map(str, inputs)) | set(map(str, outputs))):
        if os.path.isfile(file):
            hashed[name_of(file)] = (sha256_file(file), _stat(Path(file)))
    manifest = {
        "artifact": job,
        "bib2graph_version": __version__,
        "spec_hash": sha256_text(spec_part),
        "inputs": {name_of(p): hashed[name_of(p)][0] for p in sorted(map(str, inputs)) if name_of(p) in hashed},
        "outputs": {name_of(p): hashed[name_of(p)][0] for p in sorted(map(str, outputs)) if name_of(p) in hashed},
        "counts": counts,
        "skipped": list(skipped),
    }
    manifest["digest"] = _digest(manifest)
    write_json(path, manifest)
    write_json(_stat_file(Path.cwd(), job), {name: [sha, *stat] for name, (sha, stat) in hashed.items()})
    return manifest


def _digest(manifest: dict[str, Any]) -> str:
    """The hash of a manifest's own content: an edit by hand that leaves it valid JSON still shows."""
    return sha256_text(canonical_json({k: v for k, v in manifest.items() if k != "digest"}))


def read_manifest(path: Path) -> dict[str, Any] | None:
    """A manifest, or None when it is missing, unreadable, not one, or not as its job wrote it."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(found, dict) and isinstance(found.get("inputs"), dict) and isinstance(found.get("outputs"), dict)
    return found if ok and found.get("digest") == _digest(found) else None


def changed_files(root: Path, job: str, manifest: dict[str, Any]) -> list[str]:
    """The recorded inputs and outputs of `job` whose content is no longer what the manifest says.

    A file that has disappeared is not listed here: Snakemake sees a missing output or input itself.
    """
    try:
        cache = json.loads(_stat_file(root, job).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    changed = []
    for name, digest in sorted({**manifest["inputs"], **manifest["outputs"]}.items()):
        file = path_of(name, root)
        if not file.is_file():
            continue
        known = cache.get(name)
        if isinstance(known, list) and known[1:] == _stat(file) and known[0] == digest:
            continue
        try:
            same = sha256_file(file) == digest
        except OSError:    # unreadable now: not known to be the same, and its reader says why (status warns)
            same = False
        if not same:
            changed.append(name)
    return changed
