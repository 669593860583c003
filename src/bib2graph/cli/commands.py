"""The verbs of `b2g`. Each one resolves the workspace, calls its service and emits the envelope."""

from __future__ import annotations

import functools
import importlib
import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import click

from .. import CONTRACT_VERSION, __version__
from ..service.audit import now as _now, who as _who
from ..service.envelope import dumps, failure, success
from ..service.result import Result
from ..service.workspace import Workspace, resolve
from .human import show

_JSON_HELP = "Print one JSON envelope on stdout (also: B2G_JSON=1)."
_KEY_HELP = ("Act at most once for this key: a repeat with the same arguments returns the recorded result, "
             "other arguments are IDEMPOTENCY_CONFLICT.")
_WS_HELP = "The workspace folder (default: B2G_WORKSPACE, else the nearest folder above with config/research.yaml)."


def execute(command: str, operation: Callable[[], Result]) -> int:
    """Run one service operation and emit its envelope; return the exit code."""
    try:
        result = operation()
        env = success(command, result.data, result.warnings)
    except (Exception, KeyboardInterrupt) as exc:  # the contract holds on every path, bugs included
        env = _failed(command, exc)
    emit(env)
    return env["exit_code"]


@dataclass(frozen=True)
class Binding:
    """What a verb does apart from parsing: the one table every adapter reads (the CLI runs it from its
    callbacks, `b2g mcp` from its tools). `call(ws, params, on_line)` gets the workspace (None for
    verbs without one), the parameters by Click name and a sink for Snakemake's output lines."""
    call: Callable[[Workspace | None, dict[str, Any], Callable[[str], None] | None], Result]
    reads: bool = False          # never writes under the workspace (MCP: readOnlyHint)
    keyed: bool = False          # takes --idempotency-key (seed 003)
    long: bool = False           # runs the workflow: reports progress
    workspace: bool = True       # resolves --workspace first
    tool: bool = True            # an MCP tool (init is not: the server serves one existing workspace)


# Parameters that choose where or how a call prints, not what it asks: left out of the request an
# idempotency key stands for, and of the MCP tools (the server has one workspace and speaks JSON).
PLUMBING = ("json_flag", "workspace", "idempotency_key", "wait")


def service(module: str, name: str) -> Callable[..., Result]:
    """A service function, imported when called (so `b2g --help` stays fast)."""
    return getattr(importlib.import_module(f"bib2graph.service.{module}"), name)


def request_of(params: dict[str, Any]) -> dict[str, Any]:
    """The arguments an idempotency key stands for: every parameter but the plumbing, as JSON values."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(params.items()) if k not in PLUMBING}


def perform(verb: str, binding: Binding, params: dict[str, Any], on_line: Callable[[str], None] | None = None,
            ws: Workspace | None = None) -> Result:
    """Run a verb's service call in `ws` (default: resolved from --workspace), once per idempotency key
    when one is given."""
    if ws is None and binding.workspace:
        ws = resolve(params.get("workspace"))
    key = params.get("idempotency_key")
    if key is None:
        return binding.call(ws, params, on_line)
    from ..service.idempotency import once

    return once(ws, verb, key, request_of(params), lambda: binding.call(ws, params, on_line))


def verb_name(ctx: click.Context) -> str:
    return ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command.name


def binds(call, *, reads: bool = False, keyed: bool = False, long: bool = False, workspace: bool = True,
          tool: bool = True):
    """Make a function the callback of a verb that runs `call` through `perform` and emits its envelope."""
    binding = Binding(call, reads, keyed, long, workspace, tool)

    def decorate(func):
        @functools.wraps(func)
        def callback(**params) -> int | None:
            ctx = click.get_current_context()
            if isinstance(ctx.command, click.Group) and ctx.invoked_subcommand is not None:
                return None                      # `b2g snapshot list`: the group only passes through
            verb = verb_name(ctx)
            return execute(verb, lambda: perform(verb, binding, params))
        callback.binding = binding
        if keyed:
            callback = click.option("--idempotency-key", metavar="KEY", default=None, help=_KEY_HELP)(callback)
        return callback
    return decorate


def binding_of(command: click.Command) -> Binding | None:
    return getattr(command.callback, "binding", None)


def _failed(command: str, exc: BaseException) -> dict:
    env = failure(command, exc)
    if env["error"]["code"] == "INTERNAL":
        traceback.print_exc(file=sys.stderr)
    return env


def emit(env: dict) -> None:
    """Print an envelope: one JSON line on stdout in JSON mode, else the human form on stderr."""
    if click.get_current_context().find_root().obj.get("json", False):
        print(dumps(env), flush=True)
    else:
        show(env)


def _print_schema(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`b2g VERB --schema`: that verb's part of `b2g schema`, then exit."""
    if not value or ctx.resilient_parsing:
        return
    from ..service.contract import describe

    name = verb_name(ctx)
    ctx.find_root().obj["json"] = True
    ctx.exit(execute("schema", lambda: describe({name: verb_table()[name]})))


