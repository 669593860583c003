"""Issue-5 contract properties: introspection matches the command tree, read-only verbs write
nothing, output is byte-stable, and concurrent curation loses no decision."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from bib2graph import curation
from bib2graph.cli.commands import cli, walk
from bib2graph.paths import contract_dir

from ..integration.helpers import b2g, tree_state

VERBS = sorted(name for name, _ in walk(cli))
COMMANDS = dict(walk(cli))


@pytest.fixture
def ws(tmp_path) -> Path:
    assert b2g("init", str(tmp_path / "ws")).returncode == 0
    return tmp_path / "ws"


@pytest.mark.long
def test_schema_lists_every_verb_and_option_that_help_shows():
    env = b2g("schema", "--json").envelope
    verbs = env["data"]["verbs"]
    assert sorted(verbs) == VERBS
    for name in VERBS:
        command = COMMANDS[name]
        shown = {opt for p in command.params if isinstance(p, click.Option) and not p.hidden for opt in p.opts}
        listed = {flag for p in verbs[name]["params"] if p["kind"] == "option" for flag in p["flags"]}
        assert shown <= listed, name
        help_text = b2g(*name.split(), "--help").stdout
        for flag in shown:
            assert flag in help_text, (name, flag)
        assert (contract_dir() / f"{name.replace(' ', '-')}.schema.json").is_file()
    assert [row["exit"] for row in env["data"]["exit_codes"]] == [0, 1, 2, 3, 4, 5, 70]


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_help(verb):
    call = b2g(*verb.split(), "--help")
    assert call.returncode == 0 and call.stdout.startswith("Usage: b2g " + verb)


@pytest.mark.long
def test_status_is_byte_identical_and_read_only(ws):
    before = tree_state(ws)
    first = b2g("status", "--json", "--workspace", str(ws))
    second = b2g("status", "--json", "--workspace", str(ws))
    assert first.returncode == 0 and first.stdout == second.stdout
    assert first.envelope["data"]["phases"]["seed"] == "missing"
    assert tree_state(ws) == before and not (ws / ".snakemake").exists()


@pytest.mark.parametrize("args", [["validate"], ["plan"], ["inspect", "W1"]])
def test_read_only_verbs_touch_nothing(ws, args):
    before = tree_state(ws)
    call = b2g(*args, "--json", "--workspace", str(ws))
    call.envelope  # validates against the contract
    assert tree_state(ws) == before


def test_bad_curation_file_fails_validate_with_every_problem(ws):
    (ws / "config/curation.tsv").write_text(curation.header() + "W1\tmaybe\t\t\t\n", encoding="utf-8")
    call = b2g("validate", "--json", "--workspace", str(ws))
    assert call.returncode == 2
    problems = call.envelope["error"]["details"]["problems"]
    assert [p["path"] for p in problems] == ["config/curation.tsv"]


_TOGGLE = """
import json, sys
from bib2graph.cli import main
ws, who, ids, rounds = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
calls = []
for n in range(rounds):
    work_id = ids[n % len(ids)]
    decision = "accept" if (n // len(ids)) % 2 == 0 else "reject"
    by = f"{who}{n}"
    code = main([decision, work_id, "--reason", "r", "--by", by, "--wait", "60", "--workspace", ws])
    assert code == 0, code
    calls.append((work_id, decision, by))
print(json.dumps(calls))
"""


def _toggle(ws: Path, who: str, ids: list[str], rounds: int) -> subprocess.Popen:
    """A process making `rounds` CLI calls (b2g's own entry point, in a loop) that alternate accept and
    reject over `ids`; it prints (id, decision, by) of every call, in order."""
    return subprocess.Popen([sys.executable, "-c", _TOGGLE, str(ws), who, ",".join(ids), str(rounds)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def test_two_processes_interleaving_200_calls_keep_the_last_decision_per_id(ws):
    a_ids = [f"W{i}" for i in range(1, 8)]
    b_ids = [f"W{i}" for i in range(5, 12)]  # W5..W7 are touched by both
    procs = [_toggle(ws, "a", a_ids, 100), _toggle(ws, "b", b_ids, 100)]   # both run at once
    calls_a, calls_b = (json.loads(p.communicate(timeout=300)[0]) for p in procs)
    assert [p.returncode for p in procs] == [0, 0]
    final = curation.read(ws / "config/curation.tsv")
    assert set(final) == set(a_ids) | set(b_ids)
    last = {}
    for calls in (calls_a, calls_b):
        for work_id, decision, by in calls:
            last.setdefault(work_id, {})[by[0]] = (decision, by)
    for work_id, d in final.items():
        options = last[work_id]
        assert (d.decision, d.decided_by) in options.values(), work_id
        if len(options) == 1:  # touched by one process only: exactly its last call
            assert (d.decision, d.decided_by) == next(iter(options.values()))


@pytest.mark.parametrize("verb", ["status", "accept", "run", "schema"])
def test_verb_schema_flag_describes_that_verb(verb):
    env = b2g(verb, "--schema", "--json").envelope
    assert env["command"] == "schema" and list(env["data"]["verbs"]) == [verb]
    assert env["data"]["verbs"][verb]["data_schema"]["title"].endswith(f"`b2g {verb}` on success")


@pytest.mark.long
def test_monitor_is_exit_5_while_another_monitor_holds_the_lock(ws):
    import pandas as pd
    import yaml
    from filelock import FileLock

    from bib2graph.tables import WORKS, write_table

    spec = yaml.safe_load((ws / "config/research.yaml").read_text(encoding="utf-8"))
    spec["source"] = {"kind": "openalex"}
    (ws / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    write_table(pd.DataFrame({"work_id": ["W1"], "n_references": [0], "is_retracted": [False]}), WORKS,
                ws / "results/corpus/works.parquet")
    (ws / "resources/monitor").mkdir(parents=True, exist_ok=True)
    with FileLock(str(ws / "resources/monitor/.monitor.lock")):
        call = b2g("monitor", "--json", "--workspace", str(ws), env={"B2G_OPENALEX_URL": "http://127.0.0.1:9"})
    assert call.returncode == 5 and call.envelope["error"]["code"] == "WORKSPACE_LOCKED"


def test_monitor_needs_openalex(ws):
    call = b2g("monitor", "--json", "--workspace", str(ws))
    assert call.returncode == 3 and call.envelope["error"]["code"] == "SOURCE_UNSUPPORTED"
