"""The real `b2g gui` server in a subprocess, and Debian's Chromium driven by Playwright.

Playwright's own browser download is not reachable here, so the tests drive the system's `chromium`
(`make test` installs it when missing)."""

from __future__ import annotations

import shutil
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tests.api.conftest import start_gui, stopped_cleanly

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).is_file(), "Chromium is missing: `make test` installs it (apt-get install chromium)"
    return path


@contextmanager
def gui_server(workspace: Path, stderr: Path) -> Iterator[dict]:
    """`b2g gui --json --no-browser --port 0` on `workspace` (the API tests' `start_gui`): yields the data
    of its one envelope (url, port, pid), then stops it with Ctrl-C as a user would and checks that it
    exits cleanly."""
    server = start_gui(workspace, stderr)
    try:
        yield server.envelope["data"]
    finally:
        stopped_cleanly(server, signal.SIGINT)
