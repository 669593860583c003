"""Shared fixtures: real bibliographic data from ../shared/data and the bundled demo corpus."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# A hermetic suite: the shell's bib2graph settings (an OpenAlex URL or key, a workspace, a user, JSON
# output) must not reach the code under test or the `b2g` processes the tests start, which inherit this
# environment. The suite's own knobs stay.
TEST_KNOBS = {"B2G_SPEC_EXAMPLES", "B2G_FUZZ_EXAMPLES", "B2G_SIGNAL_REPEATS"}
for _name in [n for n in os.environ if n.startswith("B2G_") and n not in TEST_KNOBS] + ["OPENALEX_API_KEY"]:
    os.environ.pop(_name, None)

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
DEMO_ZIP = ROOT / "src" / "bib2graph" / "data" / "synergy" / "Sep_2021" / "works_1.zip"
DEMO_LABELS = DEMO_ZIP.with_name("labels.csv")

# tests/slurm needs a SLURM cluster: `make test-slurm` starts one and runs it by path.
collect_ignore = ["slurm"]


def included_ids(labels: Path) -> list[str]:
    """The works a SYNERGY review finally included, as short OpenAlex IDs."""
    rows = labels.read_text(encoding="utf-8").splitlines()[1:]
    return sorted(r.split(",")[0].rsplit("/", 1)[-1] for r in rows if r.endswith(",1"))


@pytest.fixture(scope="session")
def demo_universe():
    from bib2graph.sources.universe import FileUniverse

    return FileUniverse.from_files([DEMO_ZIP])


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the shared data folder {SHARED_DATA} is missing; tests need ../shared/data")
    return SHARED_DATA
