"""Every error code the source can raise is in docs/contract.md's retry table, with its class's exit code
and `retryable` (seed 003): an agent reads the table to decide whether to call again.

The codes are read from the source itself (its syntax tree), so a new code without a row fails here:
- error classes (subclasses of `bib2graph.errors.B2GError`, wherever defined) and their `code`;
- calls that build one: the class itself, or a function with a `code` parameter (or **kwargs) that
  passes it on to one (`_spec_error(..., code=...)`, `part.error(...)`, `_refuse(..., "UNAUTHORIZED", ...)`);
- the code given as text, or as a name assigned in the same function (`code = "A" if ... else "B"`);
  a code passed through from another error (`code=exc.code`, `info["code"]`) is counted where it was made;
- OpenAlex client faults (`Fault("RATE_LIMITED", ...)`), raised as `NetworkError(code=fault.code)`.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bib2graph import errors
from bib2graph.api.statuses import BY_CODE

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "bib2graph"
CODE = re.compile(r"^[A-Z][A-Z0-9_]+$")
# Values that carry a code to the error raised later: (carrier, index of its code argument, class raised).
CARRIERS = {"Fault": (0, "NetworkError")}


@dataclass
class Raiser:
    cls: str                        # the error class it builds
    code_index: int | None = None   # position of `code` among its arguments (None: keyword only)
    default: str | None = None      # the code when none is given


@dataclass
class Scan:
    classes: dict[str, tuple[str, str]] = field(default_factory=dict)   # name -> (module, base)
    codes: dict[str, set[str]] = field(default_factory=dict)            # code -> classes raising it

    def add(self, code: str, cls: str) -> None:
        self.codes.setdefault(code, set()).add(cls)


def _modules() -> list[tuple[str, ast.Module]]:
    return [(".".join(("bib2graph", *p.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__"),
             ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(SRC.rglob("*.py"))]


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _texts(node: ast.AST | None) -> set[str]:
    """The code-like strings in an expression (`"A" if x else "B"`, `{404: "NOT_FOUND"}.get(s, "X")`)."""
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and CODE.match(n.value)} if node is not None else set()


def _error_classes(modules) -> dict[str, tuple[str, str]]:
    found = {"B2GError": ("bib2graph.errors", "Exception")}
    grew = True
    while grew:
        grew = False
        for module, tree in modules:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in found:
                    base = next((_name(b) for b in node.bases if _name(b) in found), None)
                    if base:
                        found[node.name], grew = (module, base), True
    return found


def _builds(func: ast.FunctionDef, classes) -> str | None:
    """The error class `func` builds from its own `code` parameter (or **kwargs), if any."""
    params = {a.arg for a in func.args.args + func.args.kwonlyargs}
    kwargs = func.args.kwarg.arg if func.args.kwarg else None
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _name(node.func) in classes:
            passed = [k for k in node.keywords if (k.arg == "code" and isinstance(k.value, ast.Name)
                                                   and k.value.id == "code" and "code" in params)
                      or (k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs)]
            if passed:
                return _name(node.func)
    return None


def _raisers(modules, classes) -> dict[str, Raiser]:
    raisers = {name: Raiser(name) for name in classes}
    for _module, tree in modules:
        for func in ast.walk(tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and (cls := _builds(func, classes)):
                positional = [a.arg for a in func.args.args]
                index = positional.index("code") if "code" in positional else None
                defaults = dict(zip(positional[len(positional) - len(func.args.defaults):], func.args.defaults))
                default = defaults.get("code")
                raisers[func.name] = Raiser(cls, None if index is None else index - (positional[:1] == ["self"]),
                                            default.value if isinstance(default, ast.Constant) else None)
    return raisers


def _assigned(func: ast.AST | None, name: str) -> set[str]:
    if func is None:
        return set()
    return {text for node in ast.walk(func) if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and target.id == name
            for text in _texts(node.value)}


@functools.cache
def scan() -> Scan:
    """Every code the source raises, by the classes raising it: read once per test process, when first
    asked (it walks every module's syntax tree: seconds that collection should not pay)."""
    modules = _modules()
    result = Scan(classes=_error_classes(modules))
    raisers = _raisers(modules, result.classes)
    for _module, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in result.classes:
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and any(_name(t) == "code" for t in stmt.targets):
                        result.add(stmt.value.value, node.name)
        for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] + [tree]:
            for node in ast.walk(func):
                if not isinstance(node, ast.Call):
                    continue
                name = _name(node.func)
                if name in CARRIERS and node.args:
                    index, cls = CARRIERS[name]
                    for code in _texts(node.args[index]):
                        result.add(code, cls)
                if name not in raisers:
                    continue
                raiser = raisers[name]
                given = next((k.value for k in node.keywords if k.arg == "code"), None)
                if given is None and raiser.code_index is not None and len(node.args) > raiser.code_index:
                    given = node.args[raiser.code_index]
                if given is None:
                    if raiser.default:
                        result.add(raiser.default, raiser.cls)
                elif isinstance(given, ast.Name):
                    for code in _assigned(func if func is not tree else None, given.id):
                        result.add(code, raiser.cls)
                else:
                    for code in _texts(given):
                        result.add(code, raiser.cls)
    return result


