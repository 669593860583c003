"""The two checks every request passes before any route: its `Host` and its token.

A `Host` other than the server's own loopback address is refused (403 `FORBIDDEN_HOST`), so a page
on another origin cannot reach the API through DNS rebinding. The token (per server start) comes as
`Authorization: Bearer`, as `?token=` (which also sets the `b2g_token` cookie, so the page opened
from the printed URL keeps working) or as that cookie; it is compared in constant time. Missing or
wrong: 401 `UNAUTHORIZED`. No CORS headers are sent, so browsers keep other origins out.

Then the body: more than `MAX_REQUEST` bytes (1 MiB, the cap of an MCP call's arguments) is refused
before any route reads it, 413 `PAYLOAD_TOO_LARGE`: by its Content-Length, or, sent in chunks, once
that much has come; a JSON body naming a key twice is a 400 (readers disagree on which value counts).
"""

from __future__ import annotations

import hmac
import json
from typing import Any, Callable

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.routing import Match

from .. import curation
from ..errors import UsageError
from ..service.envelope import failure
from ..service.verbs import MAX_REQUEST
from .respond import envelope_response

COOKIE = "b2g_token"


def _equal(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


class Guard:
    """ASGI middleware: Host check, then token check, then the app."""

    def __init__(self, app: Any, token: str, hosts: set[str] | None, command_of: Callable[[dict], str]) -> None:
        self.app, self.token, self.hosts, self.command_of = app, token, hosts, command_of

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        if self.hosts is not None and conn.headers.get("host", "") not in self.hosts:
            await self._refuse(scope, receive, send, "FORBIDDEN_HOST",
                               "this server answers only to 127.0.0.1 or localhost on its own port")
            return
        header = conn.headers.get("authorization", "")
        candidates = [("header", header[7:].strip())] if header.lower().startswith("bearer ") else []
        candidates += [("query", conn.query_params.get("token", "")), ("cookie", conn.cookies.get(COOKIE, ""))]
        source = next((where for where, given in candidates if given and _equal(given, self.token)), None)
        if source is None:
            await self._refuse(scope, receive, send, "UNAUTHORIZED",
                               "missing or wrong token: open the URL `b2g gui` printed, or send "
                               "`Authorization: Bearer TOKEN`")
            return
        read = await _body(conn, receive) if _has_body(conn) else ([], b"")
        if read is None:
            await self._refuse(scope, _nothing, send, "PAYLOAD_TOO_LARGE",
                               f"the request body takes more than {MAX_REQUEST} bytes (1 MiB); send at most "
                               f"{curation.MAX_IDS_PER_CALL} IDs per call")
            return
        messages, body = read
        twice = _twice(body)
        if twice:
            await self._refuse(scope, _nothing, send, "USAGE_ERROR",
                               f"the request body names {twice!r} twice; JSON readers disagree on which "
                               "value counts (the last, here), so send each key once")
            return
        receive = _replay(messages, receive) if messages else receive
        await self.app(scope, receive, self._with_cookie(send) if source == "query" else send)

    def _with_cookie(self, send: Callable) -> Callable:
        cookie = f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode("latin-1")

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)
        return sending

    async def _refuse(self, scope: dict, receive: Callable, send: Callable, code: str, message: str) -> None:
        response: Response = envelope_response(failure(self.command_of(scope), UsageError(message, code=code)))
        await response(scope, receive, send)


def _has_body(conn: HTTPConnection) -> bool:
    """A write, or a request that declares a body or sends one in chunks: its body is read and checked here."""
    return conn.scope["method"] in ("POST", "PUT", "PATCH", "DELETE") or "content-length" in conn.headers or \
        "chunked" in conn.headers.get("transfer-encoding", "").lower()


async def _body(conn: HTTPConnection, receive: Callable) -> tuple[list[dict], bytes] | None:
    """(the messages, the body) of a request, or None when the body is over `MAX_REQUEST` bytes: by its
    declared length, or as it comes. A chunked body is counted whatever length it also declares (the
    server reads the chunks and ignores the length, so a small declared length let any body through)."""
    length = conn.headers.get("content-length")
    chunked = "chunked" in conn.headers.get("transfer-encoding", "").lower()
    if not chunked and length is not None and not (length.isdigit() and int(length) <= MAX_REQUEST):
        return None
    messages, body = [], b""
    while True:
        message = await receive()
        messages.append(message)
        body += message.get("body", b"")
        if len(body) > MAX_REQUEST:
            return None
        if message["type"] != "http.request" or not message.get("more_body"):
            return messages, body


def _twice(body: bytes) -> str | None:
    """A key some JSON object of `body` holds twice, or None; a body that is no JSON is the route's to
    refuse."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        found = dict(items)
        if len(found) < len(items):      # a key seen twice (a set: an object may hold many keys)
            seen: set[str] = set()
            twice.extend(key for key, _ in items if key in seen or seen.add(key))
        return found
    try:
        json.loads(body, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        pass
    return twice[0] if twice else None


def _replay(messages: list[dict], receive: Callable) -> Callable:
    """`receive` for the app: the messages read here, then the server's."""
    async def replay() -> dict:
        return messages.pop(0) if messages else await receive()
    return replay


async def _nothing() -> dict:
    """The body of a refused request, which no route reads."""
    return {"type": "http.request", "body": b"", "more_body": False}


def route_namer(routes: list) -> Callable[[dict], str]:
    """The name of the route a request would reach (its envelope's `command`), or ''."""
    def name(scope: dict) -> str:
        for route in routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                return getattr(route, "name", "") or ""
        return ""
    return name
