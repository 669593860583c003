"""The verbs of `b2g` as Click commands, built from the verb table (service/verbs.py).

Each command parses its parameters, runs the verb through service/perform.py and emits the envelope.
The two serving verbs have callbacks of their own here (`gui` prints its URL and opens a browser, `mcp`
hands stdout to the protocol); the modules that serve them are imported by the name the table gives.
"""

from __future__ import annotations

import errno
import importlib
import math
import os
import sys
from typing import Any, Callable

import click

from .. import CONTRACT_VERSION, __version__
from ..errors import WorkspaceError
from ..service.envelope import dumps, success
from ..service.perform import failed, outcome, perform
from ..service.result import Result
from ..service.verbs import GROUPS, JSON, VERBS, Param, Verb, described, subverbs
from ..service.workspace import resolve
from .human import show


def execute(command: str, operation: Callable[[], Result]) -> int:
    """Run one service operation and emit its envelope; return the exit code. An envelope stdout cannot
    take (a full disk, a reader gone: `| head`) is an OSError of the call's own, exit 5, said on stderr
    without a traceback; stdout is then pointed at /dev/null, so that Python's last flush raises nothing."""
    env = outcome(command, operation)
    try:
        emit(env)
    except OSError as exc:
        _drop_stdout()
        print(f"b2g {command}: the answer could not be written to stdout ({exc.strerror or exc}); "
              f"the call itself ended with exit {env['exit_code']}", file=sys.stderr)
        return WorkspaceError.exit_code
    return env["exit_code"]


def _drop_stdout() -> None:
    if sys.stdout is None:          # closed from the start: nothing to flush
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def emit(env: dict) -> None:
    """Print an envelope: one JSON line on stdout in JSON mode, else the human form on stderr."""
    if click.get_current_context().find_root().obj.get("json", False):
        if sys.stdout is None:       # descriptor 1 closed when the call began: print would drop the answer
            raise OSError(errno.EBADF, "stdout is closed")
        print(dumps(env), flush=True)
    else:
        show(env)


def verb_name(ctx: click.Context) -> str:
    return ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command.name


def _print_schema(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`b2g VERB --schema`: that verb's part of `b2g schema`, then exit."""
    if not value or ctx.resilient_parsing:
        return
    from ..service.contract import describe

    name = verb_name(ctx)
    ctx.find_root().obj["json"] = True
    ctx.exit(execute("schema", lambda: describe(described([name]))))


# ------------------------------------------------------------------------------ parameters as Click's

class FiniteFloat(click.FloatRange):
    """Click's FloatRange without nan and infinity: `nan` passes every bound (no comparison holds), and
    `inf` or `1e308` seconds reach the clock as numbers it cannot take."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def click_type(param: Param) -> click.ParamType:
    """The Click type of a table parameter's plain type."""
    if param.choices is not None:
        return click.Choice(param.choices)
    if param.type == "float":
        finite = FiniteFloat(param.min, param.max)
        if param.min is None and param.max is None:
            finite.name = click.FLOAT.name
        return finite
    if param.type == "int" and (param.min is not None or param.max is not None):
        return click.IntRange(param.min, param.max)
    return {"text": click.STRING, "raw": click.UNPROCESSED, "int": click.INT,
            "dir": click.Path(file_okay=False), "file": click.Path(readable=False)}[param.type]   # the service says what a
    # file argument that is a folder, a device or unreadable is (FILE_INVALID, FILE_UNREADABLE), as over MCP


def click_param(param: Param) -> click.Parameter:
    """The Click argument or option of a table parameter."""
    if param.kind == "argument":
        return click.Argument([param.name], type=click_type(param), nargs=-1 if param.multiple else 1,
                              required=param.required, metavar=param.metavar)
    extra: dict[str, Any] = {"is_flag": True} if param.type == "flag" else {"type": click_type(param),
                                                                           "multiple": param.multiple}
    if param.default is not None:
        extra["default"] = param.default
    if param.eager:
        extra.update(expose_value=False, is_eager=True, callback=_print_schema)
    return click.Option([*param.flags, param.name], help=param.help, metavar=param.metavar,
                        show_default=param.show_default, **extra)


# ---------------------------------------------------------------------------------------- the verbs

def _bound(verb: Verb) -> Callable[..., int | None]:
    """The callback of a verb with a call: perform it and emit its envelope."""
    def callback(**params) -> int | None:
        ctx = click.get_current_context()
        if isinstance(ctx.command, click.Group) and ctx.invoked_subcommand is not None:
            return None                      # `b2g snapshot list`: the group only passes through
        return execute(verb.name, lambda: perform(verb, params))
    return callback


def gui(verb: Verb, port: int, no_browser: bool, json_flag: bool, workspace: str | None) -> int:
    """Serve the GUI until Ctrl-C or SIGTERM: the envelope once listening, then only stderr."""
    serving = []

    def ready(data: dict) -> None:
        serving.append(True)               # before the envelope: a SIGTERM right after it is a clean stop
        emit(success("gui", data, ws.warnings()))
        if click.get_current_context().find_root().obj.get("json", False):
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())   # the envelope stays stdout's one line
        if not no_browser:
            import webbrowser

            webbrowser.open(data["url"])

    try:
        ws = resolve(workspace)
        importlib.import_module(verb.serves).serve(ws, port, ready)
    except (Exception, KeyboardInterrupt) as exc:
        if serving and isinstance(exc, KeyboardInterrupt):
            return 0                       # Ctrl-C or SIGTERM while serving: a clean stop
        env = failed("gui", exc)
        if not serving:                    # after the envelope, errors go to stderr only
            emit(env)
        else:
            print(f"b2g gui stopped: {env['error']['message']}", file=sys.stderr)
        return env["exit_code"]
    return 0


