"""Acceptance 2: the token guards every route, a foreign Host is refused, and the server listens on
loopback only. The routes are read off the app itself, so a new endpoint is covered without a list."""

from __future__ import annotations

import errno
import json
import re
import shutil
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from bib2graph.api.app import create_app
from bib2graph.service.workspace import Workspace

from .conftest import body


def every_route() -> list[tuple[str, str]]:
    """(method, path) of every route of the app, path parameters filled in."""
    app = create_app(Workspace(Path("/nowhere"), "flag"), "token")
    found = []
    for route in app.routes:
        path = re.sub(r"\{[^}]+\}", "x", route.path)
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            if method != "HEAD":
                found.append((method, path))
    return sorted(set(found))


ROUTES = every_route()


def test_the_app_has_the_documented_endpoints():
    paths = {path for _, path in ROUTES}
    assert {"/api/status", "/api/works/x", "/api/decisions", "/api/run", "/api/run/events", "/api/networks",
            "/api/networks/x", "/api/networks/x/evidence", "/api/networks/x/density", "/api/search", "/api/queue",
            "/api/prisma", "/api/openapi.json", "/"} <= paths


@pytest.mark.long
def test_every_route_without_the_token_is_401_with_an_envelope(reads):
    with reads.client(authorized=False) as client:
        for method, path in ROUTES:
            for headers, params in (({}, {}), ({"Authorization": "Bearer wrong"}, {}),
                                    ({"Cookie": "b2g_token=wrong"}, {}), ({}, {"token": "wrong"})):
                response = client.request(method, path, headers=headers, params=params)
                assert response.status_code == 401, (method, path, response.text)
                assert body(response)["error"]["code"] == "UNAUTHORIZED"


def test_a_foreign_host_is_403_even_with_the_token(reads):
    with reads.client() as client:
        for host in ("evil.example", f"evil.example:{reads.port}", "127.0.0.1", f"127.0.0.1:{reads.port + 1}"):
            response = client.get("/api/status", headers={"Host": host})
            assert response.status_code == 403, host
            assert body(response)["error"]["code"] == "FORBIDDEN_HOST"
        assert client.get("/api/run", headers={"Host": f"localhost:{reads.port}"}).status_code == 200


@pytest.mark.long
def test_a_method_an_endpoint_does_not_take_is_405_naming_the_ones_it_does(reads):
    """The catch-all for unknown API paths answered first: POST /api/status, DELETE /api/prisma … were 404
    NOT_FOUND with no command, where the contract's table says 405 METHOD_NOT_ALLOWED."""
    methods: dict[str, set[str]] = {}
    for route in create_app(Workspace(Path("/nowhere"), "flag"), "token").routes:
        path = re.sub(r"\{[^}]+\}", "x", route.path)
        if path.startswith("/api/") and path != "/api/x":
            methods.setdefault(path, set()).update(getattr(route, "methods", None) or {"GET"})
    with reads.client() as client:
        for path, taken in methods.items():
            allowed = sorted(taken)
            for method in sorted({"GET", "POST", "PUT", "PATCH", "DELETE"} - taken):
                response = client.request(method, path)
                assert response.status_code == 405, (method, path, response.text)
                assert body(response)["error"]["code"] == "METHOD_NOT_ALLOWED", (method, path)
                assert response.headers["allow"] == ", ".join(allowed), (method, path)
        missing = client.post("/api/no/such/thing")
        assert missing.status_code == 404 and body(missing)["error"]["code"] == "NOT_FOUND"


def test_head_and_options_on_the_api_are_404_or_405_as_any_other_method(reads):
    """They fell past the API's catch-all to Starlette, whose 405 had no envelope and no `Allow`."""
    with reads.client() as client:
        for method in ("HEAD", "OPTIONS"):
            unknown = client.request(method, "/api/no/such/thing")
            assert unknown.status_code == 404, method
            known = client.request(method, "/api/status")
            assert known.status_code == 405 and known.headers["allow"] == "GET", method
        assert body(client.options("/api/no/such/thing"))["error"]["code"] == "NOT_FOUND"
        assert body(client.options("/api/decisions"))["error"]["details"]["allowed"] == ["POST"]


