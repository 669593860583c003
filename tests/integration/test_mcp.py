"""`b2g mcp` at parity with the CLI (issue 13, seed 001): the SDK's own client, a real server process.

One server per module serves a copy of the built demo. Reads: every read tool answers with the very
envelope `b2g VERB --json` prints on the same workspace, and together they change no byte. Writes: the
same sequence through the CLI on one copy and through MCP on another leaves the same curation file and
artifacts; what is volatile (decision times, Snakemake's benchmark timings, the manifests recording
them) is checked for what it must be, never normalised away.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bib2graph import curation
from bib2graph.atomic import sha256_file
from bib2graph.cli.commands import cli as click_root, walk
from bib2graph.service.verbs import VERBS

from .conftest import copy_workspace
from .helpers import b2g
from .mcp_client import USER, mcp_server

REPLAYED = re.compile(r"idempotency key '([^']+)': replayed the result recorded at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ); "
                      r"nothing was done again")
TOOLS = {"status", "validate", "plan", "seed", "chain", "filter", "build", "export", "run", "inspect", "search",
         "accept", "reject", "withdraw", "curate_dump", "curate_apply", "snapshot", "snapshot_list", "snapshot_diff",
         "snapshot_restore", "monitor", "schema", "networks", "network", "evidence", "queue", "prisma", "slices",
         "simulate"}


def digest(folder: Path) -> dict[str, str]:
    """SHA-256 of every file below `folder`."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_cli(ws: Path | None, *args: str) -> dict:
    where = ["--workspace", str(ws)] if ws is not None else []
    return b2g(*args, "--json", *where, env={"B2G_USER": USER}).envelope


@pytest.fixture(scope="module")
def ws(built_demo, tmp_path_factory) -> Path:
    return copy_workspace(built_demo, tmp_path_factory.mktemp("mcp") / "review")


@pytest.fixture(scope="module")
def session(ws):
    with mcp_server(ws) as served:
        yield served


def test_tools_are_the_verbs_with_schemas_from_their_options(session):
    tools = {tool.name: tool for tool in session.tools()}
    assert set(tools) == TOOLS
    for verb, command in walk(click_root):
        row = VERBS[verb]
        if not row.tool:
            continue
        tool = tools[verb.replace(" ", "_")]
        properties = tool.input_schema["properties"]
        for param in command.params:
            flags = [o[2:].replace("-", "_") for o in getattr(param, "opts", []) if o.startswith("--")]
            if param.name in ("json_flag", "workspace", "wait") or not param.expose_value:
                assert not set(flags) & set(properties), (verb, param.name)
            else:
                assert (flags[0] if flags and param.param_type_name == "option" else param.name) in properties
        assert tool.annotations.read_only_hint is row.reads
        assert ("idempotency_key" in properties) is row.keyed
    assert tools["reject"].input_schema["properties"]["ids"]["maxItems"] == curation.MAX_IDS_PER_CALL
    assert tools["search"].input_schema["required"] == ["text"]


def _reads(session) -> list[tuple[str, dict, list[str]]]:
    """(tool, arguments, CLI arguments) of one call of every read tool, on works and edges of the demo."""
    work = session.call("queue", {"limit": 1})["data"]["works"][0]["work_id"]
    edge = session.call("network", {"kind": "citation", "edges": 1})["data"]["edges"][0]
    return [("status", {}, ["status"]), ("validate", {}, ["validate"]), ("plan", {}, ["plan"]),
            ("prisma", {}, ["prisma"]), ("networks", {}, ["networks"]),
            ("network", {"kind": "citation", "edges": 40, "offset": 5}, ["network", "citation", "--edges", "40",
                                                                         "--offset", "5"]),
            ("network", {"kind": "nope"}, ["network", "nope"]),
            ("slices", {"kind": "keywords"}, ["slices", "keywords"]),
            ("queue", {"limit": 5}, ["queue", "-n", "5"]),
            ("search", {"text": ["citation", "network"], "limit": 5}, ["search", "citation", "network", "-n", "5"]),
            ("inspect", {"work_id": work}, ["inspect", work]),
            ("inspect", {"work_id": "W1"}, ["inspect", "W1"]),
            ("evidence", {"kind": "citation", "source": edge["source"], "target": edge["target"]},
             ["evidence", "citation", edge["source"], edge["target"]]),
            ("snapshot_list", {}, ["snapshot", "list"]),
            ("snapshot_diff", {"a": "a-000000000000", "b": "b-000000000000"},
             ["snapshot", "diff", "a-000000000000", "b-000000000000"]),
            ("schema", {}, ["schema"])]