def mcp(verb: Verb, json_flag: bool, workspace: str | None) -> int:
    """Serve the MCP tools over stdio until the client closes stdin; an envelope only if it cannot start."""
    try:
        ws = resolve(workspace)
        server = importlib.import_module(verb.serves)
        server.require_extra()
    except Exception as exc:
        env = failed("mcp", exc)
        emit(env)
        return env["exit_code"]
    server.serve_stdio(ws)
    return 0


SERVING = {"gui": gui, "mcp": mcp}


def command(verb: Verb) -> click.Command:
    """The Click command of a verb (a group when it has subverbs)."""
    callback = _bound(verb) if verb.call is not None else (lambda **p: SERVING[verb.name](verb, **p))
    settings = {"ignore_unknown_options": True, "allow_extra_args": True} if verb.passthrough else None
    params = [click_param(p) for p in verb.params]
    short = verb.name.rsplit(" ", 1)[-1]
    if subverbs(verb.name):
        return click.Group(short, callback=callback, params=params, help=verb.help, invoke_without_command=True,
                           context_settings=settings)
    return click.Command(short, callback=callback, params=params, help=verb.help, context_settings=settings)


def _version(ctx: click.Context, _param: click.Parameter, asked: bool) -> None:
    """`--version`: a line of text, or with --json (or B2G_JSON) the envelope a script reads."""
    if not asked or ctx.resilient_parsing:
        return
    if (ctx.obj or {}).get("json"):
        print(dumps(success("version", {"version": __version__, "contract": CONTRACT_VERSION}, [])), flush=True)
    else:
        click.echo(f"b2g {__version__} (contract {CONTRACT_VERSION})")
    ctx.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version (and the contract's) and exit.")
@click.option("--json", "json_flag", is_flag=True, hidden=True, help=JSON.help)
def cli(json_flag: bool) -> None:
    """bib2graph: from a research spec to a reproducible map of a literature."""


def _json_anywhere() -> click.Option:
    """`--json` taken between a group and its subverb too (`b2g curate --json dump`): JSON mode is read from
    the whole line (cli.wants_json), so the option only has to be accepted."""
    return click.Option(["--json"], is_flag=True, hidden=True, expose_value=False, help=JSON.help)


def _build(root: click.Group) -> None:
    """Add every verb of the table to `root`, subverbs under their group."""
    groups: dict[str, click.Group] = {name: click.Group(name, help=text, params=[_json_anywhere()])
                                      for name, text in GROUPS.items()}
    for name in sorted(VERBS, key=lambda n: n.count(" ")):
        made = command(VERBS[name])
        parent, _, _ = name.rpartition(" ")
        (groups[parent] if parent else root).add_command(made)
        if isinstance(made, click.Group):
            groups[name] = made
    for group in GROUPS:
        root.add_command(groups[group])


_build(cli)


def walk(group: click.Group, prefix: str = ""):
    """(name, command) for every verb, subcommands of groups as `group sub`."""
    ctx = click.Context(group)
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            if command.invoke_without_command:
                yield f"{prefix}{name}", command
            yield from walk(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", command
