"""The golden examples (docs/contract/examples/, seed 004) against the live output of every verb.

The scenario runs once per session on a copy of the built demo; a difference fails with its diff.
`python scripts/regenerate_examples.py` rewrites the examples after an intended change."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from jsonschema import Draft202012Validator

from bib2graph.cli.commands import cli, walk
from bib2graph.service.contract import schema_of

from ..conftest import DEMO_ZIP
from ..integration.conftest import built_demo, copy_workspace  # noqa: F401  (fixtures)
from ..integration.helpers import check_envelope
from ..openalex_server import OpenAlexTestServer, load_works
from .examples import EXAMPLES, NO_ENVELOPE, STEPS, VOLATILE, differences, example_path, normalise, render, run_scenario

NAMES = [step.name for step in STEPS]


def test_every_verb_has_an_example_and_every_example_a_step():
    verbs = {name.replace(" ", "-") for name, _ in walk(cli)} - set(NO_ENVELOPE)
    assert verbs <= set(NAMES)
    stored = {str(p.relative_to(EXAMPLES).with_suffix("")) for p in EXAMPLES.rglob("*.json")}
    assert stored == set(NAMES), "run scripts/regenerate_examples.py"


@pytest.mark.long
def test_live_output_of_every_verb_matches_its_example(built_demo, tmp_path):
    """One test, so the scenario runs once under pytest-xdist too; every difference is listed."""
    scratch = tmp_path / "examples"
    ws = copy_workspace(built_demo, scratch / "review")
    diffs = []
    with OpenAlexTestServer(load_works([DEMO_ZIP]), retry_after=0) as server:
        for step, env, text in run_scenario(ws, scratch, server.url):
            check_envelope(env)   # the envelope schema, and on success the verb's data schema
            expected_ok = not step.name.startswith("errors/")
            assert env["ok"] is expected_ok, (step.name, env["error"])
            assert expected_ok or env["error"]["code"] == step.name.rsplit("-", 1)[1]
            diffs.append(differences(example_path(step.name).read_text(encoding="utf-8"), text, step.name))
    diff = "".join(diffs)
    assert not diff, f"the contract changed (scripts/regenerate_examples.py if intended):\n{diff}"


@pytest.mark.parametrize("name", NAMES)
def test_each_example_meets_the_envelope_and_its_verb_schema(name):
    """The stored examples as they are; only a value replaced by `<VOLATILE>` may break its pattern."""
    env = json.loads(example_path(name).read_text(encoding="utf-8"))
    problems = list(Draft202012Validator(schema_of("envelope")).iter_errors(env))
    if env["ok"]:
        problems += Draft202012Validator(schema_of(env["command"])).iter_errors(env["data"])
    assert [p.message for p in problems if (env["command"], p.path and p.path[-1]) not in VOLATILE] == []


def test_a_changed_value_or_key_is_reported(tmp_path):
    env = {"command": "status", "data": {"pending": 3, "phases": {"seed": "complete"}}, "ok": True}
    text = render(env)
    assert differences(text, render(env), "status") == ""
    changed = json.loads(text)
    changed["data"]["pending"] = 4
    assert '-    "pending": 3,\n+    "pending": 4,' in differences(text, render(changed), "status")
    renamed = json.loads(text)
    renamed["data"]["waiting"] = renamed["data"].pop("pending")
    assert '+    "waiting": 3' in differences(text, render(renamed), "status")


def test_only_the_workspace_clock_and_volatile_values_are_replaced(tmp_path):
    ws = tmp_path / "review"
    clock = (datetime(2026, 12, 3, 19, 55, 50, 600000, tzinfo=timezone.utc),
             datetime(2026, 12, 3, 19, 56, 10, tzinfo=timezone.utc))
    env = {"command": "gui", "data": {"workspace": {"root": str(ws)}, "pid": 4242, "port": 80, "year": 2021,
                                      "url": "http://127.0.0.1:80/?token=s3cret", "at": "2026-12-03T19:55:50Z",
                                      "file": f"{ws}/m/delta-2026-12-03T195551Z.json", "on": "2026-12-03",
                                      "updated_date": "2026-12-03T19:55:49", "date": "2019-05-01",
                                      "other": str(tmp_path.parent)}}
    assert normalise(env, ws, tmp_path, clock)["data"] == {
        "workspace": {"root": "<WORKSPACE>"}, "pid": "<VOLATILE>", "port": "<VOLATILE>", "year": 2021,
        "url": "http://127.0.0.1:<VOLATILE>/?token=<VOLATILE>", "at": "<TIME>",
        "file": "<WORKSPACE>/m/delta-<TIME>.json", "on": "<DATE>", "updated_date": "2026-12-03T19:55:49",
        "date": "2019-05-01", "other": str(tmp_path.parent)}