def schema_option(func):
    return click.option("--schema", is_flag=True, expose_value=False, is_eager=True, callback=_print_schema,
                        help="Print this verb's parameters and data schema as JSON, then exit.")(func)


def common(func):
    """The options every verb takes: --json, --workspace and --schema."""
    func = click.option("--workspace", "-w", metavar="DIR", default=None, help=_WS_HELP)(func)
    func = click.option("--json", "json_flag", is_flag=True, help=_JSON_HELP)(func)
    return schema_option(func)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", message=f"b2g %(version)s (contract {CONTRACT_VERSION})")
@click.option("--json", "json_flag", is_flag=True, hidden=True, help=_JSON_HELP)
def cli(json_flag: bool) -> None:
    """bib2graph: from a research spec to a reproducible map of a literature."""


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing spec, curation file and profiles.")
@click.option("--json", "json_flag", is_flag=True, help=_JSON_HELP)
@schema_option
@binds(lambda ws, p, on_line: service("init", "init_workspace")(p["folder"], force=p["force"]),
       workspace=False, tool=False)
def init(**_params) -> int:
    """Create a workspace in FOLDER: config/research.yaml (the demo spec), config/curation.tsv and profiles/."""


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--refresh", is_flag=True, help="Fetch from OpenAlex again instead of reusing the raw store.")
@common
@binds(lambda ws, p, on_line: service("run", "run_workflow")(ws, list(p["args"]), refresh=p["refresh"],
                                                             on_line=on_line), keyed=True, long=True)
def run(**_params) -> int:
    """Run the workflow, or up to one phase (seed, chain, corpus, networks, exports, report).

    Other arguments go to Snakemake, e.g. `b2g run corpus --cores 2` or `b2g run --executor slurm`.
    """


def _phase_call(verb: str):
    def call(ws, p, on_line):
        extra = (["--cores", p["cores"]] if p["cores"] else []) + list(p["snakemake_args"])
        return service("run", "run_verb")(ws, verb, extra, on_line=on_line)
    return call


def _phase_command(verb: str, target: str):
    @click.argument("snakemake_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- SNAKEMAKE ARGS]")
    @click.option("--cores", "-c", default=None, metavar="N", help="Cores for Snakemake (default: all, or the profile's).")
    @common
    @binds(_phase_call(verb), keyed=True, long=True)
    def command(**_params) -> int:
        pass
    command.__doc__ = (f"Run the workflow up to `{target}`; what is up to date is not redone. "
                       "Arguments after `--` go to Snakemake.")
    return command


for _verb, _target in (("seed", "seed"), ("chain", "chain"), ("filter", "corpus"), ("build", "networks"),
                       ("export", "exports")):
    cli.command(_verb)(_phase_command(_verb, _target))


@cli.command()
@common
@binds(lambda ws, p, on_line: service("status", "get_status")(ws), reads=True)
def status(**_params) -> int:
    """Which jobs are complete, stale (and why) or missing, and the counts of every artifact."""


