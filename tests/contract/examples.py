"""Golden examples of the contract (seed 004): the real `--json` output of every verb on the built demo.

One scenario (`STEPS`, run in order on one copy of a built demo workspace) makes every example in
docs/contract/examples/: `scripts/regenerate_examples.py` writes them, tests/contract/test_examples.py
compares the live output with them. Both run the verbs in this process (`bib2graph.cli.main`, stdout
captured) except `gui`, which serves until stopped and so runs as its own process.

Only what cannot repeat is replaced by a placeholder, the same way on both sides:
- the workspace folder and the scratch folder holding it (`<WORKSPACE>`, `<SCRATCH>`);
- clock values: ISO 8601 times and their colon-free file-name form (`<TIME>`), today's date (`<DATE>`);
- VOLATILE below: values that differ between two runs by design, each with its reason.
Everything else, keys and values, must match byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "contract" / "examples"

#: (verb, key) -> (why the value differs between two runs of the same scenario, the regular expression of
#: its parts that do, None for all of it). Those parts become `<VOLATILE>`.
VOLATILE: dict[tuple[str, str], tuple[str, str | None]] = {
    ("gui", "pid"): ("the process ID of the server, given by the operating system", None),
    ("gui", "port"): ("a free port chosen by the operating system (`--port 0`)", None),
    ("gui", "url"): ("its port (above) and its one-time token, a fresh secret on every start by design",
                     r"(?<=:)\d+(?=/)|(?<=token=)[^&#]+"),
}

#: verbs with no example, and why: they print no envelope
NO_ENVELOPE = {"mcp": "it serves the MCP protocol on stdout (JSON-RPC), never an envelope; tests/integration/test_mcp.py"}

# UTC times as the CLI writes them (2026-12-03T19:55:51Z) and in file names (2026-12-03T195551Z).
_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):?(\d{2}):?(\d{2})(?:\.\d+)?(?:Z|[+-]00:?00)?")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b(?!T)")
# A sealed snapshot's ID ends in the digest of its files' hashes, and Parquet files carry the versions of the
# pandas and pyarrow that wrote them: a patch release of either changes the digest, not the contract.
_SNAPSHOT_ID = re.compile(r"\b((?:golden|again|stale)-)[0-9a-f]{12}\b")

# A work of the demo (a seed), an edge of its coupling network and a term of its titles.
WORK = "W2098430271"
EDGE = ("coupling", "W2098430271", "W2126691904")
PENDING = ("W1924717691", "W1926193477")


@dataclass(frozen=True)
class Step:
    """One call: `name` is the example's file (under EXAMPLES, without .json); `argv` after `b2g`, with
    `{ws}` and `{scratch}` filled in; `before` prepares the workspace (it gets the Context)."""
    name: str
    argv: tuple[str, ...]
    before: Callable[["Context"], Any] | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Context:
    ws: Path
    scratch: Path
    openalex_url: str = ""   # the loopback OpenAlex test server, for monitor
    held: list = field(default_factory=list)
    snapshots: dict[str, str] = field(default_factory=dict)   # name -> ID of the snapshots made so far


def _next_second(ctx: Context) -> None:
    """Wait for the clock to pass the second the last snapshot was sealed in: snapshots are listed by
    `sealed_at` (to the second), then ID, so two sealed in one second would list in the other order."""
    import time

    sealed = max(p.stat().st_mtime for p in (ctx.ws / "results/snapshots").glob("*/manifest.json"))
    while int(time.time()) <= int(sealed):
        time.sleep(0.05)


def _curation_csv(ctx: Context) -> None:
    (ctx.scratch / "reviewed.csv").write_text(
        f"work_id,decision,reason\n{PENDING[0]},accept,\n{PENDING[1]},reject,off topic\n", encoding="utf-8")


def _hold_curation_lock(ctx: Context) -> None:
    from bib2graph.curation import lock_for

    lock = lock_for(ctx.ws / "config/curation.tsv")
    lock.acquire()
    ctx.held.append(lock)


def _release(ctx: Context) -> None:
    while ctx.held:
        ctx.held.pop().release()


def _source_openalex(ctx: Context) -> None:
    """The demo's spec with an OpenAlex source: what `monitor` asks about (the loopback server)."""
    import yaml

    path = ctx.ws / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["source"] = {"kind": "openalex"}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")


def _citation_only(ctx: Context) -> None:
    """Keep the citation network only: the snapshot restored below rebuilds one network, not six."""
    import yaml

    path = ctx.ws / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["networks"] = {"citation": spec["networks"]["citation"]}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")


