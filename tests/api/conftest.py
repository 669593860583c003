"""The real `b2g gui --json --no-browser --port 0` as a subprocess, spoken to over loopback HTTP.

`gui` starts one on a workspace and stops it at the end of the test, asserting that SIGTERM ends
it with exit 0 and no traceback; `reads` is one server on a private copy of the built demo, shared
by the tests of a module that only read.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bib2graph.api.statuses import http_status

from ..integration.conftest import built_demo, copy_workspace, demo  # noqa: F401  (fixtures)
from ..integration.helpers import check_envelope


@dataclass
class Gui:
    proc: subprocess.Popen
    root: Path
    envelope: dict
    stderr_path: Path

    @property
    def port(self) -> int:
        return self.envelope["data"]["port"]

    @property
    def token(self) -> str:
        return self.envelope["data"]["url"].split("token=", 1)[1]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, authorized: bool = True, **kwargs) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.token}"} if authorized else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=httpx.Timeout(300), **kwargs)

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        """Send `sig`, wait for the exit; (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        self.proc.stdout.close()
        return code, self.stderr_path.read_text(encoding="utf-8", errors="replace")


def start_gui(root: Path, log: Path, *extra: str, env: dict[str, str] | None = None) -> Gui:
    """Start `b2g gui` on `root` and wait (on its stdout, no sleeping) for its one envelope line."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    full_env.update(env or {})
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "gui", "--json", "--no-browser", "--port", "0",
                                 "--workspace", str(root), *extra], stdout=subprocess.PIPE, stderr=err,
                                stdin=subprocess.DEVNULL, text=True, env=full_env)
    line = proc.stdout.readline()
    assert line, f"b2g gui printed nothing and exited {proc.wait()}: {log.read_text()[-3000:]}"
    envelope = json.loads(line)
    check_envelope(envelope)
    assert envelope["ok"] and envelope["data"]["pid"] == proc.pid, envelope
    return Gui(proc, root, envelope, log)


def body(response: httpx.Response, ok_status: int = 200) -> dict:
    """The envelope of an API response, checked against the contract and the status table."""
    envelope = response.json()
    check_envelope(envelope)
    assert response.headers["content-type"].startswith("application/json")
    assert response.status_code == http_status(envelope, ok_status), (response.status_code, envelope)
    return envelope


def stopped_cleanly(gui: Gui, sig: int = signal.SIGTERM) -> None:
    code, stderr = gui.stop(sig)
    assert code == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]


@pytest.fixture
def gui(demo, tmp_path):
    """`b2g gui` on a private copy of the built demo."""
    server = start_gui(demo, tmp_path / "gui.log")
    yield server
    stopped_cleanly(server)


@pytest.fixture(scope="module")
def reads(built_demo, tmp_path_factory):
    """One `b2g gui` for a module of read-only tests, on its own copy of the built demo."""
    folder = tmp_path_factory.mktemp("reads")
    root = copy_workspace(built_demo, folder / "review")
    server = start_gui(root, folder / "gui.log")
    yield server
    stopped_cleanly(server)
