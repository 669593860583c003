"""Serving the API: a loopback socket, a fresh token, uvicorn, and a clean stop on SIGINT or SIGTERM.

Imported by `b2g gui` only. It checks for the `[gui]` extra before anything imports FastAPI, so
without it the verb ends in a typed DEPENDENCY_MISSING (exit 3) that says what to install.
"""

from __future__ import annotations

import errno
import importlib
import os
import secrets
import socket
from typing import Any, Callable

from ..errors import DependencyError, UsageError
from ..service.jobs import RunJobs
from ..service.workspace import Workspace

HOST = "127.0.0.1"


def require_extra() -> None:
    """DependencyError unless FastAPI and uvicorn can be imported."""
    for module in ("fastapi", "uvicorn"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise DependencyError(f"`b2g gui` needs the GUI extra ({module} cannot be imported: {exc}); "
                                  "install it with: pip install 'bib2graph[gui]'",
                                  details={"missing": module, "install": "pip install 'bib2graph[gui]'"}) from None


def listen(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:`port` (0: a free port the OS picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            raise UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror}; choose another --port "
                             "(0 picks a free one)", code="PORT_UNAVAILABLE") from None
        raise
    return sock


def serve(ws: Workspace, port: int, ready: Callable[[dict[str, Any]], None]) -> None:
    """Listen, call `ready` with {workspace, url, port, pid} once the socket accepts connections, then
    serve until SIGINT or SIGTERM; a running job is cancelled and awaited before returning."""
    require_extra()
    import uvicorn

    from .app import create_app
    from .server import GracefulServer, envelope_protocol

    sock = listen(port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    jobs = RunJobs(ws)
    app = create_app(ws, token, port, jobs=jobs)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=3, http=envelope_protocol())
    server = GracefulServer(config, on_exit=jobs.close)
    try:
        ready({"workspace": ws.describe(), "url": f"http://{HOST}:{port}/?token={token}", "port": port,
               "pid": os.getpid()})
        server.run(sockets=[sock])
    finally:
        sock.close()

