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


def envelope_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol (h11, its default here) answering a request it cannot parse (a negative
    Content-Length, a broken request line) with the envelope, as every other answer of the API, instead of
    its plain-text "Invalid HTTP request received."."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from ..errors import UsageError
    from ..service.envelope import dumps, failure

    class EnvelopeH11Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            body = (dumps(failure("", UsageError(f"the HTTP request could not be parsed: {msg}"))) + "\n").encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                       (b"connection", b"close")]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                          h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return EnvelopeH11Protocol
