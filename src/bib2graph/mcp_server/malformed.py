"""Answers to the lines the MCP SDK cannot read as a JSON-RPC message.

The SDK's stdio transport hands such a line on as an exception and its session drops it: nothing is
answered, so a client waiting on that request's ID waits forever. An agent meets this by accident:
Python's `json.dumps` writes a lone surrogate as "\\ud800", which Python reads and the SDK's strict
parser does not. Each such line gets a JSON-RPC error instead: under the request's own ID when the
line holds one (so the waiting call ends), else under a null ID, as JSON-RPC 2.0 says.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import anyio
from mcp import types
from mcp.shared.message import SessionMessage

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


async def answer_malformed(read: Any, write: Any, forward: Any) -> None:
    """Pass what `read` brings on to `forward`; answer each line it could not read on `write`."""
    async with forward:
        async for item in read:
            answer = error_for(item) if isinstance(item, Exception) else without_id(item.message)
            if answer is None:
                await forward.send(item)
                continue
            try:
                await write.send(SessionMessage(answer))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


@functools.cache
def _request_methods() -> frozenset[str]:
    """The methods a client sends as requests (an answer is due), from the SDK's own types."""
    from typing import get_args

    return frozenset(kind.model_fields["method"].default for kind in get_args(types.ClientRequest))


def without_id(message: Any) -> types.JSONRPCError | None:
    """The error for a request the SDK read as a notification because its ID was unusable (an object,
    a list, a float, true, null: JSON-RPC 2.0 and MCP take a string or an integer) or missing: the SDK drops
    the ID and, a notification being unanswered, the client waited forever. None for any other message."""
    if not isinstance(message, types.JSONRPCNotification) or message.method not in _request_methods():
        return None
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
        code=INVALID_REQUEST, message=f"a {message.method} request needs an id, a string or an integer"))


def error_for(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error for a line that is no message: its ID when one can be read from it."""
    errors = exc.errors() if callable(getattr(exc, "errors", None)) else []
    raw = next((e.get("input") for e in errors if e.get("type") == "json_invalid"), None)
    found, code, why = None, PARSE_ERROR, "the line is not JSON"
    if isinstance(raw, str):
        try:
            found = json.loads(raw)        # Python reads a lone surrogate's escape; the SDK does not
        except Exception:                  # noqa: BLE001  (ValueError, or RecursionError on deep nesting)
            found = None
        else:
            code, why = INVALID_REQUEST, ("a string in the message holds a lone surrogate (a \\ud800-style escape, "
                                          "no character); send UTF-8 text" if _SURROGATE_ESCAPE.search(raw) else
                                          "the message is JSON the protocol cannot read")
    elif errors:
        found = next((e.get("input") for e in errors if isinstance(e.get("input"), (dict, list))), None)
        code = INVALID_REQUEST
        why = ("batches are not part of MCP; send one message a line" if isinstance(found, list) else
               "not a JSON-RPC 2.0 request, notification or response (jsonrpc \"2.0\", a method or a result)")
    ident = found.get("id") if isinstance(found, dict) else None
    ident = ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=why))