@pytest.mark.long
def test_every_read_tool_answers_as_the_cli_and_changes_no_byte(session, ws):
    before = digest(ws)
    calls = _reads(session)
    assert {name for name, _, _ in calls} == {t.name for t in session.tools() if t.annotations.read_only_hint}
    for name, arguments, argv in calls:
        assert session.call(name, arguments) == run_cli(None if name == "schema" else ws, *argv), name
    assert digest(ws) == before


def test_resources_are_the_artifacts(session, ws):
    uris = {r.uri for r in session.resources()}
    assert {"b2g://prisma", "b2g://report", "b2g://networks/citation/summary",
            "b2g://networks/citation/clusters"} <= uris
    assert json.loads(session.read("b2g://prisma").text) == run_cli(ws, "prisma")["data"]
    assert session.read("b2g://report").text == (ws / "results/report/index.html").read_text(encoding="utf-8")
    summary = json.loads(session.read("b2g://networks/citation/summary").text)
    folder = ws / "results/networks/citation"   # metrics.json with stability.json's fields beside
    stability = json.loads((folder / "stability/stability.json").read_text(encoding="utf-8"))
    assert summary == {**json.loads((folder / "metrics.json").read_text(encoding="utf-8")),
                       **{k: v for k, v in stability.items() if k != "kind"}}
    assert summary["reproducibility"] == stability["reproducibility"]
    clusters = json.loads(session.read("b2g://networks/citation/clusters").text)["clusters"]
    assert clusters == run_cli(ws, "network", "citation", "--edges", "0")["data"]["clusters"]


def test_oversized_or_malformed_arguments_are_typed_errors(session, ws):
    before = digest(ws)
    many = [f"W{i}" for i in range(curation.MAX_IDS_PER_CALL + 1)]
    too_many, from_cli = session.call("reject", {"ids": many, "reason": "r"}), run_cli(ws, "reject", *many, "-r", "r")
    assert too_many == from_cli and too_many["error"]["code"] == "TOO_MANY_IDS"
    huge = session.call("reject", {"ids": ["W1"], "reason": "x" * (1 << 20)})
    assert huge["error"]["code"] == "USAGE_ERROR" and huge["error"]["details"]["limit"] == 1 << 20
    for name, arguments, where in [("inspect", {"work_id": "W" * 5000}, "work_id"), ("status", {"bogus": 1}, "(arguments)"),
                                   ("queue", {"limit": "ten"}, "limit"), ("monitor", {"timeout": 0}, "timeout"),
                                   ("accept", {"ids": []}, "ids"), ("search", {}, "(arguments)")]:
        env = session.call(name, arguments)
        assert env["exit_code"] == 1 and env["error"]["code"] == "USAGE_ERROR", name
        assert env["error"]["retryable"] is False and where in [p["where"] for p in env["error"]["details"]["problems"]]
    assert session.call("run", {"args": ["--directory", "/tmp"]})["error"]["code"] == "USAGE_ERROR"
    assert session.call("no_such_tool")["error"]["code"] == "NOT_FOUND"
    assert session.call("status")["ok"] is True          # the server lives on
    assert digest(ws) == before