def test_a_request_the_http_parser_refuses_is_answered_with_the_envelope(reads):
    """uvicorn answered a Content-Length of -1 or a broken request line in plain text."""
    for raw in (b"POST /api/decisions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                b"GET /api/status HTTP/1.1 extra\r\nHost: x\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", reads.port), timeout=60) as conn:
            conn.sendall(raw)
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        head, _, payload = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"content-type: application/json" in head.lower(), head
        envelope = json.loads(payload)
        assert envelope["error"]["code"] == "USAGE_ERROR" and envelope["exit_code"] == 1 and not envelope["ok"]


def test_the_token_in_the_url_sets_a_strict_cookie_that_then_suffices(reads):
    with httpx.Client(base_url=reads.base) as browser:
        first = browser.get("/", params={"token": reads.token})
        assert first.status_code == 200 and first.headers["content-type"].startswith("text/html")
        cookie = first.headers["set-cookie"]
        assert cookie.startswith(f"b2g_token={reads.token};")
        assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {part.strip() for part in cookie.split(";")}
        assert body(browser.get("/api/run"))["ok"] is True           # the cookie alone


def test_no_cors_headers_even_for_a_preflight(reads):
    with reads.client() as client:
        origin = {"Origin": "http://evil.example"}
        responses = [client.get("/api/run", headers=origin),
                     client.options("/api/run", headers={**origin, "Access-Control-Request-Method": "DELETE"})]
    for response in responses:
        assert not [h for h in response.headers if h.lower().startswith("access-control-")]


def test_openapi_describes_the_api(reads):
    with reads.client() as client:
        spec = client.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert {"/api/status", "/api/decisions", "/api/run", "/api/networks/{kind}"} <= set(spec["paths"])


def other_addresses() -> list[tuple]:
    """(family, (host[, flowinfo, scope id])) of this machine's addresses that are not loopback: from
    `ip -j addr`, else from the hostname."""
    found = []
    if shutil.which("ip"):
        links = json.loads(subprocess.run(["ip", "-j", "addr"], capture_output=True, text=True, check=True).stdout)
        for link in links:
            for info in link.get("addr_info", []):
                if info.get("scope") == "host":
                    continue
                if info["family"] == "inet":
                    found.append((socket.AF_INET, (info["local"],)))
                elif info["family"] == "inet6":
                    found.append((socket.AF_INET6, (info["local"], 0, link["ifindex"])))
    else:
        for family, _, _, _, address in socket.getaddrinfo(socket.gethostname(), None):
            if family in (socket.AF_INET, socket.AF_INET6) and not address[0].startswith(("127.", "::1")):
                found.append((family, address[:1] if family == socket.AF_INET else (address[0], 0, address[3])))
    return sorted(set(found))


def test_it_listens_on_loopback_only(reads):
    addresses = other_addresses()
    if not addresses:
        pytest.fail("this machine has no non-loopback address to try; the loopback-only check needs one")
    for family, address in addresses:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            target = (address[0], reads.port, *address[1:])
            with pytest.raises(OSError) as refused:
                sock.connect(target)
            assert refused.value.errno == errno.ECONNREFUSED, target
    with socket.create_connection(("127.0.0.1", reads.port), timeout=10):
        pass                                                    # while loopback answers


def test_a_path_no_file_system_holds_is_the_app_not_a_500(reads):
    """A NUL in the path, or a name longer than a file name may be: ValueError and OSError came out of the
    file lookup as 500 with a plain-text body."""
    with reads.client() as client:
        for path in ("/a%00b", "/" + "a" * 300, "/assets/" + "b" * 300):
            response = client.get(path)
            assert response.status_code in (200, 404), (path, response.status_code)


def test_many_open_event_streams_leave_the_routes_answering(reads):
    """Each stream waited for the job in a worker thread, and about 40 of them took every thread the
    routes had: a GET hung until streams closed. Streams are opened and never read here."""
    request = (f"GET /api/run/events HTTP/1.1\r\nHost: 127.0.0.1:{reads.port}\r\n"
               f"Authorization: Bearer {reads.token}\r\n\r\n").encode()
    streams = []
    try:
        for _ in range(48):
            conn = socket.create_connection(("127.0.0.1", reads.port), timeout=60)
            conn.sendall(request)
            streams.append(conn)
        for conn in streams:            # each stream is open: its response has begun
            assert conn.makefile("rb").readline().startswith(b"HTTP/1.1 200")
        # it waited for a stream's wait to end (KEEPALIVE, 15 s) behind the streams queued for a thread
        with httpx.Client(base_url=reads.base, headers={"Authorization": f"Bearer {reads.token}"},
                          timeout=10) as client:
            assert body(client.get("/api/prisma"))["ok"]
    finally:
        for conn in streams:
            conn.close()
