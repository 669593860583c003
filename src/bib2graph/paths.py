"""Where bib2graph's own files live, in a source checkout and in an installed wheel alike,
and the fixed layout of a workspace."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent

SPEC_FILE = "config/research.yaml"
CURATION_FILE = "config/curation.tsv"
RESULTS = "results"
ERROR_DIR = Path("results/logs")          # a failed job's error envelope: <job>.error.json
PREFLIGHT_CACHE = Path(".snakemake/b2g/preflight.json")


@lru_cache(maxsize=1)
def workflow_dir() -> Path:
    """The Snakemake workflow: inside the wheel (`bib2graph/workflow`) or at the checkout's root."""
    for candidate in (_PACKAGE / "workflow", _PACKAGE.parents[1] / "workflow"):
        if (candidate / "Snakefile").is_file():
            return candidate
    raise FileNotFoundError("bib2graph's workflow folder is missing from this installation")


def snakefile() -> Path:
    return workflow_dir() / "Snakefile"


def bundled_data_dir() -> Path:
    return _PACKAGE / "data"


def template_spec() -> Path:
    """The spec `b2g init` writes: the checkout's config/research.yaml, shipped in the wheel."""
    for candidate in (_PACKAGE / "templates" / "research.yaml", _PACKAGE.parents[1] / SPEC_FILE):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("bib2graph's template research spec is missing from this installation")


def profiles_dir() -> Path:
    """The Snakemake profiles `b2g init` writes (`<name>/config.yaml`): the checkout's profiles/,
    shipped in the wheel, so that `b2g run --profile profiles/slurm` works in any new workspace."""
    for candidate in (_PACKAGE / "profiles", _PACKAGE.parents[1] / "profiles"):
        if (candidate / "default" / "config.yaml").is_file():
            return candidate
    raise FileNotFoundError("bib2graph's Snakemake profiles are missing from this installation")


def contract_dir() -> Path:
    """The JSON Schemas of the CLI contract: docs/contract/ in a checkout, shipped in the wheel."""
    for candidate in (_PACKAGE / "contract", _PACKAGE.parents[1] / "docs" / "contract"):
        if (candidate / "envelope.schema.json").is_file():
            return candidate
    raise FileNotFoundError("bib2graph's contract schemas are missing from this installation")
