"""uvicorn's server, stopped cleanly by the first SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from typing import Any, Callable

import uvicorn


class _CancelledAtShutdown(logging.Filter):
    """A request still running when the graceful shutdown times out is cancelled, and uvicorn logs the
    CancelledError with its traceback: one line instead (a Ctrl-C never prints a traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            record.msg, record.args, record.exc_info, record.exc_text = (
                "a request still running at shutdown was cancelled", (), None, None)
        return True


class GracefulServer(uvicorn.Server):
    """Stops on SIGINT/SIGTERM and, unlike uvicorn's own, does not raise the signal again once
    stopped (the CLI would then die of it instead of exiting 0). `on_exit` runs in a thread at the
    first signal: it ends what would hold the shutdown up (a running job, open event streams)."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_exit = on_exit
        logging.getLogger("uvicorn.error").addFilter(_CancelledAtShutdown())

    def handle_exit(self, sig: int, frame: Any) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
        if not self.should_exit:
            threading.Thread(target=self._on_exit, name="b2g-gui-stop", daemon=True).start()
        self.should_exit = True