def _same(cli_env: dict, cli_root: Path, mcp_env: dict, mcp_root: Path) -> None:
    """Equal envelopes once each side's workspace path is named alike; replay notes hold their own time."""
    sides = []
    for env, root in ((cli_env, cli_root), (mcp_env, mcp_root)):
        env = json.loads(json.dumps(env).replace(str(root), "<ws>"))
        notes = [REPLAYED.fullmatch(w) for w in env["warnings"] if w.startswith("idempotency key")]
        assert all(notes), env["warnings"]
        env["warnings"] = [w for w in env["warnings"] if not w.startswith("idempotency key")]
        recorded = ((env["error"] or {}).get("details") or {}).pop("recorded_at", None)   # a conflict's
        assert recorded is None or _moment(recorded) <= datetime.now(timezone.utc)
        sides.append((env, [n.group(1) for n in notes]))
    assert sides[0] == sides[1]


def _writes(ws: Path, works: list[str]) -> list[tuple[str, dict, list[str]]]:
    """The write sequence, from a built demo: runs that have nothing to do, a snapshot, decisions."""
    q = works
    return [("run", {"idempotency_key": "run-1"}, ["run", "--idempotency-key", "run-1"]),
            ("run", {"idempotency_key": "run-1"}, ["run", "--idempotency-key", "run-1"]),
            *[(verb, {}, [verb]) for verb in ("filter", "build", "export")],
            ("snapshot", {"name": "base", "idempotency_key": "snap-1"}, ["snapshot", "--name", "base",
                                                                         "--idempotency-key", "snap-1"]),
            ("snapshot_restore", {"snapshot_id": "base-000000000000"}, ["snapshot", "restore", "base-000000000000"]),
            ("monitor", {}, ["monitor"]),
            ("curate_dump", {}, ["curate", "dump"]),
            ("reject", {"ids": q[:2], "reason": "off topic", "idempotency_key": "rej-1"},
             ["reject", *q[:2], "--reason", "off topic", "--idempotency-key", "rej-1"]),
            ("reject", {"ids": q[:2], "reason": "off topic", "idempotency_key": "rej-1"},
             ["reject", *q[:2], "--reason", "off topic", "--idempotency-key", "rej-1"]),
            ("reject", {"ids": q[:2], "reason": "another reason", "idempotency_key": "rej-1"},
             ["reject", *q[:2], "--reason", "another reason", "--idempotency-key", "rej-1"]),
            ("accept", {"ids": [q[2]]}, ["accept", q[2]]),
            ("withdraw", {"ids": [q[1]]}, ["withdraw", q[1]]),
            ("curate_apply", {"file": str(ws / "review.csv"), "idempotency_key": "apply-1"},
             ["curate", "apply", "{ws}/review.csv", "--idempotency-key", "apply-1"]),
            ("queue", {"limit": 5}, ["queue", "-n", "5"]),          # ranked by the model now
            ("queue", {"limit": 5, "before": q[2]}, ["queue", "-n", "5", "--before", q[2]]),
            ("simulate", {"labels": "bundled:synergy/Sep_2021/labels.csv", "seed": [3], "priors": 1},
             ["simulate", "--labels", "bundled:synergy/Sep_2021/labels.csv", "--seed", "3", "--priors", "1"])]


def _sequence(call, root: Path, steps: list) -> list[tuple[str, dict, int]]:
    """(tool, envelope, Snakemake runs so far) for each step made by `call` in workspace `root`."""
    logs = root / ".snakemake/log"
    before = len(list(logs.iterdir()))
    return [(name, call(arguments, argv), len(list(logs.iterdir())) - before) for name, arguments, argv in steps]


