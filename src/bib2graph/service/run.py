"""`run`: the preflight, then the workspace handed to Snakemake, and an honest envelope whatever happens.

Snakemake runs as a child process on the packaged workflow with the workspace as its working
directory; its output goes to stderr so that stdout stays free for the envelope. Around it:

- the preflight (`preflight.py`): a spec a job would refuse, a missing or unreadable input never
  starts a job;
- the run lock: one `b2g run` per workspace, held by Snakemake too, so even a `b2g` killed by
  SIGKILL cannot let a second run start beside the Snakemake it left;
- drift (`dag.drifted`): jobs whose files are not what their manifests recorded are forced;
- the last good outputs: Snakemake deletes a job's outputs when it starts it and again when it fails;
  they are kept as hard links and put back when the run fails or is interrupted, so bad luck in a job
  never costs the previous results (they stay stale, and the next run rebuilds them);
- signals: SIGINT, SIGTERM or SIGHUP make Snakemake stop gracefully (running jobs end or are cleaned
  up), what it prints as it stops goes to `INTERRUPTION_LOG`, not the terminal, and the call ends with
  an `INTERRUPTED` envelope; the next run resumes;
- a job that fails with a bib2graph error leaves `results/logs/<job>.error.json`, which becomes this
  call's error (code, file and line included).
"""

from __future__ import annotations

import ast
import fcntl
import io
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import Callable, Iterator

from .. import curation, registry
from ..errors import B2GError, DataError, RunInterrupted, UsageError, WorkspaceLockedError
from ..paths import CURATION_FILE, ERROR_DIR, snakefile
from .artifacts import artifact_warnings
from .dag import RERUN_TRIGGERS, drifted
from .preflight import check_present, check_spec, read_inputs
from .result import Result
from .workspace import Workspace

PHASES = registry.PHASES + ("all",)
# The verbs that advance the review, as the DAG targets they run up to, and the manifests they report.
VERB_TARGETS = {"seed": ("seed", ["results/seed/manifest.json"]),
                "chain": ("chain", ["results/chain/manifest.json"]),
                "filter": ("corpus", ["results/corpus/manifest.json"]),
                "build": ("networks", None),
                "export": ("exports", None)}
RUN_LOCK = ".snakemake/b2g-run.lock"
LAST_GOOD = ".snakemake/b2g/last-good"
_PARALLELISM_FLAGS = ("--cores", "-c", "--jobs", "-j", "--profile", "--workflow-profile", "--executor", "-e")


def snakemake_command(ws: Workspace, targets: list[str], extra: list[str]) -> list[str]:
    """The Snakemake command line for a run: the workspace's `profiles/default` when it has one
    (as Snakemake does at a workflow's root), else `--cores all` unless the caller chose parallelism."""
    # targets first: options such as --forcerun and --rerun-triggers take several values
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile()), "--directory", str(ws.root),
           *targets, "--rerun-incomplete"]
    if "--rerun-triggers" not in extra:
        cmd += ["--rerun-triggers", *RERUN_TRIGGERS]
    profile = ws.root / "profiles" / "default"
    chosen = any(arg.split("=")[0] in _PARALLELISM_FLAGS for arg in extra)
    if profile.is_dir() and "--workflow-profile" not in extra:
        cmd += ["--workflow-profile", str(profile)]
    elif not chosen:
        cmd += ["--cores", "all"]
    return cmd + extra


#: what Snakemake prints when it refuses its arguments or targets before any job runs
_REFUSED = re.compile(r"(: error: |Error parsing|MissingRuleException|unrecognized arguments)")
_SAID = re.compile(r"(error|Error|Exception)\b")


