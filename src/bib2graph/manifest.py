"""The small manifest beside every artifact folder: what made it, from what, and how big it is.

No clocks and no absolute paths, so that equal inputs give an equal manifest. Paths are relative
to the workspace root; files shipped with bib2graph are named `bundled:…`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .atomic import sha256_file, sha256_text, write_json
from .paths import bundled_data_dir


def _name(path: str | Path) -> str:
    path = Path(path).resolve()
    try:
        return "bundled:" + path.relative_to(bundled_data_dir().resolve()).as_posix()
    except ValueError:
        pass
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name


def write_manifest(path: str | Path, artifact: str, spec_part: str, inputs: Iterable[str | Path],
                   outputs: Iterable[str | Path], counts: dict[str, Any]) -> dict[str, Any]:
    """Write `manifest.json` for one phase's outputs; return its content."""
    manifest = {
        "artifact": artifact,
        "bib2graph_version": __version__,
        "spec_hash": sha256_text(spec_part),
        "inputs": {_name(p): sha256_file(p) for p in sorted(map(str, inputs)) if os.path.isfile(p)},
        "outputs": {_name(p): sha256_file(p) for p in sorted(map(str, outputs)) if os.path.isfile(p)},
        "counts": counts,
    }
    write_json(path, manifest)
    return manifest
