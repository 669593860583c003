"""Runs through the API: one at a time, progress over server-sent events, cancel that keeps the outputs,
and a finished run's envelope in the `done` event."""

from __future__ import annotations

import json
import re

import pytest

from ..integration.helpers import check_envelope
from .conftest import body

STARTED = re.compile(r"^\s*(local)?rule \w+:\s*$")   # Snakemake announcing a job it starts


def artifacts(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "results").rglob("*"))
            if p.is_file() and not {"logs", "benchmarks", "snapshots"} & set(p.relative_to(root).parts)}


def events(client):
    """(event name, job) from GET /api/run/events, as they come."""
    with client.stream("GET", "/api/run/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                yield name, json.loads(line[len("data: "):])


@pytest.mark.long
def test_a_run_from_the_api_streams_progress_can_be_cancelled_and_then_finishes(gui, built_demo):
    (gui.root / "results/networks/keywords/manifest.json").unlink()    # the keyword network must be rebuilt
    before = artifacts(gui.root)
    with gui.client() as client, gui.client() as other:
        started = body(client.post("/api/run", json={}), ok_status=202)["data"]["job"]
        assert (started["state"], started["id"], started["target"]) == ("running", 1, "all")
        again = client.post("/api/run", json={"target": "networks"})
        assert again.status_code == 409 and body(again)["error"]["code"] == "RUN_IN_PROGRESS"

        cancelled, asked = None, False
        for name, job in events(client):
            if name == "done":
                cancelled = job
                break
            if not asked and any(STARTED.match(line) for line in job["log"]):
                asked = body(other.delete("/api/run"))["data"]["job"]["state"] == "running"   # once a job runs
        assert cancelled["state"] == "cancelled", cancelled["log"][-30:]
        check_envelope(cancelled["result"])
        assert cancelled["result"]["error"]["code"] == "INTERRUPTED" and cancelled["exit_code"] == 5
        after = artifacts(gui.root)
        assert {name: after.get(name) for name in before} == before           # nothing lost
        assert not list((gui.root / "results").rglob(".*.tmp"))
        assert body(client.get("/api/run"))["data"]["job"] == cancelled

        (gui.root / "results/networks/keywords/manifest.json").unlink(missing_ok=True)   # work for the next run
        second = body(client.post("/api/run", json={"target": "all", "args": ["--cores", "1"]}),
                      ok_status=202)["data"]["job"]
        assert second["id"] == 2
        seen = list(events(client))
    names = [name for name, _ in seen]
    assert names[-1] == "done" and names.count("done") == 1 and names[:-1] == ["progress"] * (len(names) - 1)
    finished = seen[-1][1]
    assert finished["state"] == "succeeded", finished["log"][-30:]
    check_envelope(finished["result"])
    assert finished["result"]["command"] == "run" and finished["result"]["data"]["targets"] == ["all"]
    steps = [job["progress"] for _, job in seen if job["progress"]["total"] is not None]
    assert steps and steps[-1]["done"] == steps[-1]["total"] > 0
    assert [s["done"] for s in steps] == sorted(s["done"] for s in steps)   # it only moves forward
    assert artifacts(gui.root) == artifacts(built_demo)


def test_a_run_request_that_names_another_workspace_is_refused(gui):
    with gui.client() as client:
        for payload in ({"target": "nowhere"}, {"args": ["--workspace", "/tmp"]}, {"args": ["--json"]}):
            response = client.post("/api/run", json=payload)
            assert response.status_code == 400 and body(response)["error"]["code"] == "USAGE_ERROR", payload
        assert body(client.get("/api/run"))["data"]["job"]["state"] == "idle"


def test_a_failed_run_ends_failed_with_its_envelope_and_log(gui):
    with gui.client() as client:
        body(client.post("/api/run", json={"target": "report", "args": ["--no-such-snakemake-option"]}),
             ok_status=202)
        seen = list(events(client))
    name, job = seen[-1]
    assert name == "done" and job["state"] == "failed" and job["exit_code"] == job["result"]["exit_code"] != 0
    check_envelope(job["result"])
    assert job["result"]["ok"] is False and any("no-such-snakemake-option" in line for line in job["log"])


def test_a_run_starts_in_the_workspace_whatever_folder_the_server_is_in(demo, tmp_path):
    """`status` moves the server process into a shadow folder that it then deletes; a run started at
    that moment must not inherit it (the child would fail before Snakemake, with an empty log)."""
    import os

    from bib2graph.service.jobs import RunJobs
    from bib2graph.service.workspace import resolve

    jobs = RunJobs(resolve(str(demo)))
    gone = tmp_path / "shadow"
    gone.mkdir()
    previous = os.getcwd()
    os.chdir(gone)
    try:
        gone.rmdir()                                       # the server's folder no longer exists
        jobs.start("corpus")
    finally:
        os.chdir(previous)
    job, version, _ = jobs.wait_change(0, timeout=0)
    while job["state"] == "running":
        job, version, _ = jobs.wait_change(version, timeout=120)
    assert job["state"] == "succeeded", (job["result"], job["log"][-20:])
    check_envelope(job["result"])


def test_a_stream_the_server_closes_before_its_job_ends_says_so(tmp_path):
    """It ended after a `progress` event, and a client waiting for `done` could not tell a shutdown from a
    dropped connection."""
    import anyio

    from bib2graph.api.app import _stream
    from bib2graph.service.init import init_workspace
    from bib2graph.service.jobs import RunJobs
    from bib2graph.service.workspace import Workspace

    init_workspace(tmp_path / "ws")
    jobs = RunJobs(Workspace(tmp_path / "ws", "flag"))

    async def follow() -> list[str]:
        stream = _stream(jobs, anyio.CapacityLimiter(1))
        events = [await stream.__anext__()]             # the job as it stands: idle
        await anyio.to_thread.run_sync(jobs.close)
        events += [event async for event in stream]
        return [event.split("\n", 1)[0] for event in events]

    assert anyio.run(follow) == ["event: progress", "event: closed"]
