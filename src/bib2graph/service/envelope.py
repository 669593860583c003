"""The envelope of the CLI contract (seed 000 §C), schema "1": one JSON object per call.

    {"schema": "1", "ok": bool, "command": str, "exit_code": int,
     "data": {...}, "warnings": [str, ...], "error": null | {"code", "message", "retryable", ...}}

Warnings travel only in the top-level `warnings`, never inside `data`.
"""

from __future__ import annotations

import json
from typing import Any

from .. import CONTRACT_VERSION
from ..errors import INTERNAL_EXIT, B2GError, RunInterrupted, WorkspaceError
from ..textio import SURROGATE



def success(command: str, data: dict[str, Any], warnings: list[str] | None = None) -> dict[str, Any]:
    return {"schema": CONTRACT_VERSION, "ok": True, "command": command, "exit_code": 0,
            "data": data, "warnings": list(warnings or []), "error": None}


def as_error(exc: BaseException) -> BaseException:
    """The contract's reading of exceptions from outside the hierarchy that are not bugs."""
    if isinstance(exc, KeyboardInterrupt):
        return RunInterrupted("interrupted (SIGINT or SIGTERM) before finishing; nothing was left half-written, "
                              "run the command again")
    if isinstance(exc, OSError) and not isinstance(exc, B2GError):
        where = exc.filename or "a file"
        code = "PERMISSION_DENIED" if isinstance(exc, PermissionError) else "IO_ERROR"
        return WorkspaceError(f"cannot use {where}: {exc.strerror or exc}", code=code,
                              details={"file": str(exc.filename)} if exc.filename else {})
    return exc


def failure(command: str, exc: BaseException, warnings: list[str] | None = None,
            data: dict[str, Any] | None = None) -> dict[str, Any]:
    """The envelope of an error; an exception outside the hierarchy becomes INTERNAL."""
    exc = as_error(exc)
    if isinstance(exc, B2GError):
        error: dict[str, Any] = {"code": exc.code, "message": exc.message, "retryable": exc.retryable}
        if exc.subcode:
            error["subcode"] = exc.subcode
        if exc.details:
            error["details"] = exc.details
        exit_code = exc.exit_code
    else:
        error = {"code": "INTERNAL", "retryable": False,
                 "message": f"unexpected {type(exc).__name__}: {exc}; this is a bib2graph bug, please report it"}
        exit_code = INTERNAL_EXIT
    return {"schema": CONTRACT_VERSION, "ok": False, "command": command, "exit_code": exit_code,
            "data": data or {}, "warnings": list(warnings or []), "error": error}


def dumps(envelope: dict[str, Any]) -> str:
    """One line of UTF-8 JSON with sorted keys: equal envelopes print equal bytes. A lone surrogate (an
    ID a client sent as "\\ud800", quoted back in an error) is written as its JSON escape: raw, no UTF-8
    encoder would take the line."""
    text = json.dumps(envelope, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text) if SURROGATE.search(text) else text
