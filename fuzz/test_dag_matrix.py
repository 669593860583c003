"""Every file of the DAG, edited, deleted and corrupted: `b2g status` names exactly the jobs the change
affects (see tests/integration/dag_cases.py), and a missing input is an error. The sample in
`make test` (tests/integration/test_dag_honesty.py) runs a few of these and `b2g run` after them.

The workspace reads its universe from a copy of the demo works, not the bundled file, so that the
source file is the workspace's to break too; and it names a thesaurus, so that file is in the DAG.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import DEMO_ZIP
from tests.integration.dag_cases import MUTATIONS, affected, every_file, is_external, mutate, stale_jobs
from tests.integration.helpers import b2g


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("matrix") / "review"
    assert b2g("init", str(root)).returncode == 0
    (root / "data").mkdir()
    shutil.copy(DEMO_ZIP, root / "data/works.zip")
    (root / "config/thesaurus.tsv").write_text("term_id\treplace_by\n", encoding="utf-8")
    spec = yaml.safe_load((root / "config/research.yaml").read_text(encoding="utf-8"))
    spec["source"]["files"] = ["data/works.zip"]
    spec["networks"]["keywords"]["thesaurus"] = "config/thesaurus.tsv"
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    run = b2g("run", "--cores", "2", "--workspace", str(root))
    assert run.returncode == 0, run.stderr[-3000:]
    return root


def pytest_generate_tests(metafunc):
    if "relative" in metafunc.fixturenames:
        files = [str(p) for p in _files()]
        metafunc.parametrize("relative", files)


def _files() -> list[str]:
    """The files of a workspace laid out like `built` (listed before it exists, for parametrising)."""
    from bib2graph import registry, spec as spec_mod

    spec = spec_mod.validate({"source": {"files": ["data/works.zip"]}, "seed": {"ids": ["W1"]},
                              "networks": {**{k: {} for k in ("coupling", "cocitation", "citation", "coauthorship",
                                                              "institutions")},
                                           "keywords": {"thesaurus": "config/thesaurus.tsv"}}})
    found = set()
    for job in registry.jobs(spec):
        found |= set(registry.flat(job.outputs)) | set(registry.flat(job.inputs))
    return sorted(found)


@pytest.mark.parametrize("how", MUTATIONS)
def test_status_names_exactly_the_affected_jobs(built, tmp_path, relative, how):
    root = Path(shutil.copytree(built, tmp_path / "review", symlinks=True))
    assert relative in every_file(root)
    mutate(root, relative, how)
    found = stale_jobs(root)
    if how == "delete" and is_external(root, relative):   # a missing input is an error
        assert found["error"]["code"] == "FILE_MISSING" and relative in found["error"]["message"]
        return
    assert found == affected(root, relative)
