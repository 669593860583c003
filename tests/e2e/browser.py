"""The real `b2g gui` server in a subprocess, and Debian's Chromium driven by Playwright.

Playwright's own browser download is not reachable here, so the tests drive the system's `chromium`
(`make test` installs it when missing)."""

from __future__ import annotations

import shutil
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from playwright.sync_api import Page, Playwright, expect

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


@contextmanager
def opened(playwright: Playwright, url: str, timeout: int) -> Iterator[tuple[Page, list[str]]]:
    """Chromium on `url`: the page, whose every wait and `expect` may take `timeout` ms, and the errors
    its scripts raise (a test ends by asserting there were none); the browser is closed after."""
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(timeout)
        expect.set_options(timeout=timeout)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        yield page, errors
    finally:
        browser.close()
