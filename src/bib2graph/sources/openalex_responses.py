"""What each OpenAlex answer means: a definitive answer to store, a fault to retry, or an error.

How responses and transport failures map (the one place this is decided: `classify` here, the transport
failures in openalex_transport.py's `send`):

    what happened                                   outcome
    ----------------------------------------------  ------------------------------------------------
    200 with a complete JSON body                   stored, returned
    200 with a truncated / invalid / misshapen body retried (subcode INVALID_JSON / INVALID_BODY)
    301/302/307/308 (merged work)                   stored; singleton look-ups follow Location
    404                                             stored; the work is recorded as missing (dangling)
    400                                             stored; DataError OPENALEX_BAD_REQUEST (exit 2),
                                                    quoting OpenAlex's message
    429 / 403 with the daily budget spent           UpstreamRefused BUDGET_EXHAUSTED (exit 4, not retried),
      (X-RateLimit-Remaining(-USD) ≤ 0, Remaining <   subcode RESETS_IN_<n>S, details.resets_in_seconds
      Credits-Required, or a body saying so)
    429 otherwise (per-second throttling)           retried after Retry-After (shared pause) or backoff
    401 / 403 otherwise                             UpstreamRefused ACCESS_DENIED (not retryable)
    500–599                                         retried with backoff (Retry-After honoured)
    other 4xx                                       UpstreamRefused UPSTREAM_REJECTED (not retryable)
    httpx.TimeoutException                          retried (subcode TIMEOUT)
    httpx.ConnectError                              retried (subcode CONNECT_FAILED)
    RemoteProtocolError / ReadError / WriteError    retried (subcode CONNECTION_DROPPED); this includes
      (dropped socket, body cut short of its          a truncated body, which is therefore never stored
      Content-Length)
    retries used up                                 NetworkError RATE_LIMITED (last was 429),
                                                    UPSTREAM_TIMEOUT (timeout) or UPSTREAM_ERROR (rest),
                                                    all retryable=True, exit 4
    a stored answer of no usable status, or a       UpstreamRefused UPSTREAM_UNEXPECTED (subcode HTTP_<status>
      redirect loop or one to nowhere                 or BAD_REDIRECT; not retryable: the same answer again)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

import httpx

from ..errors import DataError, NetworkError, UpstreamRefused
from .openalex_settings import ENV_API_KEY
from .store import ApiRequest

_BUDGET_WORDS = re.compile(r"daily|per day|budget|quota|insufficient|exhausted|out of credits", re.I)
_INVALID = object()

Answer = tuple[int, httpx.Headers, Any]


@dataclass
class Fault:
    """A retryable failure of one attempt: its error code and subcode, and how long OpenAlex asks to wait."""
    code: str
    subcode: str
    message: str
    retry_after: float | None = None


def header_number(headers: Mapping[str, str], name: str) -> float | None:
    try:
        return float(headers[name])
    except (KeyError, TypeError, ValueError):
        return None


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Retry-After in seconds (the HTTP-date form is read as "soon": 1 s)."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return 1.0


def _error_text(body: Any, raw: bytes) -> str:
    """OpenAlex's own words from an error body (``{"error": …, "message": …}``) or its raw text."""
    if isinstance(body, dict):
        parts = [str(body[k]) for k in ("error", "message") if body.get(k)]
        if parts:
            return ": ".join(parts)
    return raw.decode("utf-8", "replace").strip()[:500] or "(no message)"


def budget_exhausted(headers: Mapping[str, str], body: Any) -> dict[str, Any] | None:
    """Tell an exhausted daily budget (do not retry) from per-second throttling (retry).

    Spent when ``X-RateLimit-Remaining`` ≤ 0 or below ``X-RateLimit-Credits-Required``,
    ``X-RateLimit-Remaining-USD`` ≤ 0 or below ``X-RateLimit-Cost-Required-USD``, or the body says
    the daily limit is used. Returns what was read (for the error's details), or None.
    """
    headers = httpx.Headers(headers)
    remaining = header_number(headers, "x-ratelimit-remaining")
    required = header_number(headers, "x-ratelimit-credits-required")
    remaining_usd = header_number(headers, "x-ratelimit-remaining-usd")
    required_usd = header_number(headers, "x-ratelimit-cost-required-usd")
    budget = None
    if remaining is not None and (remaining <= 0 or (required is not None and remaining < required)):
        budget = "credits"
    elif remaining_usd is not None and (remaining_usd <= 0 or (required_usd is not None
                                                                and remaining_usd < required_usd)):
        budget = "usd"
    elif _BUDGET_WORDS.search(_error_text(body, b"")):
        budget = "daily"
    if budget is None:
        return None
    reset = header_number(headers, "x-ratelimit-reset")
    return {"budget": budget, "resets_in_seconds": int(reset) if reset is not None else None,
            "remaining": remaining, "credits_required": required, "remaining_usd": remaining_usd}


