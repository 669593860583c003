"""The real `b2g gui` server in a subprocess, and Debian's Chromium driven by Playwright.

Playwright's own browser download is not reachable here, so the tests drive the system's `chromium`
(`make test` installs it when missing)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tests.integration.helpers import check_envelope

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
STOP_WAIT = 30  # seconds the server gets to stop after SIGINT


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).is_file(), "Chromium is missing: `make test` installs it (apt-get install chromium)"
    return path


@contextmanager
def gui_server(workspace: Path, stderr: Path) -> Iterator[dict]:
    """`b2g gui --json --no-browser --port 0` on `workspace`: yields the data of its one envelope (url,
    port, pid), then stops it with Ctrl-C as a user would and checks that it exits cleanly. Its stderr
    goes to the file `stderr` (a pipe nobody reads could fill up and block it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("B2G_")}
    with stderr.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, "-m", "bib2graph", "gui", "--json", "--no-browser", "--port", "0",
                                 "--workspace", str(workspace)], stdout=subprocess.PIPE, stderr=err,
                                stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        line = proc.stdout.readline()  # printed once the socket accepts connections
        assert line, f"b2g gui printed nothing; stderr: {stderr.read_text()[-3000:]}"
        envelope = json.loads(line)
        check_envelope(envelope)
        assert envelope["ok"], envelope
        yield envelope["data"]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("b2g gui did not stop within 30 s of Ctrl-C")
    assert code == 0, f"b2g gui exited {code}: {stderr.read_text()[-3000:]}"
