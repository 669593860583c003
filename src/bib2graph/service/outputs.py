"""Files a verb writes where the user says (`--out`): never what the workspace keeps or the call reads."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..errors import UsageError
from ..paths import SPEC_FILE
from .workspace import Workspace


def user_output(ws: Workspace, path: Path, reads: Iterable[Path] = ()) -> Path:
    """`path`, checked before anything is written: a file under the `config/` of this workspace or any
    other (the spec, the decisions, the profiles), a file the call reads, or anything but a regular file (a folder, a device:
    the atomic rename would replace it) is refused, since writing there loses what was there."""
    resolved = path.resolve()
    configs = {ws.path("config").resolve()} | {folder / "config" for folder in resolved.parents
                                               if (folder / SPEC_FILE).is_file()}   # any workspace's
    if any(resolved == config or config in resolved.parents for config in configs):
        raise UsageError(f"--out {path} is inside a workspace's config/ (the spec and the decisions); "
                         "write it elsewhere, e.g. under results/", details={"path": str(path)})
    if any(resolved == Path(read).resolve() for read in reads):
        raise UsageError(f"--out {path} is the file this call reads; write it elsewhere",
                         details={"path": str(path)})
    if resolved.exists() and not resolved.is_file():
        raise UsageError(f"--out {path} exists and is not a regular file (a folder or a device); "
                         "name a file", details={"path": str(path)})
    return path
