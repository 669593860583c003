"""The packaged workflow runs from a built wheel in a workspace far from the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import networkx as nx
import pytest
import yaml

from .helpers import b2g

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
PROFILES = ("default", "slurm")


def test_init_and_run_from_a_built_wheel(tmp_path):
    dist, site = tmp_path / "dist", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    wheel = next(dist.glob("bib2graph-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert {f"bib2graph/profiles/{name}/config.yaml" for name in PROFILES} <= set(archive.namelist())
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    env = {"PYTHONPATH": str(site)}
    where = subprocess.run([sys.executable, "-c", "import bib2graph.paths as p; print(p.snakefile()); "
                            "print(p.profiles_dir())"],
                           env={**os.environ, **env}, cwd=tmp_path, capture_output=True, text=True, check=True)
    for shipped in where.stdout.split():  # the wheel's own workflow and profiles, not the checkout's
        assert Path(shipped).is_relative_to(site)

    ws = tmp_path / "elsewhere" / "review"
    init = b2g("init", str(ws), "--json", env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    for name in PROFILES:
        written = f"profiles/{name}/config.yaml"
        assert written in init.envelope["data"]["created"]
        assert (ws / written).read_text(encoding="utf-8") == (ROOT / written).read_text(encoding="utf-8")
    spec_path = ws / "config/research.yaml"
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    spec["networks"] = {"citation": {}}
    spec["export"] = {"formats": ["graphml", "csv"]}
    spec_path.write_text(yaml.safe_dump(spec), encoding="utf-8")

    run = b2g("run", "--cores", "2", env=env, cwd=ws)
    assert run.returncode == 0, run.stderr[-3000:]
    graph = nx.read_graphml(ws / "results/networks/citation/network.graphml")
    assert graph.number_of_edges() > 0
    assert (ws / "results/export/citation/edges.csv").is_file()
    assert (ws / "results/report/index.html").is_file()
