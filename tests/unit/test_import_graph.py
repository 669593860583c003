"""The package's import graph (issue 24, "The house"): no module imports another that imports it back,
and the two adapters, cli/ and mcp_server/, never import each other (both build from service/verbs.py).

The graph is read from the source with `ast`, not by importing: every `import` and `from … import`
statement counts, at module level, inside functions and under `if TYPE_CHECKING:` alike, relative ones
resolved, and so does `importlib.import_module(…)` called with a literal name, or with `TABLE[key]` where
TABLE is a module-level dict of literal names (every one counts); relative names are anchored at the
module's package; so does a call of one of LOADERS, the package's own import-by-name helpers, with a literal
name (`service("run", "run_workflow")` in service/verbs.py imports bib2graph.service.run). Other names
built at run time are not followed: the modules the verb table names as `serves` are checked apart
(`test_the_servers_the_table_names_never_import_the_cli`).

Packages: importing `pkg.sub` runs `pkg/__init__.py` first, but that is Python initialising the parents,
not an import of the package by the module, so it adds no edge; otherwise every package whose
`__init__` imports one of its modules would be a circle. What does add an edge to `pkg` (its
`__init__`) is asking it for something: `import pkg`, or `from pkg import name` where `name` is not a
module of pkg. `from pkg import sub` where `sub` is a module is an edge to `pkg.sub`. So a module that
reads a name from its own package's `__init__`, which imports that module, is a circle and is reported.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "bib2graph"
ADAPTERS = (f"{PACKAGE}.cli", f"{PACKAGE}.mcp_server")
#: functions of the package that import a module by name: the module a literal first argument names
LOADERS = {"service": f"{PACKAGE}.service.{{}}"}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__)."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _anchor(name: str, known: dict[str, Path]) -> str:
    """The package a relative import in module `name` starts from."""
    return name if known[name].name == "__init__.py" else name.rpartition(".")[0]


def _resolve(name: str, level: int, target: str | None, known: dict[str, Path]) -> str:
    """The absolute name of `from <level dots><target>` written in module `name`."""
    if level == 0:
        return target or ""
    base = _anchor(name, known)
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{target}" if target else base


def _tables(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level dicts whose values are all string literals, by name: their values."""
    found = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.value.values)):
            found[node.targets[0].id] = [v.value for v in node.value.values]
    return found


def _named(arg: ast.expr, tables: dict[str, list[str]]) -> list[str]:
    """The literal module names an import_module argument can take."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name):
        return tables.get(arg.value.id, [])
    return []


def _dynamic(node: ast.Call, name: str, known: dict[str, Path], tables: dict[str, list[str]]) -> list[str]:
    """The modules an `import_module(…)` call names, when its name is literal (see the docstring)."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called in LOADERS and node.args:
        return [LOADERS[called].format(n) for n in _named(node.args[0], {})]
    if called != "import_module" or not node.args:
        return []
    found = []
    for target in _named(node.args[0], tables):
        level = len(target) - len(target.lstrip("."))
        found.append(_resolve(name, level, target[level:] or None, known) if level else target)
    return found


def _targets(node: ast.AST, name: str, known: dict[str, Path], tables: dict[str, list[str]]) -> list[str]:
    """The modules one AST node imports, as written (absolute, possibly outside the package)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        source = _resolve(name, node.level, node.module, known)
        subs = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known]
        return subs + ([source] if len(subs) < len(node.names) else [])
    if isinstance(node, ast.Call):
        return _dynamic(node, name, known, tables)
    return []


def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself excluded): a copy each test may change."""
    return {name: set(targets) for name, targets in _graph().items()}


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The graph, read from the source once per test process (parsing every module takes seconds)."""
    known = modules()
    edges = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        tables = _tables(tree)
        targets = {t for node in ast.walk(tree) for t in _targets(node, name, known, tables)}
        edges[name] = {t for t in targets if t in known and t != name}
    return edges


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as [a, b, …, a], or None (an iterative depth-first search)."""
    state: dict[str, int] = {}          # 1: on the current path, 2: done
    for start in sorted(edges):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(edges[nxt])))
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_is_read_from_every_module():
    edges = graph()
    assert len(edges) > 100
    assert f"{PACKAGE}.service.verbs" in edges[f"{PACKAGE}.cli.commands"]
    assert f"{PACKAGE}.service.verbs" in edges[f"{PACKAGE}.mcp_server.tools"]
    assert f"{PACKAGE}.networks.pipeline" in edges[f"{PACKAGE}.networks"]      # a lazy import_module(".…")
    assert f"{PACKAGE}.service.run" in edges[f"{PACKAGE}.service.verbs"]       # service("run", …)


def test_no_module_imports_one_that_imports_it_back():
    found = cycle(graph())
    assert found is None, "import circle: " + " -> ".join(found)


def test_the_cli_and_the_mcp_server_do_not_import_each_other():
    edges = graph()
    for this, other in (ADAPTERS, ADAPTERS[::-1]):
        crossing = sorted(f"{m} -> {t}" for m, ts in edges.items() if _within(m, this)
                          for t in ts if _within(t, other))
        assert not crossing, crossing


def reached(edges: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_servers_the_table_names_never_import_the_cli():
    """`b2g gui` and `b2g mcp` import their server by the name the verb table gives: that runtime edge
    from the CLI is the only one, so no server may lead back to the CLI."""
    from bib2graph.service.verbs import VERBS

    edges = graph()
    servers = {verb.serves for verb in VERBS.values() if verb.serves}
    assert servers == {f"{PACKAGE}.api.launch", f"{PACKAGE}.mcp_server.server"}
    for server in servers:
        assert not [m for m in reached(edges, server) | {server} if _within(m, ADAPTERS[0])], server


def test_a_circle_is_found_and_named():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
