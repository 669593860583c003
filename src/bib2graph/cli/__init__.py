"""The `b2g` command line: a thin Click adapter over bib2graph.service.

It parses arguments, calls one service operation, prints the envelope (JSON mode: one line on
stdout; human mode: a summary on stderr) and exits with the envelope's code. JSON mode is on with
`--json` anywhere before `--`, or with B2G_JSON=1/true/yes.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path


def _as_the_program() -> bool:
    """Whether this process is `b2g` (or `python -m bib2graph`), not a program importing the package."""
    started = Path(sys.argv[0] if sys.argv and sys.argv[0] else "")
    return started.name == "b2g" or (started.name == "__main__.py" and started.parent.name == "bib2graph")


#: SIGTERM received while the command line was still loading (imports take ~0.1 s), before `main` could end
#: the call through its envelope: the process died with no answer. It is kept and acted on once `main` starts.
_EARLY: list[int] = []
if _as_the_program() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
    signal.signal(signal.SIGTERM, lambda signum, _frame: _EARLY.append(signum))

import logging  # noqa: E402 - after the early handler: the imports below are the window it covers
import os  # noqa: E402

import click  # noqa: E402

from ..service.envelope import dumps, failure  # noqa: E402
from ..errors import RunInterrupted, UsageError  # noqa: E402
from .commands import cli  # noqa: E402

_TRUTHY = {"1", "true", "yes"}


def wants_json(argv: list[str]) -> bool:
    """`--json` before any `--`, or a truthy B2G_JSON."""
    head = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in head or os.environ.get("B2G_JSON", "").strip().lower() in _TRUTHY


def _attempted_command(exc: click.exceptions.UsageError, argv: list[str]) -> str:
    if isinstance(exc, click.exceptions.NoSuchCommand):
        return next((a for a in argv if not a.startswith("-")), "")
    ctx = exc.ctx
    if ctx is None or ctx.command is cli or not ctx.command.name:
        return ""
    return ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command.name   # "curate dump"


def _ensure_utf8() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (stream.encoding or "").lower().replace("-", "") != "utf8":
            reconfigure(encoding="utf-8")


def _terminate(_signum, _frame) -> None:
    """SIGTERM ends a call like Ctrl-C does: through the envelope, with nothing half-written."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    _ensure_utf8()
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)   # its skips reach the envelope, 1-based
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str]) -> int:
    json_mode = wants_json(argv)
    if _EARLY:
        return _interrupted(argv, json_mode)
    if json_mode:
        argv = _help_as_schema(argv) or argv
    try:
        code = cli.main(args=argv, prog_name="b2g", standalone_mode=False, obj={"json": json_mode})
        return int(code or 0)
    except click.exceptions.UsageError as exc:
        if json_mode:
            err = UsageError(exc.format_message(), code="USAGE_ERROR")
            env = failure(_attempted_command(exc, argv), err)
            env["exit_code"] = 2
            print(dumps(env), flush=True)
        else:
            exc.show(file=sys.stderr)
        return 2
    except click.exceptions.Abort:
        return _interrupted(argv, json_mode)
    except click.exceptions.Exit as exc:
        return exc.exit_code


def _help_as_schema(argv: list[str]) -> list[str] | None:
    """In JSON mode `--help` asks for a verb's description as a program reads it: the verb's `--schema`
    envelope (the whole contract's, `b2g schema`, for `b2g --help` or a group's), not Click's text, which
    broke "one JSON line on stdout" for a caller with B2G_JSON=1. None when no help is asked."""
    from ..service.verbs import VERBS

    head = argv[: argv.index("--")] if "--" in argv else argv
    if not any(a in ("--help", "-h") for a in head):
        return None
    words = [a for a in head if not a.startswith("-")]
    for n in (2, 1):
        if len(words) >= n and " ".join(words[:n]) in VERBS:
            return [*words[:n], "--schema", "--json"]
    return ["schema", "--json"]


def _interrupted(argv: list[str], json_mode: bool) -> int:
    """The INTERRUPTED answer of a call a signal stopped."""
    env = failure(next((a for a in argv if not a.startswith("-")), ""), RunInterrupted("interrupted"))
    if json_mode:
        print(dumps(env), flush=True)
    else:
        print("Interrupted.", file=sys.stderr)
    return env["exit_code"]