def fatal(message: str, **kwargs: Any) -> UpstreamRefused:
    """A NetworkError that retrying cannot cure (exit 4, retryable False)."""
    return UpstreamRefused(message, **kwargs)


def _budget_error(spent: dict[str, Any], request: ApiRequest) -> NetworkError:
    reset = spent["resets_in_seconds"]
    when = f"resets in {reset} s (~{reset / 3600:.1f} h)" if reset is not None else "reset time unknown"
    return fatal(f"the OpenAlex daily budget is used up ({spent['budget']}); it {when}. "
                 f"Stored answers are kept: re-run after the reset to resume.",
                 code="BUDGET_EXHAUSTED", subcode=f"RESETS_IN_{reset}S" if reset is not None else "RESET_UNKNOWN",
                 details={**spent, "request": request.describe()})


def _parse_json(raw: bytes) -> Any:
    if not raw:
        return _INVALID
    try:
        return json.loads(raw)
    except ValueError:
        return _INVALID


def _well_formed(path: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if path.rstrip("/") == "/works":
        return isinstance(body.get("results"), list) and isinstance(body.get("meta", {}), dict)
    return bool(body.get("id"))


def classify(response: httpx.Response, request: ApiRequest, api_key: str | None) -> Answer | Fault:
    """A definitive (status, headers, body), or a retryable fault; raises what must not be retried."""
    status, headers, raw = response.status_code, response.headers, response.content
    if status == 200:     # data, kept as sent: a short key can be part of any word ("referenced_works")
        body = _parse_json(raw)
        if body is _INVALID:
            return Fault("UPSTREAM_ERROR", "INVALID_JSON", "sent an incomplete or invalid JSON body")
        if not _well_formed(request.path, body):
            return Fault("UPSTREAM_ERROR", "INVALID_BODY", "sent a body without results")
        return status, headers, body
    if api_key and api_key.encode() in raw:  # an error page echoing the query
        raw = raw.replace(api_key.encode(), b"***")
    body = _parse_json(raw)
    body = None if body is _INVALID else body
    if status in (301, 302, 307, 308, 404, 400):
        return status, headers, body
    if status in (429, 403):
        spent = budget_exhausted(headers, body)
        if spent is not None:
            raise _budget_error(spent, request)
    if status == 429:
        return Fault("RATE_LIMITED", "HTTP_429", "throttled the requests", _retry_after(headers))
    if status in (401, 403):
        raise fatal(f"OpenAlex refused the request (HTTP {status}: {_error_text(body, raw)}); "
                    f"check {ENV_API_KEY}", code="ACCESS_DENIED", subcode=f"HTTP_{status}",
                    details={"status": status, "request": request.describe()})
    if status >= 500:
        return Fault("UPSTREAM_ERROR", f"HTTP_{status}", f"failed (HTTP {status})", _retry_after(headers))
    raise fatal(f"OpenAlex rejected {request.describe()} (HTTP {status}: {_error_text(body, raw)})",
                code="UPSTREAM_REJECTED", subcode=f"HTTP_{status}", details={"status": status})


def body_or_raise(entry: dict[str, Any]) -> Any:
    """The body of a stored 200; a 400 becomes a DataError quoting OpenAlex."""
    status, body = entry["status"], entry.get("body")
    request = ApiRequest.make(entry["request"]["path"], entry["request"]["params"])
    if status == 200:
        return body
    if status == 400:
        text = _error_text(body, b"")
        raise DataError(f"OpenAlex rejected the query {request.describe()}: {text}",
                        code="OPENALEX_BAD_REQUEST",
                        details={"status": 400, "openalex_message": text, "request": request.describe()})
    raise fatal(f"OpenAlex answered HTTP {status} to {request.describe()}", code="UPSTREAM_UNEXPECTED",
                subcode=f"HTTP_{status}", details={"status": status})
