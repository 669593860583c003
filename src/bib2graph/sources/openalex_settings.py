"""Where the OpenAlex client's settings come from, and the API key kept secret.

The base URL: ``B2G_OPENALEX_URL`` beats the spec's ``source.openalex.base_url``, which beats the default.
The API key (``OPENALEX_API_KEY``) travels only as the ``api_key`` query parameter. It is never put in
the store, in an error, in ``repr`` or in a log line: `register_secret` adds a filter that scrubs it from
httpx/httpcore logs. Two runtime knobs come from the environment, not the spec (they change how long a
run waits, never what it makes): ``B2G_OPENALEX_BACKOFF`` (the backoff base in seconds, default 0.5; the
cap scales with it) and ``B2G_OPENALEX_RATE`` (requests a second, default 10; 0 for no pacing), which
tests against the loopback server shrink.
"""

from __future__ import annotations

import logging
import os
from typing import Mapping

from ..errors import UsageError

DEFAULT_BASE_URL = "https://api.openalex.org"
ENV_BASE_URL = "B2G_OPENALEX_URL"
ENV_API_KEY = "OPENALEX_API_KEY"
ENV_BACKOFF = "B2G_OPENALEX_BACKOFF"
ENV_RATE = "B2G_OPENALEX_RATE"


class _SecretFilter(logging.Filter):
    """Replace every registered secret in log records of httpx/httpcore (they log URLs and headers)."""

    secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            message = record.getMessage()
            if any(s in message for s in self.secrets):
                for secret in self.secrets:
                    message = message.replace(secret, "***")
                record.msg, record.args = message, ()
        return True


_SECRET_FILTER = _SecretFilter()
_FILTERED_LOGGERS = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2",
                     "httpcore.proxy", "httpcore.socks", "bib2graph.openalex")


def register_secret(secret: str) -> None:
    """Scrub `secret` from every log line of the HTTP stack and of the client from now on."""
    _SecretFilter.secrets.add(secret)
    for name in _FILTERED_LOGGERS:
        logger = logging.getLogger(name)
        if _SECRET_FILTER not in logger.filters:
            logger.addFilter(_SECRET_FILTER)


def resolve_base_url(spec_value: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """``B2G_OPENALEX_URL`` beats the spec's ``source.openalex.base_url``, which beats the default."""
    env = os.environ if env is None else env
    return (env.get(ENV_BASE_URL) or spec_value or DEFAULT_BASE_URL).rstrip("/")


def resolve_api_key(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return env.get(ENV_API_KEY) or None


def env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A non-negative number from the environment; anything else is a UsageError naming the variable."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value >= 0 and value != float("inf")):
        raise UsageError(f"{name}={raw!r}: expected a number >= 0")
    return value
