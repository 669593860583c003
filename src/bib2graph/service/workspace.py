"""Finding the workspace: a folder holding `config/research.yaml`.

Precedence: an explicit `--workspace` > the environment variable `B2G_WORKSPACE` > the nearest
folder at or above the current directory (like git). Every answer says where it came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import WorkspaceError
from ..paths import SPEC_FILE


@dataclass(frozen=True)
class Workspace:
    root: Path
    source: str  # "flag" | "env" | "walk-up"

    @property
    def spec_path(self) -> Path:
        return self.root / SPEC_FILE

    def path(self, relative: str) -> Path:
        return self.root / relative

    def describe(self) -> dict[str, str]:
        return {"root": str(self.root), "source": self.source}

    def warnings(self) -> list[str]:
        if self.source == "walk-up":
            return [f"workspace {self.root} found by walking up from the current directory; "
                    "pass --workspace or set B2G_WORKSPACE to be explicit"]
        return []


def _check(root: Path, source: str) -> Workspace:
    if not (root / SPEC_FILE).exists():   # a folder or an unreadable file there: the spec reader says so
        hint = f"`b2g init {root}` creates one" if source != "walk-up" else "`b2g init DIR` creates one"
        raise WorkspaceError(f"{root} is not a bib2graph workspace (no {SPEC_FILE}); {hint}",
                             code="WORKSPACE_NOT_FOUND")
    return Workspace(root=root, source=source)


def resolve(flag: str | None = None, cwd: Path | None = None) -> Workspace:
    if flag:
        return _check(Path(flag).expanduser().resolve(), "flag")
    env = os.environ.get("B2G_WORKSPACE")
    if env:
        return _check(Path(env).expanduser().resolve(), "env")
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / SPEC_FILE).exists():
            return Workspace(root=folder, source="walk-up")
    raise WorkspaceError(f"no bib2graph workspace at or above {here}; `b2g init DIR` creates one, "
                         "or pass --workspace / set B2G_WORKSPACE", code="WORKSPACE_NOT_FOUND")