@cli.group()
def curate() -> None:
    """Curation at scale: dump the works awaiting a decision to CSV, apply a reviewed copy."""


@curate.command("dump")
@click.option("--out", "-o", metavar="FILE", default=None, help="Where to write (default: results/curation/to-screen.csv).")
@click.option("--all", "everything", is_flag=True, help="Every pooled work, decided or not, seeds included.")
@common
@binds(lambda ws, p, on_line: service("curate_file", "dump")(ws, p["out"], p["everything"]))
def curate_dump(**_params) -> int:
    """Write a CSV of the works awaiting a decision, with empty decision and reason columns to fill."""


@curate.command("apply")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--by", default=None, help="Who decides (default: B2G_USER, else the login name).")
@common
@binds(lambda ws, p, on_line: service("curate_file", "apply")(ws, p["file"], _who(p["by"]), _now()), keyed=True)
def curate_apply(**_params) -> int:
    """Record the decisions of a reviewed CSV (accept, reject or empty per row); a bad one changes nothing."""


@cli.group(invoke_without_command=True)
@click.option("--name", default="snapshot", show_default=True, help="A short name, part of the snapshot's ID.")
@common
@binds(lambda ws, p, on_line: service("snapshots", "create")(ws, p["name"], _now()), keyed=True)
def snapshot(**_params) -> int | None:
    """Seal the corpus, curation, networks and report into results/snapshots/<id>/ (never overwritten)."""


@snapshot.command("list")
@common
@binds(lambda ws, p, on_line: service("snapshots", "listing")(ws), reads=True)
def snapshot_list(**_params) -> int:
    """The sealed snapshots, oldest first."""


@snapshot.command("diff")
@click.argument("a")
@click.argument("b")
@common
@binds(lambda ws, p, on_line: service("snapshots", "compare")(ws, p["a"], p["b"]), reads=True)
def snapshot_diff(**_params) -> int:
    """Works added and removed, decisions changed, network sizes and clusters from snapshot A to B."""


@snapshot.command("restore")
@click.argument("snapshot_id")
@click.option("--into", metavar="DIR", default=None, help="A new folder (default: results/restored/<id>).")
@common
@binds(lambda ws, p, on_line: service("snapshots", "restore")(ws, p["snapshot_id"], p["into"], on_line=on_line),
       keyed=True, long=True)
def snapshot_restore(**_params) -> int:
    """Rebuild a snapshot's networks offline from its sealed data and check them byte for byte."""


@cli.command()
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Give up (exit 4) after this many seconds.")
@common
@binds(lambda ws, p, on_line: service("monitor", "run_monitor")(ws, _now(), p["timeout"]), long=True)
def monitor(**_params) -> int:
    """Ask OpenAlex for new works citing the included corpus; they join the pool as pending candidates.

    Safe for cron: a lock, a timeout, no prompt, a log file (results/logs/monitor.log); nothing new is exit 0.
    """


@cli.command()
@click.argument("work_id")
@common
@binds(lambda ws, p, on_line: service("inspect", "inspect_work")(ws, p["work_id"]), reads=True)
def inspect(**_params) -> int:
    """One work: its record, where it came from, what screening and curation said, its place in each network."""


@cli.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--limit", "-n", type=int, default=20, show_default=True, help="At most this many works (1-1000).")
@common
@binds(lambda ws, p, on_line: service("search", "search_works")(ws, " ".join(p["text"]), p["limit"]), reads=True)
def search(**_params) -> int:
    """Find pooled works by title words, author names, DOI (any form) or OpenAlex ID; best matches first."""


@cli.command()
@click.argument("kind")
@click.argument("source")
@click.argument("target")
@common
@binds(lambda ws, p, on_line: service("evidence", "edge_evidence")(ws, p["kind"], p["source"], p["target"]),
       reads=True)
def evidence(**_params) -> int:
    """The documents behind one edge of network KIND: why SOURCE and TARGET are linked."""


