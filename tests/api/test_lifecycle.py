"""`b2g gui` itself: a clean stop on Ctrl-C, a typed error without the extra or its port, and a core
and CLI module that never import FastAPI."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

from ..integration.helpers import b2g
from .conftest import body, start_gui, stopped_cleanly


def test_ctrl_c_stops_it_with_exit_0(demo, tmp_path):
    server = start_gui(demo, tmp_path / "gui.log")
    with server.client() as client:
        assert body(client.get("/api/run"))["ok"]
    stopped_cleanly(server, signal.SIGINT)


def test_without_the_extra_it_says_what_to_install(demo, tmp_path):
    blocker = tmp_path / "no-gui"
    blocker.mkdir()
    (blocker / "fastapi.py").write_text("raise ImportError('fastapi is not installed')\n", encoding="utf-8")
    call = b2g("gui", "--json", "--no-browser", "--workspace", str(demo), env={"PYTHONPATH": str(blocker)})
    assert call.returncode == 3
    error = call.envelope["error"]
    assert error["code"] == "DEPENDENCY_MISSING" and "pip install 'bib2graph[gui]'" in error["message"]


def test_a_port_in_use_is_a_usage_error(demo):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        call = b2g("gui", "--json", "--no-browser", "--port", str(port), "--workspace", str(demo))
    assert call.returncode == 1 and call.envelope["error"]["code"] == "PORT_UNAVAILABLE"


def test_the_core_and_the_cli_never_import_fastapi():
    code = ("import sys; import bib2graph.cli, bib2graph.cli.commands, bib2graph.service.jobs, "
            "bib2graph.api, bib2graph.api.launch, bib2graph.api.statuses; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'uvicorn', 'starlette')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