def table() -> dict[str, dict[str, str]]:
    """The rows of docs/contract.md's "Error codes and retrying" table, by code."""
    text = (ROOT / "docs/contract.md").read_text(encoding="utf-8")
    section = text.split("## Error codes and retrying", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| `")]
    return {cells[0].strip().strip("`"): {"exit": cells[1].strip(), "class": cells[2].strip().strip("`"),
                                          "retryable": cells[3].strip(), "what": cells[4].strip()}
            for cells in rows}


def error_class(name: str, scanned: Scan) -> type:
    module, _base = scanned.classes[name]
    return getattr(importlib.import_module(module), name)


TABLE = table() if "## Error codes and retrying" in (ROOT / "docs/contract.md").read_text(encoding="utf-8") else {}


def test_the_scan_finds_codes_of_every_kind():
    """The scanner itself: a direct code, one through a helper, a conditional one, a class code, a fault."""
    assert scan().codes["UNKNOWN_ID"] == {"DataError"}
    assert scan().codes["NETWORK_PARAMS_INVALID"] == {"SpecError"}        # networks/params.py `_invalid`
    assert scan().codes["UNAUTHORIZED"] == {"UsageError"}                 # api/guard.py `_refuse(..., "CODE")`
    assert {"PERMISSION_DENIED", "IO_ERROR"} <= set(scan().codes)         # `code = "A" if ... else "B"`
    assert scan().codes["RUN_IN_PROGRESS"] == {"RunInProgress"}           # a class in service/jobs.py
    assert scan().codes["RATE_LIMITED"] == {"NetworkError"}               # an OpenAlex client fault
    assert scan().codes["FILE_INVALID"] >= {"DataError"}                  # `part.error(...)`'s default


def test_every_code_the_source_raises_has_a_row_and_every_row_a_code():
    raised = set(scan().codes) | {"INTERNAL"}   # INTERNAL: any exception outside the hierarchy
    assert sorted(raised - set(TABLE)) == [], "add these codes to docs/contract.md, 'Error codes and retrying'"
    assert sorted(set(TABLE) - raised) == [], "these rows name codes the source no longer raises"


def test_every_api_status_code_has_a_row():
    assert set(BY_CODE) <= set(TABLE)


@pytest.mark.parametrize("code", sorted(TABLE))
def test_each_row_says_what_its_class_says(code):
    row = TABLE[code]
    assert row["retryable"] in {"yes", "no"} and row["what"], row
    classes = scan().codes.get(code, {"B2GError"})
    assert row["class"] in classes, (code, classes)
    for name in classes:   # a code means one thing to an agent: every class raising it agrees
        cls = error_class(name, scan())
        assert cls.retryable is (row["retryable"] == "yes"), (code, name)
        assert row["exit"] == str(cls.exit_code) or (code == "USAGE_ERROR" and row["exit"] == "1, 2"), (code, name)


def test_retryable_is_a_class_attribute_never_set_on_one_error():
    """So the table (by class) is the truth: no code sets `retryable` on an instance, except the
    adapters that carry a failed job's recorded error across the Snakemake process boundary."""
    setters = []
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "retryable" and isinstance(node.ctx, ast.Store):
                setters.append(module)
    assert setters == ["bib2graph.service.run"]
    assert errors.UpstreamRefused.retryable is False and errors.NetworkError.retryable is True