def _failure(returncode: int, tail: list[str], root: Path) -> B2GError:
    """Why Snakemake stopped when no job left an error of its own: the last thing it said, as USAGE_ERROR
    when it refused its arguments or targets (a usage slip, not a failed job), else WORKFLOW_FAILED."""
    lines = [line.strip() for line in tail if line.strip()]
    said = next((i for i in range(len(lines) - 1, -1, -1) if _SAID.search(lines[i])), None)
    reason = ""
    if said is not None:
        reason = lines[said] + (f" {lines[said + 1]}" if lines[said].endswith(":") and said + 1 < len(lines)
                                else "")
        reason = reason if len(reason) <= 400 else reason[:400] + "…"
    if said is not None and (returncode == 2 or _REFUSED.search(lines[said])):
        return UsageError(f"Snakemake refused the run's arguments: {reason} (`b2g run [PHASE] [SNAKEMAKE "
                          "OPTIONS]`; `snakemake --help` lists its options)", details={"snakemake": reason})
    return DataError(f"Snakemake stopped with exit status {returncode}" + (f": {reason}" if reason else "")
                     + f"; its messages are above (stderr) and in {root}/.snakemake/log/", code="WORKFLOW_FAILED",
                     details={"snakemake": reason} if reason else {})


def _job_error() -> B2GError | None:
    for path in sorted(ERROR_DIR.glob("*.error.json")):
        info = json.loads(path.read_text(encoding="utf-8"))
        err = B2GError(f"{info['job']}: {info['message']}", code=info["code"], subcode=info.get("subcode"),
                       details=info.get("details") or {})
        err.exit_code, err.retryable = info["exit_code"], info.get("retryable", False)
        return err
    return None


