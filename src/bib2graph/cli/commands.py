"""The verbs of `b2g`. Each one resolves the workspace, calls its service and emits the envelope."""

from __future__ import annotations

import getpass
import os
import sys
import traceback
from datetime import datetime, timezone
from typing import Callable

import click

from .. import CONTRACT_VERSION, __version__
from ..service.envelope import dumps, failure, success
from ..service.result import Result
from ..service.workspace import resolve
from .human import show

_JSON_HELP = "Print one JSON envelope on stdout (also: B2G_JSON=1)."
_WS_HELP = "The workspace folder (default: B2G_WORKSPACE, else the nearest folder above with config/research.yaml)."


def execute(command: str, operation: Callable[[], Result]) -> int:
    """Run one service operation and emit its envelope; return the exit code."""
    json_mode = click.get_current_context().find_root().obj.get("json", False)
    try:
        result = operation()
        env = success(command, result.data, result.warnings)
    except Exception as exc:  # the contract holds on every path, bugs included
        env = failure(command, exc)
        if env["error"]["code"] == "INTERNAL":
            traceback.print_exc(file=sys.stderr)
    if json_mode:
        print(dumps(env), flush=True)
    else:
        show(env)
    return env["exit_code"]


def common(func):
    """The options every verb takes: --json and --workspace."""
    func = click.option("--workspace", "-w", metavar="DIR", default=None, help=_WS_HELP)(func)
    func = click.option("--json", "json_flag", is_flag=True, help=_JSON_HELP)(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", message=f"b2g %(version)s (contract {CONTRACT_VERSION})")
@click.option("--json", "json_flag", is_flag=True, hidden=True, help=_JSON_HELP)
def cli(json_flag: bool) -> None:
    """bib2graph: from a research spec to a reproducible map of a literature."""


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing spec and curation file.")
@click.option("--json", "json_flag", is_flag=True, help=_JSON_HELP)
def init(folder: str, force: bool, json_flag: bool) -> int:
    """Create a workspace in FOLDER: config/research.yaml (the demo spec) and config/curation.tsv."""
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


@cli.command()
@common
def status(json_flag: bool, workspace: str | None) -> int:
    """Which jobs are complete, stale (and why) or missing, and the counts of every artifact."""
    from ..service.status import get_status

    return execute("status", lambda: get_status(resolve(workspace)))


@cli.command()
@common
def plan(json_flag: bool, workspace: str | None) -> int:
    """How many OpenAlex requests of each kind the spec will make, and their cost; sends none."""
    from ..service.plan import make_plan

    return execute("plan", lambda: make_plan(resolve(workspace)))


def _who(by: str | None) -> str:
    if by:
        return by
    try:
        return os.environ.get("B2G_USER") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


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
