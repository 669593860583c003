"""The verbs of `b2g`. Each one resolves the workspace, calls its service and emits the envelope."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Callable

import click

from .. import CONTRACT_VERSION, __version__
from ..service.audit import now as _now, who as _who
from ..service.envelope import dumps, failure, success
from ..service.result import Result
from ..service.workspace import resolve
from .human import show

_JSON_HELP = "Print one JSON envelope on stdout (also: B2G_JSON=1)."
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

    name = ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command.name
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
def init(folder: str, force: bool, json_flag: bool) -> int:
    """Create a workspace in FOLDER: config/research.yaml (the demo spec), config/curation.tsv and profiles/."""
    from ..service.init import init_workspace

    return execute("init", lambda: init_workspace(folder, force=force))


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--refresh", is_flag=True, help="Fetch from OpenAlex again instead of reusing the raw store.")
@common
def run(args: tuple[str, ...], refresh: bool, json_flag: bool, workspace: str | None) -> int:
    """Run the workflow, or up to one phase (seed, chain, corpus, networks, exports, report).

    Other arguments go to Snakemake, e.g. `b2g run corpus --cores 2` or `b2g run --executor slurm`.
    """
    from ..service.run import run_workflow

    return execute("run", lambda: run_workflow(resolve(workspace), list(args), refresh=refresh))


def _phase_command(verb: str, target: str):
    @click.argument("snakemake_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- SNAKEMAKE ARGS]")
    @click.option("--cores", "-c", default=None, metavar="N", help="Cores for Snakemake (default: all, or the profile's).")
    @common
    def command(snakemake_args, cores, json_flag, workspace) -> int:
        from ..service.run import run_verb

        extra = (["--cores", cores] if cores else []) + list(snakemake_args)
        return execute(verb, lambda: run_verb(resolve(workspace), verb, extra))
    command.__doc__ = (f"Run the workflow up to `{target}`; what is up to date is not redone. "
                       "Arguments after `--` go to Snakemake.")
    return command


for _verb, _target in (("seed", "seed"), ("chain", "chain"), ("filter", "corpus"), ("build", "networks"),
                       ("export", "exports")):
    cli.command(_verb)(_phase_command(_verb, _target))


@cli.command()
@common
def status(json_flag: bool, workspace: str | None) -> int:
    """Which jobs are complete, stale (and why) or missing, and the counts of every artifact."""
    from ..service.status import get_status

    return execute("status", lambda: get_status(resolve(workspace)))


@cli.group()
def curate() -> None:
    """Curation at scale: dump the works awaiting a decision to CSV, apply a reviewed copy."""


@curate.command("dump")
@click.option("--out", "-o", metavar="FILE", default=None, help="Where to write (default: results/curation/to-screen.csv).")
@click.option("--all", "everything", is_flag=True, help="Every pooled work, decided or not, seeds included.")
@common
def curate_dump(out: str | None, everything: bool, json_flag: bool, workspace: str | None) -> int:
    """Write a CSV of the works awaiting a decision, with empty decision and reason columns to fill."""
    from ..service.curate_file import dump

    return execute("curate dump", lambda: dump(resolve(workspace), out, everything))


@curate.command("apply")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--by", default=None, help="Who decides (default: B2G_USER, else the login name).")
@common
def curate_apply(file: str, by: str | None, json_flag: bool, workspace: str | None) -> int:
    """Record the decisions of a reviewed CSV (accept, reject or empty per row); a bad one changes nothing."""
    from ..service.curate_file import apply

    return execute("curate apply", lambda: apply(resolve(workspace), file, _who(by), _now()))


@cli.group(invoke_without_command=True)
@click.option("--name", default="snapshot", show_default=True, help="A short name, part of the snapshot's ID.")
@common
@click.pass_context
def snapshot(ctx: click.Context, name: str, json_flag: bool, workspace: str | None) -> int | None:
    """Seal the corpus, curation, networks and report into results/snapshots/<id>/ (never overwritten)."""
    if ctx.invoked_subcommand is not None:
        return None
    from ..service.snapshots import create

    return execute("snapshot", lambda: create(resolve(workspace), name, _now()))


@snapshot.command("list")
@common
def snapshot_list(json_flag: bool, workspace: str | None) -> int:
    """The sealed snapshots, oldest first."""
    from ..service.snapshots import listing

    return execute("snapshot list", lambda: listing(resolve(workspace)))


@snapshot.command("diff")
@click.argument("a")
@click.argument("b")
@common
def snapshot_diff(a: str, b: str, json_flag: bool, workspace: str | None) -> int:
    """Works added and removed, decisions changed, network sizes and clusters from snapshot A to B."""
    from ..service.snapshots import compare

    return execute("snapshot diff", lambda: compare(resolve(workspace), a, b))


@snapshot.command("restore")
@click.argument("snapshot_id")
@click.option("--into", metavar="DIR", default=None, help="A new folder (default: results/restored/<id>).")
@common
def snapshot_restore(snapshot_id: str, into: str | None, json_flag: bool, workspace: str | None) -> int:
    """Rebuild a snapshot's networks offline from its sealed data and check them byte for byte."""
    from ..service.snapshots import restore

    return execute("snapshot restore", lambda: restore(resolve(workspace), snapshot_id, into))


