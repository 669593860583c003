"""The one table from an envelope to an HTTP status (docs/api.md, docs/contract.md; seed 002 §7).

The body always carries the envelope, so a client reads `error.code`; the status only lets HTTP
tooling see the class of the outcome. Plain Python: the contract tests read it without FastAPI.
"""

from __future__ import annotations

from typing import Any

# error code -> HTTP status, for codes whose status is not their exit code's
BY_CODE = {
    "UNKNOWN_ID": 404, "UNKNOWN_NETWORK": 404, "UNKNOWN_EDGE": 404, "ARTIFACT_MISSING": 404, "NOT_FOUND": 404,
    "NOT_SLICED": 404,
    "METHOD_NOT_ALLOWED": 405,
    "PAYLOAD_TOO_LARGE": 413,
    "WORKSPACE_LOCKED": 409, "RUN_IN_PROGRESS": 409,
    "UNAUTHORIZED": 401, "FORBIDDEN_HOST": 403,
}
# exit code -> HTTP status
BY_EXIT = {0: 200, 1: 400, 2: 422, 3: 501, 4: 502, 5: 503, 70: 500}


def http_status(envelope: dict[str, Any], ok_status: int = 200) -> int:
    """The HTTP status of an envelope; `ok_status` for success (202 for a run started)."""
    if envelope["ok"]:
        return ok_status
    return BY_CODE.get(envelope["error"]["code"], BY_EXIT.get(envelope["exit_code"], 500))


def table() -> list[dict[str, Any]]:
    """The mapping as rows, for docs and tests: every exit code, then the codes with their own status."""
    return ([{"exit": exit_code, "http": status} for exit_code, status in sorted(BY_EXIT.items())]
            + [{"code": code, "http": status} for code, status in sorted(BY_CODE.items())])
