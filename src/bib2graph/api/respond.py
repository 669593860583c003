"""Service results as HTTP responses: the envelope the CLI prints, with the status of `statuses`."""

from __future__ import annotations

import logging
from typing import Any, Callable

from starlette.responses import Response

from ..service.envelope import dumps, failure, success
from ..service.result import Result
from .statuses import http_status

log = logging.getLogger("bib2graph.api")


def envelope_response(envelope: dict[str, Any], ok_status: int = 200) -> Response:
    """The envelope as the CLI prints it (one line, sorted keys) under its HTTP status."""
    return Response(dumps(envelope) + "\n", status_code=http_status(envelope, ok_status),
                    media_type="application/json")


def run_operation(command: str, operation: Callable[[], Result]) -> dict[str, Any]:
    """Call a service operation and return its envelope, whatever it raises (bugs become INTERNAL)."""
    try:
        result = operation()
        return success(command, result.data, result.warnings)
    except Exception as exc:  # the contract holds on every path, bugs included
        envelope = failure(command, exc)
        if envelope["error"]["code"] == "INTERNAL":
            log.exception("%s failed", command)
        return envelope


def respond(command: str, operation: Callable[[], Result], ok_status: int = 200) -> Response:
    return envelope_response(run_operation(command, operation), ok_status)
