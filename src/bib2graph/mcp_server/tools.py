"""The tools of `b2g mcp`, built from the verb table (service/verbs.py): no second list of verbs or parameters.

Each verb of the table that is a tool is one, named like the verb with `_` for spaces (`snapshot list` ->
`snapshot_list`). Its input schema is generated from the verb's parameters: options by their long flag
(`--all` -> `all`), arguments by name; the plumbing (`--json`, `--workspace`, `--wait`: the server has one
workspace and answers in JSON) is left out. A call runs the same `perform` as the CLI, so the same
service, idempotency and errors, and answers with the envelope.

Caps, checked before anything runs: the arguments of one call at most MAX_ARGUMENTS bytes as JSON,
every string at most MAX_STRING characters, every list at most MAX_ITEMS items (the curation's IDs per
call). Breaking one is a typed error (USAGE_ERROR, or TOO_MANY_IDS as `accept` says from the CLI).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable

from jsonschema import Draft202012Validator

from .. import curation
from ..errors import UsageError
from ..service.jobs import check_request
from ..service.perform import outcome, perform
from ..service.verbs import MAX_REQUEST, PLUMBING, VERBS, Param, Verb
from ..service.workspace import Workspace

MAX_ARGUMENTS = MAX_REQUEST
MAX_STRING = curation.MAX_LINE
MAX_ITEMS = curation.MAX_IDS_PER_CALL
_SNAKEMAKE_ARGS = ("args", "snakemake_args")


@dataclass(frozen=True)
class Tool:
    name: str
    verb: Verb
    fields: dict[str, Param]                # input property -> the parameter it fills
    defaults: dict[str, Any]                # parameter name -> value when the property is absent
    input_schema: dict[str, Any]
    description: str


def _field_name(param: Param) -> str:
    """An option by its long flag without dashes (what the CLI user types), an argument by its name."""
    long = [f for f in param.flags if f.startswith("--")]
    return long[0][2:].replace("-", "_") if long else param.name


def _type_schema(param: Param) -> dict[str, Any]:
    if param.choices is not None:
        return {"enum": list(param.choices)}
    if param.type not in ("int", "float"):
        return {"type": "string", "maxLength": MAX_STRING}
    out: dict[str, Any] = {"type": "integer" if param.type == "int" else "number"}
    if param.min is not None:
        out["minimum"] = param.min
    if param.max is not None:
        out["maximum"] = param.max
    return out


def _plain(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _property(verb: str, param: Param) -> dict[str, Any]:
    """The JSON Schema of one parameter."""
    if param.type == "flag":
        out: dict[str, Any] = {"type": "boolean", "default": bool(param.default)}
    elif param.multiple:
        out = {"type": "array", "items": _type_schema(param), "maxItems": MAX_ITEMS}
        if param.required:
            out["minItems"] = 1
    else:
        out = _type_schema(param)
        if _plain(param.default):
            out["default"] = param.default
        elif not param.required:
            out = {"anyOf": [out, {"type": "null"}], "default": None}
    shown = param.metavar or param.name.upper()
    out["description"] = param.help or f"The {shown} argument of `b2g {verb}`."
    return out


def _default(param: Param) -> Any:
    """A parameter's value when a call leaves it out (as Click gives it)."""
    if param.kind == "argument" and param.multiple:
        return ()
    return param.default if _plain(param.default) else None


def _tool(verb: Verb) -> Tool:
    params = [p for p in verb.params if not p.eager and (p.name not in PLUMBING or p.name == "idempotency_key")]
    fields = {_field_name(p): p for p in params}
    schema = {"type": "object", "properties": {name: _property(verb.name, p) for name, p in fields.items()},
              "required": sorted(name for name, p in fields.items() if p.required), "additionalProperties": False}
    defaults = {p.name: _default(p) for p in verb.params if not p.eager}
    note = " Reads only: changes no file." if verb.reads else ""
    return Tool(verb.name.replace(" ", "_"), verb, fields, defaults, schema, f"`b2g {verb.name}`: {verb.help}{note}")


def tools() -> dict[str, Tool]:
    """Every verb that is a tool, by tool name."""
    found = (_tool(verb) for name, verb in sorted(VERBS.items()) if verb.tool)
    return {tool.name: tool for tool in found}


def check_arguments(tool: Tool, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The parameters of a call from its JSON arguments, or a typed error naming every problem."""
    arguments = arguments or {}
    size = len(json.dumps(arguments, ensure_ascii=False).encode("utf-8"))
    if size > MAX_ARGUMENTS:
        raise UsageError(f"the arguments take {size} bytes; at most {MAX_ARGUMENTS} (1 MiB) per call",
                         details={"size": size, "limit": MAX_ARGUMENTS})
    for name, value in arguments.items():
        if isinstance(value, list) and name in tool.fields:
            curation.capped(value)          # TOO_MANY_IDS, as the CLI says for a list too long
    problems = [{"where": ".".join(str(p) for p in e.absolute_path) or "(arguments)", "problem": e.message[:300]}
                for e in sorted(Draft202012Validator(tool.input_schema).iter_errors(arguments), key=str)]
    if problems:
        raise UsageError(f"bad arguments for {tool.name}: " + "; ".join(f"{p['where']}: {p['problem']}"
                                                                         for p in problems[:5]),
                         details={"problems": problems})
    params = dict(tool.defaults)
    for name, value in arguments.items():
        param = tool.fields[name]
        params[param.name] = tuple(_number(name, param, v) for v in value) if isinstance(value, list) \
            else _number(name, param, value)
    for name in _SNAKEMAKE_ARGS:
        if name in params:
            check_request(None, list(params[name]))     # the server chooses the workspace and the output
    return params


def _number(name: str, param: Param, value: Any) -> Any:
    """A number as the CLI would have parsed it: JSON Schema's integer admits 2.0 (an int here, as the
    services slice and count with it), and NaN passes every bound (no comparison holds)."""
    if param.type not in ("int", "float") or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if not math.isfinite(value):
        raise UsageError(f"bad arguments for this tool: {name}: {value!r} is not a finite number",
                         details={"problems": [{"where": name, "problem": "not a finite number"}]})
    return int(value) if param.type == "int" else float(value)


def call(tool: Tool, ws: Workspace, arguments: dict[str, Any] | None,
         on_line: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The envelope of one tool call (the CLI's `execute`, minus the printing)."""
    return outcome(tool.verb.name, lambda: perform(tool.verb, check_arguments(tool, arguments), on_line, ws=ws))
