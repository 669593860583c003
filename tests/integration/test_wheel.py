"""The packaged workflow runs from a built wheel in a workspace far from the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
import yaml

from .helpers import b2g

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_init_and_run_from_a_built_wheel(tmp_path):
    dist, site = tmp_path / "dist", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    wheel = next(dist.glob("bib2graph-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    env = {"PYTHONPATH": str(site)}
    where = subprocess.run([sys.executable, "-c", "import bib2graph.paths as p; print(p.snakefile())"],
                           env={**os.environ, **env}, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).is_relative_to(site)  # the wheel's own workflow, not the checkout's

    ws = tmp_path / "elsewhere" / "review"
    assert b2g("init", str(ws), env=env, cwd=tmp_path).returncode == 0
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
