"""A request cancelled when the GUI's graceful shutdown times out is one log line, not a traceback."""

from __future__ import annotations

import asyncio
import io
import logging
import sys

from bib2graph.api.server import _CancelledAtShutdown


def _logged(exc: BaseException) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("b2g-test-shutdown")
    logger.addHandler(handler)
    logger.addFilter(_CancelledAtShutdown())
    try:
        try:
            raise exc
        except BaseException:
            logger.error("Exception in ASGI application\n", exc_info=sys.exc_info())
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_a_request_cancelled_at_shutdown_is_one_line():
    assert _logged(asyncio.CancelledError("Task cancelled, timeout graceful shutdown exceeded")) == (
        "a request still running at shutdown was cancelled\n")


def test_any_other_error_keeps_its_traceback():
    assert "Traceback" in _logged(ValueError("a bug"))
