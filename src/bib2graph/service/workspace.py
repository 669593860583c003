"""Finding the workspace: a folder holding `config/research.yaml`.

Precedence: an explicit `--workspace` > the environment variable `B2G_WORKSPACE` > the nearest
folder at or above the current directory (like git). Every answer says where it came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError, WorkspaceError
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
        inside = next((folder for folder in root.parents if (folder / SPEC_FILE).is_file()), None)
        hint = (f"it lies inside the workspace {inside}: pass --workspace {inside}" if inside else
                f"`b2g init {root}` creates one" if source != "walk-up" else "`b2g init DIR` creates one")
        raise WorkspaceError(f"{root} is not a bib2graph workspace (no {SPEC_FILE}); {hint}",
                             code="WORKSPACE_NOT_FOUND")
    return Workspace(root=root, source=source)


def given(option: str, value: str | None, thing: str = "a path") -> str | None:
    """What the user gave for `option`, None when not given. An empty value (a script's unset variable:
    `--out "$OUT"`) is a usage error, never read as "not given" (a default place) or as the current folder."""
    if value is not None and not value.strip():
        raise UsageError(f"{option} is empty; name {thing} (is a shell variable unset?)", details={"option": option})
    return value


def named_folder(value: str, what: str) -> Path:
    """The folder a flag or argument names (an empty one is refused, `given`)."""
    return _resolved(given(what, value, "a folder"), what)


def _resolved(value: str, what: str) -> Path:
    """`value` as an absolute path, `~user` expanded and links followed; WORKSPACE_NOT_FOUND when that
    cannot be done (no such user's home, a loop of links) rather than INTERNAL."""
    try:
        return Path(value).expanduser().resolve()
    except (RuntimeError, OSError) as exc:
        raise WorkspaceError(f"{what} {value!r} names no folder that can be found ({exc})",
                             code="WORKSPACE_NOT_FOUND") from None


def _current() -> Path:
    try:
        return Path.cwd().resolve()
    except OSError:        # the current directory was deleted under the shell
        raise WorkspaceError("the current directory no longer exists (deleted under the shell); cd into the "
                             "workspace, or pass --workspace / set B2G_WORKSPACE", code="WORKSPACE_NOT_FOUND") from None


def resolve(flag: str | None = None, cwd: Path | None = None) -> Workspace:
    if flag is not None:
        return _check(named_folder(flag, "--workspace"), "flag")
    env = os.environ.get("B2G_WORKSPACE")
    if env:
        return _check(_resolved(env, "B2G_WORKSPACE"), "env")
    here = cwd.resolve() if cwd else _current()
    for folder in (here, *here.parents):
        if (folder / SPEC_FILE).exists():
            return Workspace(root=folder, source="walk-up")
    raise WorkspaceError(f"no bib2graph workspace at or above {here}; `b2g init DIR` creates one, "
                         "or pass --workspace / set B2G_WORKSPACE", code="WORKSPACE_NOT_FOUND")