@cli.command()
@click.option("--limit", "-n", type=int, default=50, show_default=True, help="At most this many works (1-10000).")
@click.option("--before", metavar="WORK_ID", default=None,
              help="The queue as it stood just before the decision on this work was recorded (an audit).")
@common
@binds(lambda ws, p, on_line: service("queue", "screening_queue")(ws, p["limit"], p["before"]), reads=True)
def queue(**_params) -> int:
    """The works awaiting a decision, likely includes first once the model can rank, and whether to stop.

    Ranked by the screening model (spec screening.model) once there is an include and an exclude; each
    work says why it is here and why it ranks there. The stopping rule's verdict comes with it.
    """


@cli.command()
@click.option("--labels", metavar="FILE", default=None,
              help="A labels file (openalex_id or doi, label_included); default: screening.simulation.labels.")
@click.option("--priors", type=click.IntRange(1, 100), default=None,
              help="Prior includes and excludes drawn, each (default: screening.simulation.priors).")
@click.option("--seed", "seeds", type=click.IntRange(min=0), multiple=True,
              help="One replay per seed, repeatable (default: screening.simulation.seeds).")
@click.option("--out", metavar="FILE", default=None,
              help="The curves' Parquet table (default: results/simulations/<labels stem>.parquet).")
@common
@binds(lambda ws, p, on_line: service("simulate", "run_simulation")(ws, p["labels"], p["priors"], p["seeds"],
                                                                    p["out"], on_line), keyed=True, long=True)
def simulate(**_params) -> int:
    """Replay screening on a labelled review: WSS@95, recall after 10%, time to discovery, the stopping rule.

    The labelled works the pool holds are screened as the queue would order them, from prior decisions
    drawn with each seed; the model and the stopping rule are the spec's (screening.model, .stopping).
    """


@cli.command()
@common
@binds(lambda ws, p, on_line: service("network_view", "list_networks")(ws), reads=True)
def networks(**_params) -> int:
    """Every network of the spec: built or not, nodes, edges, clusters, and whether a layout is drawn."""


@cli.command()
@click.argument("kind")
@click.option("--edges", type=int, default=20000, show_default=True,
              help="Edges per page, strongest first (0-200000).")
@click.option("--offset", type=int, default=0, show_default=True, help="Skip this many edges (the previous page's edges_next).")
@common
@binds(lambda ws, p, on_line: service("network_view", "network")(ws, p["kind"], p["edges"], p["offset"]), reads=True)
def network(**_params) -> int:
    """One network: its nodes (with layout positions), clusters, metrics and a page of its strongest edges."""


@cli.command()
@click.argument("kind")
@common
@binds(lambda ws, p, on_line: service("slices_view", "slices")(ws, p["kind"]), reads=True)
def slices(**_params) -> int:
    """One network in each time slice (`time:` in the spec): members and clusters per slice, cluster events."""


@cli.command()
@common
@binds(lambda ws, p, on_line: service("prisma", "read_prisma")(ws), reads=True)
def prisma(**_params) -> int:
    """The PRISMA 2020 counts of the last corpus build: identified, duplicates, screened, excluded, included."""


@cli.command()
@common
@binds(lambda ws, p, on_line: service("validate", "validate_workspace")(ws), reads=True)
def validate(**_params) -> int:
    """Check the spec, the curation file and every artifact against its schema."""


@cli.command()
@common
@binds(lambda ws, p, on_line: service("plan", "make_plan")(ws), reads=True)
def plan(**_params) -> int:
    """How many OpenAlex requests of each kind the spec will make, and their cost; sends none."""


@cli.command()
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL but do not open a browser.")
@common
def gui(port: int, no_browser: bool, json_flag: bool, workspace: str | None) -> int:
    """Serve the review in the browser: the GUI and its local API, on 127.0.0.1 with a one-time token.

    Prints the URL (with the token) once listening, then serves until Ctrl-C or SIGTERM (exit 0).
    With --json: one envelope {workspace, url, port, pid}, then it serves; stop it with SIGTERM to pid.
    """
    from ..api.launch import serve

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
        serve(ws, port, ready)
    except (Exception, KeyboardInterrupt) as exc:
        if serving and isinstance(exc, KeyboardInterrupt):
            return 0                       # Ctrl-C or SIGTERM while serving: a clean stop
        env = _failed("gui", exc)
        if not serving:                    # after the envelope, errors go to stderr only
            emit(env)
        else:
            print(f"b2g gui stopped: {env['error']['message']}", file=sys.stderr)
        return env["exit_code"]
    return 0