def _time_on(ctx: Context) -> None:
    """`time:` on, the citation network sliced: `build` then makes the trends and slices `slices` reads."""
    import yaml

    path = ctx.ws / "config/research.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec["time"] = {"enabled": True, "networks": ["citation"], "slice_years": 5}
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")


def _empty_folder(ctx: Context) -> None:
    (ctx.scratch / "empty").mkdir(exist_ok=True)


WS = ("--workspace", "{ws}")
STEPS: tuple[Step, ...] = (
    Step("schema", ("schema",)),
    Step("status", ("status", *WS)),
    Step("validate", ("validate", *WS)),
    Step("plan", ("plan", *WS)),
    Step("networks", ("networks", *WS)),
    Step("network", ("network", "citation", "--edges", "5", *WS)),
    Step("errors/slices-NOT_SLICED", ("slices", "keywords", *WS)),
    Step("evidence", ("evidence", *EDGE, *WS)),
    Step("inspect", ("inspect", WORK, *WS)),
    Step("search", ("search", "object recognition", "--limit", "3", *WS)),
    Step("queue", ("queue", "--limit", "2", *WS)),
    Step("simulate", ("simulate", "--labels", "bundled:synergy/Sep_2021/labels.csv", "--seed", "0", "--seed", "1",
                      "--out", "{scratch}/simulation.parquet", *WS)),
    Step("errors/simulate-USAGE_ERROR", ("simulate", *WS)),
    Step("prisma", ("prisma", *WS)),
    Step("curate-dump", ("curate", "dump", "--out", "{scratch}/dump.csv", *WS)),
    Step("seed", ("seed", "--cores", "1", *WS), before=_citation_only),
    Step("chain", ("chain", "--cores", "1", *WS)),
    Step("filter", ("filter", "--cores", "1", *WS)),
    Step("build", ("build", "--cores", "1", *WS), before=_time_on),
    Step("slices", ("slices", "citation", *WS)),
    Step("export", ("export", "--cores", "1", *WS)),
    Step("run", ("run", "--cores", "1", *WS)),
    Step("snapshot", ("snapshot", "--name", "golden", *WS)),
    Step("snapshot-again", ("snapshot", "--name", "again", *WS), before=_next_second),
    Step("snapshot-list", ("snapshot", "list", *WS)),
    Step("errors/inspect-UNKNOWN_ID", ("inspect", "W1", *WS)),
    Step("errors/network-UNKNOWN_NETWORK", ("network", "nosuchkind", *WS)),
    Step("errors/reject-USAGE_ERROR", ("reject", PENDING[0], *WS)),
    Step("errors/status-USAGE_ERROR", ("status", "--nosuchflag", *WS)),
    Step("errors/status-WORKSPACE_NOT_FOUND", ("status", "--workspace", "{scratch}/empty"), before=_empty_folder),
    Step("errors/monitor-SOURCE_UNSUPPORTED", ("monitor", *WS)),
    Step("errors/accept-WORKSPACE_LOCKED", ("accept", WORK, "--wait", "0", *WS), before=_hold_curation_lock),
    Step("accept", ("accept", WORK, "--reason", "core paper", "--by", "golden", *WS), before=_release),
    Step("reject", ("reject", PENDING[0], "--reason", "off topic", "--by", "golden", *WS)),
    Step("queue-ranked", ("queue", "--limit", "2", *WS)),
    Step("queue-before", ("queue", "--limit", "2", "--before", PENDING[0], *WS)),
    Step("withdraw", ("withdraw", WORK, PENDING[0], *WS)),
    Step("curate-apply", ("curate", "apply", "{scratch}/reviewed.csv", "--by", "golden", *WS), before=_curation_csv),
    Step("errors/snapshot-RESULTS_STALE", ("snapshot", "--name", "stale", *WS)),
    Step("snapshot-diff", ("snapshot", "diff", "{golden}", "{again}", *WS)),
    Step("snapshot-restore", ("snapshot", "restore", "{golden}", "--into", "{scratch}/restored", *WS)),
    Step("init", ("init", "{scratch}/fresh")),
    Step("monitor", ("monitor", "--timeout", "60", *WS), before=_source_openalex),
    Step("errors/monitor-UPSTREAM_ERROR", ("monitor", "--timeout", "60", *WS),   # nothing listens on port 9
         env={"B2G_OPENALEX_URL": "http://127.0.0.1:9", "B2G_OPENALEX_BACKOFF": "0.01", "B2G_OPENALEX_RATE": "0"}),
    Step("gui", ("gui", "--no-browser", *WS)),
)


