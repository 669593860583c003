"""The research spec: load `config/research.yaml`, fill defaults and validate it against
`workflow/schemas/spec.schema.yaml` — the same schema file the Snakefile uses.

Errors name the offending key and its place (``networks.coupling.min_weight``) so that a person or
an agent can fix the file without reading a traceback.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .atomic import canonical_json
from .errors import SpecError
from .paths import bundled_data_dir, workflow_dir
from .yamlfile import read_mapping

if TYPE_CHECKING:
    import jsonschema

MAX_SPEC_BYTES = 1 << 20


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The spec's schema; LibYAML's loader where PyYAML has it (every workflow job reads the defaults:
    ten times faster than the pure-Python one, same data)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load((workflow_dir() / "schemas" / "spec.schema.yaml").read_text(encoding="utf-8"), Loader=loader)


def _resolve(sub: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in sub:
        node: Any = root
        for part in sub["$ref"].lstrip("#/").split("/"):
            node = node[part]
        sub = node
    return sub


def fill_defaults(instance: Any, sub: dict[str, Any], root: dict[str, Any]) -> Any:
    """Insert schema defaults for missing keys, recursively (defaults themselves are filled too)."""
    sub = _resolve(sub, root)
    if not isinstance(instance, dict):
        return instance
    for key, prop in (sub.get("properties") or {}).items():
        prop = _resolve(prop, root)
        if key not in instance and "default" in prop:
            instance[key] = copy.deepcopy(prop["default"])
        if key in instance:
            instance[key] = fill_defaults(instance[key], prop, root)
    if "additionalProperties" in sub and isinstance(sub["additionalProperties"], dict):
        for key in instance:
            if key not in (sub.get("properties") or {}):
                instance[key] = fill_defaults(instance[key], sub["additionalProperties"], root)
    return instance


def schema_defaults(*keys: str) -> dict[str, Any]:
    """The defaults the schema gives the section at `keys` (e.g. ``("networks", "coupling")``)."""
    root = schema()
    sub: dict[str, Any] = root
    for key in keys:
        sub = _resolve((_resolve(sub, root).get("properties") or {})[key], root)
    default = copy.deepcopy(sub.get("default", {}))
    return fill_defaults(default, sub, root)


def _place(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _describe(error: jsonschema.ValidationError) -> tuple[str, str, str, tuple]:
    """(key, place, message, path) for the most useful reading of one validation error."""
    if error.validator == "additionalProperties":
        allowed = sorted((error.schema.get("properties") or {}).keys())
        extra = sorted(set(error.instance) - set(allowed))
        key = extra[0] if extra else "?"
        path = (*error.absolute_path, key)
        return key, _place(path), f"unknown key {key!r} at {_place(path)}; allowed here: {', '.join(allowed)}", path
    key = str(error.absolute_path[-1]) if error.absolute_path else "(spec)"
    place = _place(error.absolute_path)
    return key, place, f"{place}: {error.message}", tuple(error.absolute_path)


def validate(spec: Any) -> dict[str, Any]:
    """Fill defaults into a copy of `spec` and validate it; raise SpecError naming key and place."""
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise SpecError("the research spec must be a YAML mapping of keys to values",
                        details={"key": "(spec)", "place": "(top level)"})
    import jsonschema   # here, not at the top: workflow jobs read defaults but never validate a whole spec

    root = schema()
    filled = fill_defaults(copy.deepcopy(spec), root, root)
    errors = sorted(jsonschema.Draft202012Validator(root).iter_errors(filled),
                    key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        key, place, message, at = _describe(errors[0])
        others = [_describe(e)[2] for e in errors[1:5]]
        error = SpecError("invalid research spec: " + message,
                          details={"key": key, "place": place, "other_errors": others})
        error.at = at
        raise error
    return filled


def load(path: str | Path, where: str | None = None) -> dict[str, Any]:
    """Read, fill and validate the spec file at `path` (read strictly: bib2graph.yamlfile); messages
    name it `where` (default: the path) and the line of the value they are about (`file:line:`)."""
    lines: dict[tuple, int] = {}
    mapping = read_mapping(path, MAX_SPEC_BYTES, where, lines)
    try:
        return validate(mapping)
    except SpecError as exc:
        raise _located(exc, str(where or path), lines) from None


def _located(error: SpecError, where: str, lines: dict[tuple, int]) -> SpecError:
    """`error` with the file and the line of the value it is about, or of the nearest enclosing key the
    file holds (a required key that is missing is missing from its section)."""
    at = getattr(error, "at", ())
    line = next((lines[at[:n]] for n in range(len(at), 0, -1) if at[:n] in lines), None)
    if line is None:
        return error
    return SpecError(f"{where}:{line}: {error.message}", details={**error.details, "file": where, "line": line})


def part(spec: dict[str, Any], *keys: str) -> str:
    """The canonical JSON of the spec sub-trees `keys`: what a rule receives through `params:`."""
    return canonical_json({key: spec[key] for key in keys})


def resolve_path(root: str | Path, value: str) -> Path:
    """A spec path: `bundled:NAME` is shipped with bib2graph; anything else is relative to `root`."""
    if value.startswith("bundled:"):
        path = bundled_data_dir() / value[len("bundled:"):]
        if not path.resolve().is_relative_to(bundled_data_dir().resolve()):
            raise SpecError(f"{value}: a bundled: path names a file shipped with bib2graph, inside its data "
                            "folder; name any other file by its own path")
        return path
    path = Path(value).expanduser()
    return path if path.is_absolute() else Path(root) / path