@contextmanager
def _run_lock(ws: Workspace) -> Iterator[int]:
    """One `b2g run` per workspace: an OS lock that dies with the last process holding it."""
    ws.path(".snakemake").mkdir(exist_ok=True)
    fd = os.open(ws.path(RUN_LOCK), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise WorkspaceLockedError(f"another `b2g run` is working in {ws.root}; wait for it to finish") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _clear_leftovers(ws: Workspace, base: list[str], warnings: list[str]) -> None:
    """What a killed run leaves: Snakemake's lock, half-written temporary files, a stale backup.
    Holding the run lock, we know no one is using them."""
    locks = ws.path(".snakemake/locks")
    if locks.is_dir() and any(locks.iterdir()):
        subprocess.call(base + ["--unlock"], stdout=sys.stderr.fileno(), stdin=subprocess.DEVNULL)
        warnings.append("cleared the lock a stopped run left behind; incomplete outputs are rebuilt")
    for tmp in ws.path("results").glob("**/.*.tmp"):
        tmp.unlink(missing_ok=True)
    shutil.rmtree(ws.path(LAST_GOOD), ignore_errors=True)
    for stale in ws.path(str(ERROR_DIR)).glob("*.error.json"):
        stale.unlink()


def _outputs(ws: Workspace, spec: dict) -> list[str]:
    """Every declared output that exists now, relative to the workspace."""
    return [p for job in registry.jobs(spec, ws.root) for p in registry.flat(job.outputs) if ws.path(p).is_file()]


def _link(source: Path, target: Path) -> None:
    """A hard link (free, and the old file survives an atomic replace), or a copy where links fail."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@contextmanager
def _last_good(ws: Workspace, spec: dict) -> Iterator[None]:
    """Keep every current output as a hard link; on an exception put back those Snakemake deleted and
    list them in the error's details (`restored`)."""
    backup = ws.path(LAST_GOOD)
    kept = _outputs(ws, spec)
    for relative in kept:
        _link(ws.path(relative), backup / relative)
    try:
        yield
    except BaseException as exc:
        restored = [relative for relative in kept if not ws.path(relative).exists()]
        for relative in restored:
            _link(backup / relative, ws.path(relative))
        if isinstance(exc, B2GError) and restored:
            exc.details = {**exc.details, "restored": restored}
        raise
    finally:
        shutil.rmtree(backup, ignore_errors=True)


INTERRUPTION_LOG = Path(".snakemake/b2g/interrupted.log")   # below the workspace, the run's directory


def _snakemake(cmd: list[str], env: dict[str, str], lock_fd: int,
               on_line: Callable[[str], None] | None = None) -> tuple[int, bool]:
    """Run Snakemake; SIGINT/SIGTERM/SIGHUP to us ask it to stop gracefully. (exit status, interrupted).

    Snakemake stays in our process group, so that whatever kills the group (a terminal's Ctrl-C, a
    scheduler's SIGKILL) reaches it and its jobs too. Its output (stdout and stderr, its jobs' too) passes
    through us as it comes, bytes unchanged (a progress bar's carriage returns included; on a terminal
    `FORCE_COLOR` keeps the jobs' bars live), to our stderr and, line by line, to `on_line` (the MCP
    adapter's progress notifications). Once we are interrupted it goes to `INTERRUPTION_LOG` instead:
    what Snakemake and its jobs say as they stop (a WorkflowError, a job's KeyboardInterrupt traceback)
    is no message for the user, who gets the INTERRUPTED envelope. A signal interrupts our read of that
    output and its handler runs before the read resumes, so the lines it provokes are already diverted. A
    second signal, or `STOP_GRACE` seconds without Snakemake ending, kills it and its jobs (it can hang in
    its own signal handler; a run that never ends keeps the workspace locked). Signal handlers can
    only be set from the main thread: an adapter running this in a worker thread stops the run by its
    own means."""
    interrupted: list[int] = []
    asked: list[float] = []      # when each signal came
    if sys.stderr.isatty():
        env = {**env, "FORCE_COLOR": env.get("FORCE_COLOR", "1")}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, pass_fds=(lock_fd,))

    wake_read, wake_write = os.pipe()

    def stop(signum, _frame):
        interrupted.append(signum)
        asked.append(time.monotonic())
        if len(interrupted) > 1:
            _kill_tree(proc)                    # a second signal: the user will not wait
        elif proc.poll() is None:
            proc.send_signal(signal.SIGTERM)   # Snakemake: start nothing new, let running jobs end

    main = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)   # SIGHUP: the terminal closed
    previous = {sig: signal.signal(sig, stop) for sig in signals} if main else {}
    if main:      # whichever thread the kernel hands a signal to, the select below wakes
        os.set_blocking(wake_write, False)
        previous_wakeup = signal.set_wakeup_fd(wake_write)
    held, pending = None, b""
    try:
        while chunk := _read(proc, asked, wake_read):
            if interrupted and held is None:
                INTERRUPTION_LOG.parent.mkdir(parents=True, exist_ok=True)
                held = INTERRUPTION_LOG.open("wb")
            if held is not None:
                held.write(chunk)
            else:
                _echo(chunk)
            if on_line is not None:
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    on_line(line.decode("utf-8", "replace").rstrip("\r"))
        returncode = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if main:
            signal.set_wakeup_fd(previous_wakeup)
        os.close(wake_read)
        os.close(wake_write)
        if held is not None:
            held.close()
    return returncode, bool(interrupted)


#: seconds Snakemake has to stop once asked before it and its jobs are killed: it can hang in its own
#: signal handler (seen while its scheduler ran the ILP solver), and a run that never ends holds the lock
STOP_GRACE = 120.0


def _read(proc: subprocess.Popen, asked: list[float], wake: int) -> bytes:
    """Snakemake's next output (b"" once it is done). Once it was asked to stop (`asked`: when; a signal
    wakes the select through the pipe `wake`, the signal module's wakeup fd, since a read or select a
    signal interrupts is resumed, not ended), it has `STOP_GRACE` seconds from then, after which it and its
    jobs are killed and its pipe ends."""
    fd = proc.stdout.fileno()
    while True:
        left = asked[0] + STOP_GRACE - time.monotonic() if asked else None
        if left is not None and left <= 0:
            _kill_tree(proc)
            return os.read(fd, 65536)
        ready = select.select([fd, wake], [], [], left)[0]
        if fd in ready:
            return os.read(fd, 65536)
        if wake in ready:
            os.read(wake, 64)


