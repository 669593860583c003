"""One demo workspace built per test run (`b2g init` + a full `b2g run`), copied for each test that needs a
built review: a copy keeps file times and Snakemake's records, so it is as built as the original. Under
pytest-xdist the first worker builds it while the others wait on a lock, then all read the same one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from filelock import FileLock

from .helpers import b2g, ran_jobs


@pytest.fixture(scope="session")
def built_demo(tmp_path_factory, worker_id) -> Path:
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    root = shared / "built-demo" / "review"
    with FileLock(str(shared / "built-demo.lock")):
        if not (root / "results/report/index.html").is_file():
            init = b2g("init", str(root), "--json")
            assert init.returncode == 0, init.stderr
            run = b2g("run", "--cores", "2", "--json", "--workspace", str(root))
            assert run.returncode == 0, run.stderr[-3000:]
            assert run.envelope["ok"] is True
    return root


@pytest.fixture(scope="session")
def timed_demo(built_demo, tmp_path_factory, worker_id) -> Path:
    """The built demo with `time:` on (the keywords network sliced in 5-year slices), built once per run:
    read it, or copy it (copy_workspace) before changing anything."""
    import yaml

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    root = shared / "timed-demo" / "review"
    with FileLock(str(shared / "timed-demo.lock")):
        if not (root / "results/trends/manifest.json").is_file():
            shutil.rmtree(root, ignore_errors=True)
            copy_workspace(built_demo, root)
            keep_networks(root, "keywords")
            path = root / "config/research.yaml"
            spec = yaml.safe_load(path.read_text(encoding="utf-8"))
            spec["time"] = {"enabled": True, "networks": ["keywords"], "slice_years": 5}
            path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
            run = b2g("run", "--json", "--workspace", str(root))
            assert run.returncode == 0, run.stderr[-3000:]
            (root.parent / "ran_jobs.txt").write_text("\n".join(sorted(ran_jobs(run.stderr))), encoding="utf-8")
    return root


def copy_workspace(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


@pytest.fixture
def demo(built_demo, tmp_path) -> Path:
    """A private copy of the built demo workspace."""
    return copy_workspace(built_demo, tmp_path / "review")


def keep_networks(root: Path, *kinds: str) -> Path:
    """Build only these networks from now on: tests that rebuild do it in a third of the time."""
    import yaml

    path = root / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["networks"] = {kind: spec["networks"][kind] for kind in kinds}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return root
