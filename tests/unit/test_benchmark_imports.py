"""The benchmarks are not run by `make test`, so a name they import from the project can be renamed from
under them unseen (bench_screening imported `screening.labels.pool_dois` after it became
`pool_identifiers`). Every `from bib2graph… import` and `from tests… import` in benchmarks/, at any depth
of the file, must name something that exists."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))
OURS = ("bib2graph", "tests")


def imported(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every import of ours in the file, nested ones included."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in OURS:
            out.extend((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend((alias.name, "") for alias in node.names if alias.name.split(".")[0] in OURS)
    return out


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_from_the_project_exists(path):
    missing = []
    for module, name in imported(path):
        loaded = importlib.import_module(module)
        if name and not hasattr(loaded, name):
            try:
                importlib.import_module(f"{module}.{name}")      # a submodule
            except ModuleNotFoundError:
                missing.append(f"{module}.{name}")
    assert not missing, f"{path.name} imports what the project no longer has: {missing}"


def test_the_check_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "bench.py"
    source.write_text("def f():\n    from bib2graph.screening.labels import pool_dois\n", encoding="utf-8")
    assert imported(source) == [("bib2graph.screening.labels", "pool_dois")]
