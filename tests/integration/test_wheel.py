"""The packaged workflow runs from a built wheel in a workspace far from the checkout."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout, built once for the module."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    return next(dist.glob("bib2graph-*.whl"))


@pytest.fixture(scope="module")
def site(wheel, tmp_path_factory) -> Path:
    """The wheel installed into a folder of its own (its dependencies come from this environment)."""
    site = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    return site


@pytest.mark.long
def test_init_and_run_from_a_built_wheel(wheel, site, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        assert {f"bib2graph/profiles/{name}/config.yaml" for name in PROFILES} <= set(archive.namelist())
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
    graph = nx.read_graphml(ws / "results/export/citation/network.graphml")
    assert graph.number_of_edges() > 0
    assert (ws / "results/export/citation/edges.csv").is_file()
    assert (ws / "results/report/index.html").is_file()


@pytest.mark.long
def test_the_wheel_serves_the_gui_without_node(wheel, site, tmp_path):
    """Acceptance 5: the GUI's files are in the wheel, its extra names FastAPI and uvicorn, and the
    installed `b2g gui` serves index.html and the API with no Node on the PATH."""
    from ..api.conftest import body, start_gui, stopped_cleanly

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        index = archive.read("bib2graph/gui/static/index.html") if "bib2graph/gui/static/index.html" in names else None
    assert "Provides-Extra: gui" in metadata
    for package in ("fastapi", "uvicorn"):
        assert any(line.startswith(f"Requires-Dist: {package}") and "extra == 'gui'" in line.replace('"', "'")
                   for line in metadata.splitlines()), package
    if (ROOT / "src/bib2graph/gui/static/index.html").is_file():
        assert index == (ROOT / "src/bib2graph/gui/static/index.html").read_bytes()

    # no node, npm or npx; `which` stays (the SLURM executor plugin, when installed, runs it as Snakemake
    # loads its plugins, and fails without it)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "which").symlink_to(shutil.which("which"))
    env = {"PYTHONPATH": str(site), "PATH": f"{Path(sys.executable).parent}:{tools}"}
    ws = tmp_path / "review"
    assert b2g("init", str(ws), "--json", env=env).returncode == 0
    server = start_gui(ws, tmp_path / "gui.log", env=env)
    try:
        with server.client() as client:
            page = client.get("/")
            status = body(client.get("/api/status"))
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.content == index if index is not None else "GUI assets are missing" in page.text
        assert status["ok"] and status["data"]["workspace"]["root"] == str(ws)
    finally:
        stopped_cleanly(server)