@cli.command("mcp")
@common
def mcp_command(json_flag: bool, workspace: str | None) -> int:
    """Serve the verbs to an AI agent as MCP tools over stdio (needs the `mcp` extra).

    One tool per verb on this workspace, the same service calls, envelopes and errors as the CLI;
    stdout carries only the protocol. It serves until the client closes stdin. See docs/contract.md.
    """
    from ..mcp_server.server import require_extra, serve_stdio

    try:
        ws = resolve(workspace)
        require_extra()
    except Exception as exc:
        env = _failed("mcp", exc)
        emit(env)
        return env["exit_code"]
    serve_stdio(ws)
    return 0


def _decision_command(decision: str):
    @click.argument("ids", nargs=-1, required=True)
    @click.option("--reason", "-r", default="", help="Why (kept in curation.tsv; required by reject).")
    @click.option("--by", default=None, help="Who decides (default: B2G_USER, else the login name).")
    @click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
                  help="Seconds to wait for another writer's lock before giving up (exit 5).")
    @common
    @binds(lambda ws, p, on_line: service("curate", "decide")(ws, decision, list(p["ids"]), p["reason"],
                                                              _who(p["by"]), _now(), wait=p["wait"]), keyed=True)
    def command(**_params) -> int:
        pass
    return command


cli.command("accept", help="Include works (IDs or DOIs) in the corpus, whatever the filters say.")(
    _decision_command("accept"))
cli.command("reject", help="Exclude works (IDs or DOIs) from the corpus, saying why with --reason.")(
    _decision_command("reject"))


@cli.command()
@click.argument("ids", nargs=-1, required=True)
@click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait for another writer's lock before giving up (exit 5).")
@common
@binds(lambda ws, p, on_line: service("curate", "withdraw")(ws, list(p["ids"]), wait=p["wait"]), keyed=True)
def withdraw(**_params) -> int:
    """Remove the recorded decisions of works (IDs or DOIs): they are pending again, as if never decided."""


def _param(param: click.Parameter) -> dict:
    kind = param.type
    out = {"name": param.name, "kind": "argument" if isinstance(param, click.Argument) else "option",
           "type": "flag" if getattr(param, "is_flag", False) else kind.name,
           "required": bool(param.required), "multiple": bool(getattr(param, "multiple", False)
                                                              or param.nargs == -1)}
    if isinstance(param, click.Option):
        out["flags"] = sorted(param.opts + param.secondary_opts)
        out["help"] = param.help or ""
        if not out["required"] and isinstance(param.default, (str, int, float, bool)):
            out["default"] = param.default
    if isinstance(kind, click.Choice):
        out["choices"] = list(kind.choices)
    return out


def verb_table() -> dict[str, dict]:
    """Every verb with its help and parameters, read off the Click tree (so it cannot drift)."""
    table = {}
    for name, command in walk(cli):
        params = [p for p in command.params if not getattr(p, "hidden", False)]
        table[name] = {"help": (command.help or "").strip().splitlines()[0] if command.help else "",
                       "params": [_param(p) for p in params],
                       "passes_extra_args_to_snakemake": bool(command.allow_extra_args)}
    return table


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


@cli.command("schema")
@click.option("--json", "json_flag", is_flag=True, help=_JSON_HELP)
@schema_option
@binds(lambda ws, p, on_line: service("contract", "describe")(verb_table()), reads=True, workspace=False)
def schema_command(**_params) -> int:
    """The contract: version, exit codes, every verb with its parameters and the JSON Schema of its data."""
