"""Places a verb writes where the user says (`--out`, `restore --into`): never what a workspace keeps or
the call reads.

Inside a workspace (this one, or any folder above the place that holds a spec, a sealed snapshot among
them) only `USER_FOLDERS` under `results/` take such a file: `config/` holds the spec and the decisions,
`.snakemake/` Snakemake's and bib2graph's state, and the rest of `results/` the workflow's artifacts and
the sealed snapshots, which a file written there would replace (`curate dump --out
results/chain/pool/works.parquet` replaced the table it had just read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..errors import UsageError
from ..paths import SPEC_FILE
from .workspace import Workspace

#: the folders under a workspace's results/ that hold what verbs write for the user (the defaults of
#: `curate dump`, `simulate` and `snapshot restore`); no rule writes there
USER_FOLDERS = ("results/curation", "results/simulations", "results/restored")


def kept_place(ws: Workspace, resolved: Path) -> str | None:
    """What a workspace keeps at the resolved path (its own and every enclosing workspace's), or None."""
    roots = {ws.root.resolve()} | {folder for folder in resolved.parents if (folder / SPEC_FILE).is_file()}
    for root in sorted(roots):
        if resolved != root and root not in resolved.parents:
            continue
        parts = resolved.relative_to(root).parts
        head = parts[0] if parts else ""
        if head == "config":
            return "a workspace's config/ (the spec and the decisions)"
        if head == ".snakemake":
            return "a workspace's .snakemake/ (Snakemake's and bib2graph's state)"
        if head == "results" and not any(parts[:2] == tuple(f.split("/")) for f in USER_FOLDERS):
            return "a workspace's results/ (the workflow's artifacts and the sealed snapshots)"
    return None


def _refused(option: str, path: Path, place: str) -> UsageError:
    folders = ", ".join(f"{f}/" for f in USER_FOLDERS)
    return UsageError(f"{option} {path} is inside {place}; write it elsewhere: under {folders} or outside "
                      "the workspace", details={"path": str(path)})


def user_output(ws: Workspace, path: Path, reads: Iterable[Path] = ()) -> Path:
    """`path`, checked before anything is written: a place a workspace keeps (the module docstring), a
    file the call reads, or anything but a regular file (a folder, a device: the atomic rename would
    replace it) is refused, since writing there loses what was there."""
    resolved = path.resolve()
    place = kept_place(ws, resolved)
    if place is not None:
        raise _refused("--out", path, place)
    if any(resolved == Path(read).resolve() for read in reads):
        raise UsageError(f"--out {path} is the file this call reads; write it elsewhere",
                         details={"path": str(path)})
    if resolved.exists() and not resolved.is_file():
        raise UsageError(f"--out {path} exists and is not a regular file (a folder or a device); "
                         "name a file", details={"path": str(path)})
    return path


def user_folder(ws: Workspace, path: Path, option: str) -> Path:
    """`path` (resolved), a new folder the call fills (`restore --into`), checked before anything is
    written: a place a workspace keeps is refused, as is a file or a device in its stead."""
    resolved = path.resolve()
    place = kept_place(ws, resolved)
    if place is not None:
        raise _refused(option, path, place)
    if resolved.exists() and not resolved.is_dir():
        raise UsageError(f"{option} {path} exists and is not a folder; name a new folder",
                         details={"path": str(path)})
    return resolved