def _kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL to Snakemake and every process under it (its jobs): what a stopped run leaves is cleared
    and put back as after any interruption."""
    import psutil

    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        tree = []
    for process in [*tree]:
        try:
            process.kill()
        except psutil.Error:
            pass
    if proc.poll() is None:
        proc.kill()


def _echo(chunk: bytes) -> None:
    """Snakemake's bytes to our stderr as they are (its text when stderr is no byte stream, as in tests)."""
    stream = getattr(sys.stderr, "buffer", None)
    if stream is not None:
        stream.write(chunk)
        stream.flush()
    else:
        sys.stderr.write(chunk.decode("utf-8", "replace"))
        sys.stderr.flush()


def _option_values(args: list[str]) -> set[int]:
    """Positions in `args` of the values of Snakemake options (`--forcerun chain`, `--until corpus`): a
    phase name there is no phase to run up to. Snakemake's own parser says how many values each option
    takes; it is asked only when a phase name comes right after an option (importing it takes a second or
    two), so `corpus --cores 2` and `--cores 2 corpus` need no asking."""
    if not any(a in PHASES and b.startswith("-") and "=" not in b for b, a in zip(args, args[1:])):
        return set()
    return _values_by_parser(args)


# Arguments that would point Snakemake at another workspace or Snakefile, or change what it prints.
_RESERVED = ("-w", "--workspace", "--json", "--directory", "-d", "--snakefile", "-s")
_ELSEWHERE = ("--directory", "--snakefile")
_SHORT = re.compile(r"-([A-Za-z]*)")


def pointing_elsewhere(args: list[str]) -> list[str]:
    """The arguments of `args` b2g cannot pass to Snakemake: another directory (the run lock is this
    workspace's), another Snakefile, b2g's own flags; in every spelling Snakemake's parser reads as one
    (`_elsewhere`)."""
    return [a for a in args if _elsewhere(a)]


def _elsewhere(arg: str) -> bool:
    """Whether Snakemake would read `arg` as a directory or a Snakefile: a reserved spelling; any
    abbreviation of --directory or --snakefile (argparse takes a unique prefix: `--di=/x`; an ambiguous
    one Snakemake refuses anyway); a cluster of short flags holding -d or -s (`-nd/x`), asked of the parser
    itself, which reads `-Cd=1` as a config value; what it cannot read is refused."""
    name = arg.split("=", 1)[0]
    if name in _RESERVED or arg.startswith("-w"):
        return True
    if name.startswith("--"):
        return len(name) > 2 and any(full.startswith(name) for full in _ELSEWHERE)
    letters = _SHORT.match(arg).group(1) if arg.startswith("-") else ""
    if not {"d", "s"} & set(letters):
        return False
    import argparse

    from snakemake.cli import get_argument_parser   # imported only here: it takes a second

    parser = get_argument_parser()
    parser.exit_on_error = False
    try:
        known, _ = parser.parse_known_args([arg])
    except (argparse.ArgumentError, SystemExit, Exception):   # its own types raise CliException, ValueError
        return True
    return known.directory is not None or known.snakefile is not None


#: Snakemake options whose values its parser takes as they are (numbers, targets, flags): a run given only
#: these is not parsed twice (importing Snakemake's parser takes a second). Any other option is parsed
#: before the run, so that a value Snakemake's own parsers refuse is USAGE_ERROR, not its traceback.
_PLAIN_OPTIONS = frozenset({"--cores", "-c", "--jobs", "-j", "--dry-run", "-n", "--forcerun", "-R", "--until", "-U",
                            "--rerun-triggers", "--keep-going", "-k", "--printshellcmds", "-p", "--quiet", "-q",
                            "--executor", "-e", "--forceall", "-F", "--force",
                            "-f", "--retries", "--latency-wait", "--rerun-incomplete", "--nolock", "--touch", "-t",
                            "--verbose", "--omit-from", "-O", "--list-rules", "--summary", "--dag", "--rulegraph"})