def example_path(name: str) -> Path:
    return EXAMPLES / f"{name}.json"


def run_scenario(ws: Path, scratch: Path, openalex_url: str) -> Iterator[tuple[Step, dict, str]]:
    """Run STEPS in order on the built workspace `ws` (changed as they go); yield each step with its
    envelope and that envelope normalised, as the text an example file holds."""
    ctx = Context(ws, scratch, openalex_url)
    start = datetime.now(timezone.utc)
    try:
        for step in STEPS:
            if step.before:
                step.before(ctx)
            argv = [a.format(ws=ws, scratch=scratch, **ctx.snapshots) for a in step.argv]
            raw = _gui(argv) if step.argv[0] == "gui" else _call(argv, {"B2G_OPENALEX_URL": openalex_url,
                                                                      "B2G_USER": "golden", **step.env})
            env = json.loads(raw)
            if env["command"] == "snapshot" and env["ok"]:
                ctx.snapshots[env["data"]["id"].rsplit("-", 1)[0]] = env["data"]["id"]
            yield step, env, render(normalise(env, ws, scratch, (start, datetime.now(timezone.utc))))
    finally:
        _release(ctx)


def _call(argv: list[str], env: dict[str, str]) -> str:
    """`b2g ARGV --json` in this process: its one line of stdout."""
    from bib2graph.cli import main

    out = io.StringIO()
    saved = {k: v for k, v in os.environ.items() if k.startswith("B2G_")}
    for key in saved:
        del os.environ[key]
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out):
            main([*argv, "--json"])
    finally:
        for key in env:
            os.environ.pop(key, None)
        os.environ.update(saved)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, f"b2g {' '.join(argv)}: expected one line on stdout, got {out.getvalue()[:500]!r}"
    return lines[0]


def _gui(argv: list[str]) -> str:
    """`b2g gui --json` as its own process: the envelope it prints once listening, then SIGTERM."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    proc = subprocess.Popen([sys.executable, "-m", "bib2graph", *argv, "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        line = proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 0, proc.returncode
    return line


def normalise(value: Any, ws: Path, scratch: Path, clock: tuple[datetime, datetime],
              verb: str | None = None) -> Any:
    """The envelope with the workspace and scratch paths, the clock values read between `clock`'s two
    times (data dates, such as a record's `updated_date`, are kept) and VOLATILE values replaced."""
    if verb is None and isinstance(value, dict):
        verb = value.get("command")
    if isinstance(value, dict):
        return {k: _volatile(verb, k, v) if (verb, k) in VOLATILE else normalise(v, ws, scratch, clock, verb)
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, ws, scratch, clock, verb) for v in value]
    if isinstance(value, str):
        value = value.replace(str(ws), "<WORKSPACE>").replace(str(scratch), "<SCRATCH>")
        value = _SNAPSHOT_ID.sub(r"\1<DIGEST>", value)
        value = _TIME.sub(lambda m: "<TIME>" if _within(m, clock) else m[0], value)
        return _DATE.sub(lambda m: "<DATE>" if _today(m[0], clock) else m[0], value)
    return value


def _within(match: re.Match, clock: tuple[datetime, datetime]) -> bool:
    """A time of this run: between the clock's start and end, to the second (the CLI drops fractions)."""
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    at = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    return clock[0].replace(microsecond=0) <= at <= clock[1]


def _today(text: str, clock: tuple[datetime, datetime]) -> bool:
    try:
        return clock[0].date() <= date.fromisoformat(text) <= clock[1].date()
    except ValueError:
        return False


def _volatile(verb: str, key: str, value: Any) -> Any:
    pattern = VOLATILE[(verb, key)][1]
    return "<VOLATILE>" if pattern is None else re.sub(pattern, "<VOLATILE>", value)


def render(env: dict) -> str:
    """An example's text: the envelope indented, keys sorted (the CLI sorts them too), one final newline."""
    return json.dumps(env, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def differences(expected: str, live: str, name: str) -> str:
    """A unified diff from an example to the live output ("" when they agree byte for byte)."""
    import difflib

    return "".join(difflib.unified_diff(expected.splitlines(keepends=True), live.splitlines(keepends=True),
                                        f"docs/contract/examples/{name}.json", "live output"))
