"""The one table from envelope to HTTP status: what it answers for real errors, and docs/contract.md
publishes it as the code has it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bib2graph.api.statuses import http_status, table
from bib2graph.errors import (DataError, DependencyError, NetworkError, RunInterrupted, UsageError,
                              WorkspaceError, WorkspaceLockedError)
from bib2graph.service.envelope import failure, success
from bib2graph.service.jobs import RunInProgress

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("exc, status", [
    (UsageError("bad"), 400), (DataError("bad"), 422), (DataError("who", code="UNKNOWN_ID"), 404),
    (DataError("which", code="UNKNOWN_NETWORK"), 404), (DataError("gone", code="ARTIFACT_MISSING"), 404),
    (DependencyError("no"), 501), (NetworkError("down"), 502), (WorkspaceLockedError("held"), 409),
    (RunInProgress("busy"), 409), (RunInterrupted("stop"), 503), (WorkspaceError("unreadable"), 503),
    (ValueError("a bug"), 500), (UsageError("who are you", code="UNAUTHORIZED"), 401),
    (UsageError("where from", code="FORBIDDEN_HOST"), 403),
])
def test_each_class_of_error_has_its_status(exc, status):
    assert http_status(failure("status", exc)) == status


def test_success_is_200_or_what_the_route_says():
    assert http_status(success("status", {})) == 200
    assert http_status(success("job", {}), ok_status=202) == 202


def test_docs_contract_publishes_the_table():
    text = (ROOT / "docs/contract.md").read_text(encoding="utf-8")
    section = text.split("## HTTP statuses of the local API", 1)[1].split("\n## ", 1)[0]
    rows = []
    for exit_code, code, status in re.findall(r"^\| (?:exit (\d+)|`([A-Z_]+)`) \| (\d{3}) \|$", section, re.M):
        rows.append({"exit": int(exit_code), "http": int(status)} if exit_code else {"code": code, "http": int(status)})
    assert rows == table()
    api = (ROOT / "docs/api.md").read_text(encoding="utf-8")
    assert all(row["code"] in api for row in table() if "code" in row)
