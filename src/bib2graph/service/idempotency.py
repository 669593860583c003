"""Idempotency keys (seed 003): a write an agent may safely repeat after losing its answer.

A mutating verb called with a key records its result under `.snakemake/b2g/idempotency/`, one file
per key (named by the key's SHA-256, written atomically). A later call with the same key:

- and the same arguments: returns the recorded result (the same `data`) without acting again;
- and other arguments: IDEMPOTENCY_CONFLICT (exit 1, not retryable): a key names one request;
- while the first call still runs: IDEMPOTENCY_IN_PROGRESS (exit 5, retryable): nothing starts,
  and asking again once the first has ended returns its result.

A key is claimed under one lock (check and claim cannot interleave between processes); the claiming
call then holds an OS lock on the key's own lock file while it acts, so a call that dies (even by
SIGKILL) releases it and a repeat acts afresh. Only successes are recorded: a failed call leaves
the key free, so retrying a retryable error with the same key acts again. Records do not expire.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock

from ..atomic import canonical_json, sha256_text, write_json
from ..errors import DataError, UsageError, WorkspaceLockedError
from .audit import now
from .result import Result
from .workspace import Workspace

RECORDS = ".snakemake/b2g/idempotency"
MAX_KEY = 200


class IdempotencyConflict(UsageError):
    code = "IDEMPOTENCY_CONFLICT"


class IdempotencyInProgress(WorkspaceLockedError):
    code = "IDEMPOTENCY_IN_PROGRESS"


def fingerprint(verb: str, arguments: dict[str, Any]) -> str:
    """The request a key stands for: the verb and its arguments, canonically hashed."""
    return sha256_text(canonical_json({"verb": verb, "arguments": arguments}))


def check_key(key: str) -> str:
    """A key is 1 to MAX_KEY printable characters (it names a request, it is no payload)."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY or not key.isprintable():
        raise UsageError(f"an idempotency key is 1 to {MAX_KEY} printable characters",
                         details={"argument": "idempotency_key"})
    return key


def _try_lock(path: str) -> int | None:
    """An open descriptor holding an OS lock on `path`, or None when another holder has it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _claim(ws: Workspace, verb: str, key: str, wanted: str) -> tuple[int | None, Result | None]:
    """(lock descriptor, None) when this call acts; (None, recorded result) when it replays."""
    folder = ws.path(RECORDS)
    folder.mkdir(parents=True, exist_ok=True)
    name = sha256_text(check_key(key))
    record_path = folder / f"{name}.json"
    with FileLock(str(folder / ".claim.lock")):
        fd = _try_lock(str(folder / f"{name}.lock"))
        record = _read_record(record_path, key) if record_path.exists() else None
        if record is not None and record["fingerprint"] != wanted:
            if fd is not None:
                os.close(fd)
            raise IdempotencyConflict(
                f"idempotency key {key!r} was used for another request ({record['verb']} with other "
                "arguments); use a new key for a new request",
                details={"key": key, "recorded_verb": record["verb"], "recorded_at": record["recorded_at"]})
        if fd is None:
            raise IdempotencyInProgress(
                f"a call with idempotency key {key!r} is still running; nothing was started: ask again "
                "with the same key once it ends to get its result", details={"key": key})
        if record is not None:
            os.close(fd)
            return None, _replay(record, key)
        return fd, None


def once(ws: Workspace, verb: str, key: str, arguments: dict[str, Any], operation: Callable[[], Result]) -> Result:
    """Run `operation` at most once per key: replay a recorded success, refuse a reused key."""
    wanted = fingerprint(verb, arguments)
    fd, replayed = _claim(ws, verb, key, wanted)
    if replayed is not None:
        return replayed
    try:
        result = operation()
        path = ws.path(RECORDS) / f"{sha256_text(key)}.json"
        try:
            write_json(path, {"key": key, "verb": verb, "fingerprint": wanted, "recorded_at": now(),
                              "data": result.data, "warnings": result.warnings})
        except OSError as exc:   # the call has acted: its answer is a success, and says the key is not kept
            result.warnings.append(f"idempotency key {key!r}: the call was done, but its record could not be "
                                   f"written ({path}: {exc.strerror or exc}); a repeat with this key would act "
                                   "again")
        return result
    finally:
        os.close(fd)


_RECORD_FIELDS = {"verb": str, "fingerprint": str, "recorded_at": str, "data": dict, "warnings": list}


def _read_record(path: Path, key: str) -> dict[str, Any]:
    """The record of a key, or ARTIFACT_CORRUPT naming it: a damaged record can neither be replayed nor
    ignored (the call it records may have acted, and acting again is what the key forbids)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):      # unreadable, not UTF-8, not JSON
        record = None
    if not isinstance(record, dict) or any(not isinstance(record.get(name), kind)
                                           for name, kind in _RECORD_FIELDS.items()):
        raise DataError(f"the record of idempotency key {key!r} ({path}) is damaged; whether that call acted "
                        "cannot be told from it: check the workspace, then delete the file to use the key "
                        "again, or use a new key", code="ARTIFACT_CORRUPT", details={"files": [str(path)]})
    return record


def _replay(record: dict[str, Any], key: str) -> Result:
    note = (f"idempotency key {key!r}: replayed the result recorded at {record['recorded_at']}; "
            "nothing was done again")
    return Result(data=record["data"], warnings=[*record["warnings"], note])