@pytest.mark.long
def test_writes_leave_the_same_curation_and_artifacts(session, ws, built_demo, tmp_path):
    other = copy_workspace(built_demo, tmp_path / "review")
    start = datetime.now(timezone.utc).replace(microsecond=0)
    works = [w["work_id"] for w in run_cli(other, "queue", "-n", "4")["data"]["works"]]
    for root in (ws, other):
        (root / "review.csv").write_text(f"work_id,decision,reason\n{works[3]},reject,duplicate\n", encoding="utf-8")
    steps = _writes(ws, works)
    with ThreadPoolExecutor(1) as pool:      # the two sides are independent: the CLI's runs alongside
        by_cli = pool.submit(_sequence, lambda _a, argv: run_cli(other, *[a.replace("{ws}", str(other)) for a in argv]),
                             other, steps)
        by_mcp = _sequence(lambda arguments, _argv: session.call(arguments[0], arguments[1]), ws,
                           [(name, (name, arguments), argv) for name, arguments, argv in steps])
        by_cli = by_cli.result()
    for (name, cli_env, cli_runs), (_, mcp_env, mcp_runs) in zip(by_cli, by_mcp):
        _same(cli_env, other, mcp_env, ws)
        if name == "run":   # one Snakemake run per workspace: the repeat with the key replays
            assert cli_runs == mcp_runs == 1
    answers = [(name, env) for name, env, _ in by_mcp]
    first, repeat, conflict = [env for name, env in answers if name == "reject"]
    assert repeat["data"] == first["data"] and REPLAYED.fullmatch(repeat["warnings"][-1])
    assert conflict["error"]["code"] == "IDEMPOTENCY_CONFLICT" and conflict["exit_code"] == 1
    assert conflict["error"]["retryable"] is False
    assert answers[0][1]["data"] == answers[1][1]["data"] and REPLAYED.fullmatch(answers[1][1]["warnings"][-1])
    assert [name for name, env in answers if not env["ok"]] == ["snapshot_restore", "monitor", "reject"]

    with ThreadPoolExecutor(1) as pool:      # the decisions reach the corpus
        again = pool.submit(run_cli, other, "filter")
        rebuilt = session.call("filter", {}, progress=True)
        _same(again.result(), other, rebuilt, ws)
    steps = [done for done, _total, _message in session.progress]
    assert steps and steps == sorted(steps) and session.progress[-1][0] == session.progress[-1][1]
    _check_curation(ws, other, start)
    _check_artifacts(ws, other)