def _snakemake_options(args: list[str], root: Path | None = None):
    """Snakemake's parse of `args` (its namespace), or its own reason for refusing a value there (a str:
    `--set-resources bogus`, `--set-scatter x=y`, `--resources mem_mb=abc`, a `--configfile` that is not
    there); None when only `_PLAIN_OPTIONS` are given, or when argparse refuses the line (Snakemake then
    stops with its usage message, exit 2: a USAGE_ERROR too, `_failure`)."""
    if {a.split("=")[0] for a in args if a.startswith("-")} <= _PLAIN_OPTIONS:
        return None
    import argparse

    from snakemake.cli import get_argument_parser   # imported only here: it takes a second

    parser = get_argument_parser()
    parser.exit_on_error = False
    try:
        with redirect_stderr(io.StringIO()):   # argparse prints its usage before SystemExit
            known, _ = parser.parse_known_args(args)
    except (argparse.ArgumentError, SystemExit):
        return None
    except Exception as err:                        # its parsers raise ValueError, WorkflowError
        reason = str(err).strip() or type(err).__name__
        return reason if "unpack" not in reason else "an entry is not of the form the option takes (RULE=N, RULE:RESOURCE=VALUE)"
    return _unusable(known, root) or known


def _unusable(known, root: Path | None) -> str | None:
    """What Snakemake reads only after parsing, and then stops on with its traceback: `--config` entries
    (its own parse_config: `a=b` is refused, a key needs two characters), a `--configfile` that is no file,
    a `--profile` or `--workflow-profile` path that is no folder (a bare --profile name is Snakemake's to
    look up). Paths count from here or from the workspace."""
    from snakemake.cli import parse_config

    def there(path, test) -> bool:
        return test(Path(path)) or (root is not None and test(root / path))
    try:
        parse_config(getattr(known, "config", None) or [])
    except Exception as err:       # noqa: BLE001 - ValueError, or its WorkflowError
        return f"--config: {str(err).strip() or type(err).__name__}"
    missing = [str(f) for f in (getattr(known, "configfile", None) or []) if not there(f, Path.is_file)]
    if missing:
        return f"--configfile {missing[0]} is no file"
    for option in ("profile", "workflow_profile"):
        value = getattr(known, option, None)
        for one in value if isinstance(value, (list, tuple)) else [value] if value else []:
            if "/" in str(one) and not there(one, Path.is_dir):
                return f"--{option.replace('_', '-')} {one} is no folder (a profile is a folder holding config.yaml)"
    return None


def _bad_thread_counts(known) -> list[str]:
    """The `--set-threads` values of `known` (`_snakemake_options`) that can only be text: Snakemake takes
    them and stops at its first job with a traceback ("Resource _cores 'abc' of type str …"). A number, or
    an expression it evaluates (`network=2*attempt`, `network=$NCPUS`), is its to judge."""
    if known is None or isinstance(known, str):
        return []
    return [f"{rule}={t.raw}" for rule, t in sorted(known.set_threads.items())
            if isinstance(t.raw, str) and _only_text(t.raw)]


class _AnyJob:
    """A job's `input` or `wildcards` for judging a resource expression before any job exists: every
    attribute or item is 1 (`input.size_mb`), and it holds no files."""

    def __getattr__(self, name: str) -> int:
        return 1

    def __getitem__(self, key) -> int:
        return 1

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0


