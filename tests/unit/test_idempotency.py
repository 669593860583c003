"""`service.idempotency.once`: at most one action per key, replays, conflicts, a key held by a live call."""

from __future__ import annotations

import pytest

from bib2graph.errors import DataError, UsageError
from bib2graph.service.idempotency import IdempotencyConflict, IdempotencyInProgress, once
from bib2graph.service.result import Result
from bib2graph.service.workspace import Workspace


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(root=tmp_path, source="flag")


def test_the_same_request_acts_once_and_replays_its_result(ws):
    acted = []

    def act() -> Result:
        acted.append(1)
        return Result(data={"n": len(acted)}, warnings=["w"])

    first = once(ws, "reject", "k", {"ids": ["W1"], "reason": "r"}, act)
    again = once(ws, "reject", "k", {"reason": "r", "ids": ["W1"]}, act)
    assert acted == [1] and first.data == again.data == {"n": 1}
    assert again.warnings[0] == "w" and "replayed" in again.warnings[1]


def test_another_request_under_a_used_key_is_a_conflict(ws):
    once(ws, "reject", "k", {"reason": "r"}, lambda: Result(data={}))
    for verb, arguments in (("reject", {"reason": "s"}), ("accept", {"reason": "r"})):
        with pytest.raises(IdempotencyConflict) as caught:
            once(ws, verb, "k", arguments, lambda: pytest.fail("acted"))
        assert caught.value.exit_code == 1 and caught.value.retryable is False
        assert caught.value.details["recorded_verb"] == "reject"


def test_a_failure_is_not_recorded(ws):
    def fail() -> Result:
        raise DataError("no", code="UNKNOWN_ID")

    with pytest.raises(DataError):
        once(ws, "reject", "k", {}, fail)
    assert once(ws, "reject", "k", {}, lambda: Result(data={"ok": 1})).data == {"ok": 1}


def test_a_key_in_use_by_a_running_call_starts_nothing(ws):
    seen = []

    def outer() -> Result:
        with pytest.raises(IdempotencyInProgress) as caught:   # asked again while the first still acts
            once(ws, "run", "k", {}, lambda: pytest.fail("started twice"))
        seen.append(caught.value)
        return Result(data={"run": 1})

    assert once(ws, "run", "k", {}, outer).data == {"run": 1}
    assert seen[0].exit_code == 5 and seen[0].retryable is True
    assert once(ws, "run", "k", {}, lambda: pytest.fail("acted again")).data == {"run": 1}


@pytest.mark.parametrize("key", ["", "x" * 201, "line\nbreak"])
def test_a_key_is_short_printable_text(ws, key):
    with pytest.raises(UsageError):
        once(ws, "run", key, {}, lambda: pytest.fail("acted"))


def test_one_work_spelled_two_ways_is_one_request():
    from bib2graph.service.perform import request_of

    spelled = [request_of({"ids": ids, "reason": "x", "json_flag": True}) for ids in
               (("W1967872727",), ("w1967872727",), ("https://openalex.org/W1967872727",))]
    assert spelled[0] == spelled[1] == spelled[2] == {"ids": ["W1967872727"], "reason": "x"}


@pytest.mark.parametrize("damage", [b"", b"{x", b"[]", b"\xff\xfe", b'{"verb": "reject", "data": {}}',
                                    b'{"verb": "reject", "fingerprint": 1, "recorded_at": "t", "data": {}, "warnings": []}'])
def test_a_damaged_record_is_artifact_corrupt_and_acts_not(ws, damage):
    """A damaged record was INTERNAL with a traceback (json.loads, record["fingerprint"]); acting again
    could do twice what the key was for, so it is refused naming the file."""
    from bib2graph.atomic import sha256_text
    from bib2graph.service.idempotency import RECORDS

    once(ws, "reject", "k", {"reason": "r"}, lambda: Result(data={"n": 1}))
    record = ws.path(RECORDS) / f"{sha256_text('k')}.json"
    record.write_bytes(damage)
    with pytest.raises(DataError) as caught:
        once(ws, "reject", "k", {"reason": "r"}, lambda: pytest.fail("acted again"))
    assert caught.value.code == "ARTIFACT_CORRUPT" and caught.value.details["files"] == [str(record)]


def test_a_call_that_acted_but_could_not_record_its_key_answers_its_success(ws):
    """It answered IO_ERROR after acting, so a retry with the same key acted twice."""
    from bib2graph.atomic import sha256_text
    from bib2graph.service.idempotency import RECORDS

    acted = []

    def act() -> Result:      # while it acts, a folder comes to stand where its record goes
        acted.append(1)
        (ws.path(RECORDS) / f"{sha256_text('k')}.json").mkdir(parents=True)
        return Result(data={"n": 1})

    result = once(ws, "accept", "k", {"ids": ["W1"]}, act)
    assert acted == [1] and result.data == {"n": 1}
    assert "could not be written" in result.warnings[-1] and "would act again" in result.warnings[-1]