def _moment(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def _check_curation(ws: Path, other: Path, start: datetime) -> None:
    """Same decisions, reasons and people; each time well-formed and within the test."""
    end = datetime.now(timezone.utc)
    sides = [curation.read(root / "config/curation.tsv") for root in (ws, other)]
    assert [{w: (d.decision, d.reason, d.decided_by) for w, d in side.items()} for side in sides][0] == \
        {w: (d.decision, d.reason, d.decided_by) for w, d in sides[1].items()}
    assert {d.decided_by for d in sides[0].values() if d.decided_at} == {USER}
    for side in sides:
        for d in side.values():
            if d.decided_at:
                assert start <= _moment(d.decided_at) <= end


def _check_artifacts(ws: Path, other: Path) -> None:
    """Every file under results/ byte-identical, but for what records time (checked here for its form)."""
    a, b = digest(ws / "results"), digest(other / "results")
    assert set(a) == set(b)
    differing = {path for path in a if a[path] != b[path]}
    volatile = {p for p in differing if p.startswith(("benchmarks/", "logs/")) or p == "corpus/manifest.json"
                or re.fullmatch(r"snapshots/[^/]+/manifest\.json", p)}
    assert differing == volatile, differing - volatile
    for path in volatile:
        if path.startswith("snapshots/"):
            manifests = [json.loads((root / "results" / path).read_text()) for root in (ws, other)]
            times = [m.pop("sealed_at") for m in manifests]
            assert manifests[0] == manifests[1] and all(_moment(t) <= datetime.now(timezone.utc) for t in times)
        elif path.startswith("logs/"):      # the closing line records the job's time and peak memory
            logs = [(root / "results" / path).read_text().splitlines() for root in (ws, other)]
            timed = re.compile(r"INFO bib2graph: \S+ done in [0-9.]+ s, peak memory [0-9]+ MB: .*")
            assert all(timed.fullmatch(log[-1]) for log in logs), [log[-1] for log in logs]
            assert [log[:-1] for log in logs] == [logs[1][:-1]] * 2
            assert [log[-1].split(": ", 2)[2] for log in logs][0] == logs[1][-1].split(": ", 2)[2]
        elif path.startswith("benchmarks/"):
            tables = [(root / "results" / path).read_text().splitlines() for root in (ws, other)]
            assert tables[0][0] == tables[1][0] and len(tables[0]) == len(tables[1])
            for row in tables[0][1:] + tables[1][1:]:
                assert all(re.fullmatch(r"[0-9.:NA-]+|-", cell) for cell in row.split("\t")), row
        else:
            manifests = [json.loads((root / "results" / path).read_text()) for root in (ws, other)]
            for root, manifest in zip((ws, other), manifests):
                assert manifest["inputs"]["config/curation.tsv"] == sha256_file(root / "config/curation.tsv")
            strip = [{k: v for k, v in m.items() if k not in ("digest", "inputs")} for m in manifests]
            assert strip[0] == strip[1]
            inputs = [{k: v for k, v in m["inputs"].items() if k != "config/curation.tsv"} for m in manifests]
            assert inputs[0] == inputs[1]


@pytest.mark.long
def test_stdout_carries_only_the_protocol(demo):
    """A raw client: whatever the tools run (Snakemake included), every line on stdout is JSON-RPC. (The
    phase tools the parity test leaves out, seed and chain, are called here.)"""
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "raw", "version": "0"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "seed", "arguments": {}}},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "chain", "arguments": {}}}]
    proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "mcp", "--workspace", str(demo)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    proc.stdin.flush()
    replies = []
    while not any(r.get("id") == 3 for r in replies):      # the last answer, then stdin closes
        replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    replies += [json.loads(line) for line in proc.stdout.read().splitlines()]
    assert proc.wait(timeout=60) == 0
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    by_id = {r["id"]: r["result"] for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3}
    assert [by_id[i]["structuredContent"]["command"] for i in (2, 3)] == ["seed", "chain"]
    assert by_id[2]["structuredContent"]["ok"] is by_id[3]["structuredContent"]["ok"] is True


def test_a_line_that_is_no_message_is_answered_not_dropped(tmp_path):
    """The SDK dropped such lines and the client waited forever; an agent sends one by accident (Python's
    json.dumps writes a lone surrogate as an escape that Python reads and the SDK's parser refuses)."""
    import select

    assert b2g("init", str(tmp_path / "ws")).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "mcp", "--workspace", str(tmp_path / "ws")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ask(line: str) -> dict:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        assert select.select([proc.stdout], [], [], 120)[0], f"no answer to {line[:60]!r}"   # it hung
        return json.loads(proc.stdout.readline())

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        assert "result" in ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        cases = [("{oops", None, -32700), ("[]", None, -32600), ("[" * 100_000, None, -32700),
                 (json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                              "params": {"name": "search", "arguments": {"text": "\ud800"}}}), 7, -32600),
                 ('{"jsonrpc": "1.0", "id": "a", "method": "ping"}', "a", -32600),
                 ('{"jsonrpc": "2.0", "id": 4}', 4, -32600)]
        cases += [(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method}), None, -32600)  # read as a
                  for ident in ({"a": 1}, [1], 1.5, True, None) for method in ("ping", "tools/list")]  # notification
        for line, ident, code in cases:
            answer = ask(line)
            assert (answer["id"], answer["error"]["code"]) == (ident, code), (line[:60], answer)
        assert "surrogate" in ask(cases[3][0])["error"]["message"]
        assert ask(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})) == {"jsonrpc": "2.0", "id": 9,
                                                                                  "result": {}}
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
