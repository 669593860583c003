"""The tools of `b2g mcp`, read off the CLI's verb table: no second list of verbs or parameters.

Each verb whose callback carries a `Binding` (cli/commands.py) is one tool, named like the verb with `_`
for spaces (`snapshot list` -> `snapshot_list`). Its input schema is generated from the verb's Click
parameters: options by their long flag (`--all` -> `all`), arguments by name; the plumbing (`--json`,
`--workspace`, `--wait`: the server has one workspace and answers in JSON) is left out. A call runs the
same `perform` as the CLI, so the same service, idempotency and errors, and answers with the envelope.

Caps, checked before anything runs: the arguments of one call at most MAX_ARGUMENTS bytes as JSON,
every string at most MAX_STRING characters, every list at most MAX_ITEMS items (the curation's IDs per
call). Breaking one is a typed error (USAGE_ERROR, or TOO_MANY_IDS as `accept` says from the CLI).
"""

from __future__ import annotations

import json
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import click
from jsonschema import Draft202012Validator

from .. import curation
from ..cli.commands import PLUMBING, Binding, binding_of, cli, perform, walk
from ..errors import UsageError
from ..service.envelope import failure, success
from ..service.jobs import check_request
from ..service.workspace import Workspace

MAX_ARGUMENTS = 1 << 20
MAX_STRING = curation.MAX_LINE
MAX_ITEMS = curation.MAX_IDS_PER_CALL
_SNAKEMAKE_ARGS = ("args", "snakemake_args")


@dataclass(frozen=True)
class Tool:
    name: str
    verb: str
    binding: Binding
    fields: dict[str, click.Parameter]      # input property -> the Click parameter it fills
    defaults: dict[str, Any]                # Click name -> value when the property is absent
    input_schema: dict[str, Any]
    description: str


def _field_name(param: click.Parameter) -> str:
    """An option by its long flag without dashes (what the CLI user types), an argument by its name."""
    if isinstance(param, click.Option):
        long = [o for o in param.opts if o.startswith("--")]
        if long:
            return long[0][2:].replace("-", "_")
    return param.name


def _type_schema(kind: click.ParamType) -> dict[str, Any]:
    if isinstance(kind, click.Choice):
        return {"enum": list(kind.choices)}
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        out: dict[str, Any] = {"type": "integer" if isinstance(kind, click.IntRange) else "number"}
        if kind.min is not None:
            out["exclusiveMinimum" if kind.min_open else "minimum"] = kind.min
        if kind.max is not None:
            out["exclusiveMaximum" if kind.max_open else "maximum"] = kind.max
        return out
    if kind is click.INT:
        return {"type": "integer"}
    if kind is click.FLOAT:
        return {"type": "number"}
    if kind is click.BOOL:
        return {"type": "boolean"}
    return {"type": "string", "maxLength": MAX_STRING}


def _plain(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _property(verb: str, param: click.Parameter) -> dict[str, Any]:
    """The JSON Schema of one Click parameter."""
    if getattr(param, "is_flag", False):
        out: dict[str, Any] = {"type": "boolean", "default": bool(param.default)}
    elif param.nargs == -1 or getattr(param, "multiple", False):
        out = {"type": "array", "items": _type_schema(param.type), "maxItems": MAX_ITEMS}
        if param.required:
            out["minItems"] = 1
    else:
        out = _type_schema(param.type)
        if _plain(param.default):
            out["default"] = param.default
        elif not param.required:
            out = {"anyOf": [out, {"type": "null"}], "default": None}
    help_text = getattr(param, "help", None) or f"The {param.human_readable_name} argument of `b2g {verb}`."
    out["description"] = help_text
    return out


def _tool(verb: str, command: click.Command, binding: Binding) -> Tool:
    params = [p for p in command.params if p.expose_value and p.name not in PLUMBING]
    if binding.keyed:
        params.append(next(p for p in command.params if p.name == "idempotency_key"))
    fields = {_field_name(p): p for p in params}
    schema = {"type": "object", "properties": {name: _property(verb, p) for name, p in fields.items()},
              "required": sorted(name for name, p in fields.items() if p.required), "additionalProperties": False}
    defaults = {p.name: (() if p.nargs == -1 else p.default if _plain(p.default) else None)
                for p in command.params if p.expose_value}
    help_text = (command.help or "").strip()
    note = " Reads only: changes no file." if binding.reads else ""
    return Tool(verb.replace(" ", "_"), verb, binding, fields, defaults, schema, f"`b2g {verb}`: {help_text}{note}")


def tools() -> dict[str, Tool]:
    """Every verb that is a tool, by tool name."""
    found = {}
    for verb, command in walk(cli):
        binding = binding_of(command)
        if binding is not None and binding.tool:
            tool = _tool(verb, command, binding)
            found[tool.name] = tool
    return found


def check_arguments(tool: Tool, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The Click parameters of a call from its JSON arguments, or a typed error naming every problem."""
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
        params[param.name] = tuple(value) if isinstance(value, list) else value
    for name in _SNAKEMAKE_ARGS:
        if name in params:
            check_request(None, list(params[name]))     # the server chooses the workspace and the output
    return params


def call(tool: Tool, ws: Workspace, arguments: dict[str, Any] | None,
         on_line: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The envelope of one tool call (the CLI's `execute`, minus the printing)."""
    try:
        params = check_arguments(tool, arguments)
        result = perform(tool.verb, tool.binding, params, on_line, ws=ws)
        return success(tool.verb, result.data, result.warnings)
    except (Exception, KeyboardInterrupt) as exc:   # the contract holds on every path, bugs included
        env = failure(tool.verb, exc)
        if env["error"]["code"] == "INTERNAL":
            traceback.print_exc(file=sys.stderr)
        return env