def _bad_resources(known, args: list[str]) -> list[str]:
    """`--set-resources` and `--default-resources` values Snakemake would take and then stop on at its
    first job with a traceback (WORKFLOW_FAILED): a size or time it cannot read (`mem=abc`,
    `runtime=abc`), text where it needs a number (`mem_mb='2GB'`, an unset `$VARIABLE`). Each is evaluated
    by Snakemake's own code for attempt 1; an expression that fails only for want of a real job's input
    (`input.size_mb` beyond a number) is left to Snakemake, as is any text for a resource of its own
    (`slurm_partition=gpu`). `known` is `_snakemake_options(args)`. Each bad value as "RULE:RESOURCE" (RULE
    `*` for the defaults) and the reason."""
    from snakemake.exceptions import ResourceConversionError
    from snakemake_interface_common.exceptions import WorkflowError

    if known is None or isinstance(known, str):
        return []
    given = [(rule, name, value) for rule, resources in sorted((known.set_resources or {}).items())
             for name, value in resources.items()]
    if known.default_resources is not None and any(a.startswith("--default-r") for a in args):
        given += [("*", name, value) for name, value in known.default_resources.items()]
    bad = []
    for rule, name, value in given:
        try:
            value.evaluate(wildcards=_AnyJob(), input=_AnyJob(), attempt=1, threads=1, rulename=rule,
                           async_run=None)
        except ResourceConversionError as err:
            bad.append(f"{rule}:{name}: {err}")
        except WorkflowError as err:      # a human-readable size or time it cannot read; not a failed expression
            if not any(isinstance(a, Exception) for a in err.args):
                bad.append(f"{rule}:{name}: {' '.join(str(a) for a in err.args).strip()}")
        except Exception:                 # noqa: BLE001 - the expression needs a real job: Snakemake's to judge
            pass
    return bad


def _only_text(expression: str) -> bool:
    """Whether Snakemake reads a resource expression as text, never as a number: it keeps what fails to
    evaluate (a syntax error, a name it does not provide: `abc`) as the text it is, as it does a string."""
    if "$" in expression:            # an environment variable, expanded first
        return False
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return True
    return ((isinstance(tree, ast.Name) and tree.id != "attempt")
            or (isinstance(tree, ast.Constant) and isinstance(tree.value, str)))


def _strays(args: list[str]) -> list[str]:
    """The words of `args` that are neither a phase nor the value of a Snakemake option (`b2g run bogus`):
    Snakemake would stop on them with its whole usage text. Only a word that follows no option can be one;
    Snakemake's parser is asked then, as an option may take several values (`--forcerun network clusters`)."""
    maybe = [i for i, a in enumerate(args) if not a.startswith("-") and a not in PHASES
             and (i == 0 or not args[i - 1].startswith("-") or "=" in args[i - 1])]
    if not maybe:
        return []
    values = _values_by_parser(args)
    return [args[i] for i in maybe if i not in values]


def _values_by_parser(args: list[str]) -> set[int]:
    """Positions in `args` of the values of Snakemake options, as Snakemake's parser takes them."""
    from snakemake.cli import get_argument_parser

    actions = get_argument_parser()._option_string_actions
    values: set[int] = set()
    i = 0
    while i < len(args):
        action = actions.get(args[i]) if args[i].startswith("-") and "=" not in args[i] else None
        nargs = 0 if action is None else action.nargs
        taken = 0
        while (i + taken + 1 < len(args) and not args[i + taken + 1].startswith("-")
               and (nargs in ("*", "+") or taken < (1 if nargs in (None, "?") else nargs))):
            taken += 1
            values.add(i + taken)
        i += taken + 1
    return values


