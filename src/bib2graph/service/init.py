"""`init`: scaffold a workspace (spec, curation file, Snakemake profiles, .gitignore) in a folder."""

from __future__ import annotations

from pathlib import Path

from .. import textio
from ..atomic import write_text
from ..curation import header
from ..errors import DataError
from ..paths import CURATION_FILE, SPEC_FILE, profiles_dir, template_spec
from .result import Result
from .workspace import named_folder

GITIGNORE = "results/\nresources/*\n!resources/.gitkeep\n.snakemake/\nconfig/.curation.tsv.lock\n"


def _profiles(root: Path, force: bool) -> dict[str, str]:
    """The shipped profiles (default: used by every run; slurm: for clusters) a workspace lacks,
    or all of them with `force`: a profile tuned for a lab's cluster is kept."""
    found = {}
    for shipped in sorted(profiles_dir().glob("*/config.yaml")):
        relative = f"profiles/{shipped.parent.name}/config.yaml"
        if force or not (root / relative).exists():
            found[relative] = shipped.read_text(encoding="utf-8")
    return found


def init_workspace(folder: str | Path, force: bool = False) -> Result:
    """Write the demo spec, an empty curation file and the profiles; never overwrite without `force`. An
    existing curation file is kept, `force` or not: it holds the review's decisions, which no template
    replaces (a folder whose spec went missing, or an empty spec rewritten with --force, keeps them)."""
    root = named_folder(str(folder), "the folder to initialise")
    spec = root / SPEC_FILE
    if spec.exists() and not force:
        raise DataError(f"{spec} already exists; this folder is a workspace already (pass --force to "
                        "overwrite its spec and profiles; its curation file is kept)", code="WORKSPACE_EXISTS")
    for relative in (SPEC_FILE, CURATION_FILE):     # kept or written over, each must be a file to be used
        place = root / relative
        if textio.kind_of(place) in ("folder", "special", "dangling"):
            raise DataError(f"{place} is not a regular file (a folder, a device or a link to nothing); move it "
                            "away, then init again", code="FILE_INVALID", details={"file": str(place)})
    created = []
    files = {SPEC_FILE: template_spec().read_text(encoding="utf-8")}
    if not (root / CURATION_FILE).exists():
        files[CURATION_FILE] = header()
    if not (root / ".gitignore").exists():
        files[".gitignore"] = GITIGNORE
    files.update(_profiles(root, force))
    for relative, text in files.items():
        write_text(root / relative, text)
        created.append(relative)
    (root / "resources").mkdir(exist_ok=True)
    return Result(data={"workspace": {"root": str(root), "source": "init"}, "created": sorted(created),
                        "next": f"b2g run --workspace {root}"})