@cli.command()
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Give up (exit 4) after this many seconds.")
@common
def monitor(timeout: float, json_flag: bool, workspace: str | None) -> int:
    """Ask OpenAlex for new works citing the included corpus; they join the pool as pending candidates.

    Safe for cron: a lock, a timeout, no prompt, a log file (results/logs/monitor.log); nothing new is exit 0.
    """
    from ..service.monitor import run_monitor

    return execute("monitor", lambda: run_monitor(resolve(workspace), _now(), timeout))


@cli.command()
@click.argument("work_id")
@common
def inspect(work_id: str, json_flag: bool, workspace: str | None) -> int:
    """One work: its record, where it came from, what screening and curation said, its place in each network."""
    from ..service.inspect import inspect_work

    return execute("inspect", lambda: inspect_work(resolve(workspace), work_id))


@cli.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--limit", "-n", type=int, default=20, show_default=True, help="At most this many works (1-1000).")
@common
def search(text: tuple[str, ...], limit: int, json_flag: bool, workspace: str | None) -> int:
    """Find pooled works by title words, author names, DOI (any form) or OpenAlex ID; best matches first."""
    from ..service.search import search_works

    return execute("search", lambda: search_works(resolve(workspace), " ".join(text), limit))


@cli.command()
@click.argument("kind")
@click.argument("source")
@click.argument("target")
@common
def evidence(kind: str, source: str, target: str, json_flag: bool, workspace: str | None) -> int:
    """The documents behind one edge of network KIND: why SOURCE and TARGET are linked."""
    from ..service.evidence import edge_evidence

    return execute("evidence", lambda: edge_evidence(resolve(workspace), kind, source, target))


@cli.command()
@click.option("--limit", "-n", type=int, default=50, show_default=True, help="At most this many works (1-10000).")
@common
def queue(limit: int, json_flag: bool, workspace: str | None) -> int:
    """The works awaiting a decision (not seeds, not decided), with their abstract and why they are here."""
    from ..service.queue import screening_queue

    return execute("queue", lambda: screening_queue(resolve(workspace), limit))


@cli.command()
@common
def networks(json_flag: bool, workspace: str | None) -> int:
    """Every network of the spec: built or not, nodes, edges, clusters, and whether a layout is drawn."""
    from ..service.network_view import list_networks

    return execute("networks", lambda: list_networks(resolve(workspace)))


@cli.command()
@click.argument("kind")
@click.option("--edges", type=int, default=20000, show_default=True,
              help="Edges per page, strongest first (0-200000).")
@click.option("--offset", type=int, default=0, show_default=True, help="Skip this many edges (the previous page's edges_next).")
@common
def network(kind: str, edges: int, offset: int, json_flag: bool, workspace: str | None) -> int:
    """One network: its nodes (with layout positions), clusters, metrics and a page of its strongest edges."""
    from ..service.network_view import network as read_network

    return execute("network", lambda: read_network(resolve(workspace), kind, edges, offset))


@cli.command()
@click.argument("kind")
@common
def slices(kind: str, json_flag: bool, workspace: str | None) -> int:
    """One network in each time slice (`time:` in the spec): members and clusters per slice, cluster events."""
    from ..service.slices_view import slices as read_slices

    return execute("slices", lambda: read_slices(resolve(workspace), kind))


@cli.command()
@common
def prisma(json_flag: bool, workspace: str | None) -> int:
    """The PRISMA 2020 counts of the last corpus build: identified, duplicates, screened, excluded, included."""
    from ..service.prisma import read_prisma

    return execute("prisma", lambda: read_prisma(resolve(workspace)))


@cli.command()
@common
def validate(json_flag: bool, workspace: str | None) -> int:
    """Check the spec, the curation file and every artifact against its schema."""
    from ..service.validate import validate_workspace

    return execute("validate", lambda: validate_workspace(resolve(workspace)))


@cli.command()
@common
def plan(json_flag: bool, workspace: str | None) -> int:
    """How many OpenAlex requests of each kind the spec will make, and their cost; sends none."""
    from ..service.plan import make_plan

    return execute("plan", lambda: make_plan(resolve(workspace)))


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
        emit(success("gui", data, ws.warnings()))
        serving.append(True)
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


def _decision_command(decision: str):
    @click.argument("ids", nargs=-1, required=True)
    @click.option("--reason", "-r", default="", help="Why (kept in curation.tsv; required by reject).")
    @click.option("--by", default=None, help="Who decides (default: B2G_USER, else the login name).")
    @click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
                  help="Seconds to wait for another writer's lock before giving up (exit 5).")
    @common
    def command(ids, reason, by, wait, json_flag, workspace) -> int:
        from ..service.curate import decide

        return execute(decision, lambda: decide(resolve(workspace), decision, list(ids), reason,
                                                _who(by), _now(), wait=wait))
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
def withdraw(ids: tuple[str, ...], wait: float, json_flag: bool, workspace: str | None) -> int:
    """Remove the recorded decisions of works (IDs or DOIs): they are pending again, as if never decided."""
    from ..service.curate import withdraw as withdraw_decisions

    return execute("withdraw", lambda: withdraw_decisions(resolve(workspace), list(ids), wait=wait))


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
def schema_command(json_flag: bool) -> int:
    """The contract: version, exit codes, every verb with its parameters and the JSON Schema of its data."""
    from ..service.contract import describe

    return execute("schema", lambda: describe(verb_table()))