def run_workflow(ws: Workspace, args: list[str], refresh: bool = False, check_inputs: bool = True,
                 on_line: Callable[[str], None] | None = None) -> Result:
    """Run the workflow (or up to one phase) in the workspace with extra Snakemake arguments.

    `refresh` re-fetches from OpenAlex on purpose: the fetch phases run again and ignore the store.
    `check_inputs` False skips the input checks (a restored snapshot has no source files to check).
    `on_line` receives Snakemake's output lines (progress), see `_snakemake`.
    """
    values = _option_values(args)
    targets = [a for i, a in enumerate(args) if a in PHASES and i not in values]
    extra = [a for i, a in enumerate(args) if a not in PHASES or i in values]
    if len(targets) > 1:
        raise UsageError(f"name at most one phase to run up to, got {', '.join(targets)}")
    elsewhere = pointing_elsewhere(extra)
    if elsewhere:
        raise UsageError(f"{', '.join(elsewhere)} cannot be passed to `b2g run`: b2g chooses the workspace "
                         "(--workspace), the Snakefile and the output (--json)")
    known = _snakemake_options(args, ws.root)
    if isinstance(refused := known, str):
        raise UsageError(f"Snakemake refused the run's arguments: {refused} (`b2g run [PHASE] [SNAKEMAKE OPTIONS]`, "
                         "e.g. `--set-threads network=2`, `--set-resources network:mem_mb=8000`)",
                         details={"snakemake": refused})
    if bad := _bad_thread_counts(known):
        raise UsageError(f"--set-threads {bad[0]!r}: give each rule a whole number of threads, "
                         "`--set-threads network=2`", details={"value": bad[0]})
    if bad := _bad_resources(known, args):
        raise UsageError(f"--set-resources/--default-resources {bad[0]} (a number, or a size or time such as "
                         "`mem=8GB`, `runtime=2h`)", details={"value": bad[0].split(": ")[0]})
    strays = _strays(args)
    if strays:
        raise UsageError(f"{strays[0]!r} is no phase ({', '.join(PHASES)}) nor the value of a Snakemake option; "
                         "`b2g run [PHASE] [SNAKEMAKE OPTIONS]`, e.g. `b2g run corpus --cores 2`")
    spec = check_spec(ws)
    warnings = ws.warnings()
    with _run_lock(ws) as lock_fd:
        if not ws.path(CURATION_FILE).exists():
            curation.record(ws.path(CURATION_FILE), [])
        if check_inputs:
            check_present(ws, spec)
            warnings += read_inputs(ws, spec)
        _clear_leftovers(ws, snakemake_command(ws, [], []), warnings)
        files = registry.targets(spec, targets[0] if targets else "all")   # every output up to the phase
        forced = (["seed", "chain"] if refresh else []) + [d.manifest for d in drifted(ws.root, spec)
                                                            if d.manifest in files]   # a forced job joins the run
        cmd = snakemake_command(ws, files, extra + (["--forcerun", *forced] if forced else []))
        env = {**os.environ, "B2G_REFRESH": "1" if refresh else ""}
        previous = Path.cwd()
        os.chdir(ws.root)
        try:
            with _last_good(ws, spec):
                tail: deque[str] = deque(maxlen=40)

                def heard(line: str) -> None:
                    tail.append(line)
                    if on_line is not None:
                        on_line(line)
                returncode, interrupted = _snakemake(cmd, env, lock_fd, heard)
                if interrupted:
                    raise RunInterrupted("the run was interrupted; finished jobs are kept and the last good "
                                         "outputs of the others were put back: `b2g run` resumes (what "
                                         f"Snakemake said as it stopped: {INTERRUPTION_LOG})")
                if returncode != 0:
                    raise _job_error() or _failure(returncode, list(tail), ws.root)
        finally:
            os.chdir(previous)
    warnings += [w for w in artifact_warnings(ws, spec) if w not in warnings]
    return Result(data={"workspace": ws.describe(), "targets": targets or ["all"],
                        "snakemake_args": extra, "results": str(ws.path("results"))},
                  warnings=warnings)


def run_verb(ws: Workspace, verb: str, args: list[str], on_line: Callable[[str], None] | None = None) -> Result:
    """`b2g seed|chain|filter|build|export`: run up to that phase and report its counts."""
    target, manifests = VERB_TARGETS[verb]
    result = run_workflow(ws, [target] + [a for a in args if a not in PHASES], on_line=on_line)
    if manifests is None:
        manifests = sorted(str(p.relative_to(ws.root)) for p in ws.path("results/networks").glob("*/manifest.json"))
    result.data["counts"] = {str(Path(m).parent.relative_to("results")): json.loads(
        ws.path(m).read_text(encoding="utf-8"))["counts"] for m in manifests if ws.path(m).is_file()}
    return result
