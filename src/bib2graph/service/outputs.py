"""Files a verb writes where the user says (`--out`): never what the workspace keeps or the call reads."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..errors import UsageError
from .workspace import Workspace


def user_output(ws: Workspace, path: Path, reads: Iterable[Path] = ()) -> Path:
    """`path`, checked before anything is written: a file under the workspace's `config/` (the spec, the
    decisions, the profiles), a file the call reads, or anything but a regular file (a folder, a device:
    the atomic rename would replace it) is refused, since writing there loses what was there."""
    resolved = path.resolve()
    config = ws.path("config").resolve()
    if resolved == config or config in resolved.parents:
        raise UsageError(f"--out {path} is inside the workspace's config/ (the spec and the decisions); "
                         "write it elsewhere, e.g. under results/", details={"path": str(path)})
    if any(resolved == Path(read).resolve() for read in reads):
        raise UsageError(f"--out {path} is the file this call reads; write it elsewhere",
                         details={"path": str(path)})
    if resolved.exists() and not resolved.is_file():
        raise UsageError(f"--out {path} exists and is not a regular file (a folder or a device); "
                         "name a file", details={"path": str(path)})
    return path
