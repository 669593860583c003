"""The OpenAlex source: a small httpx client that asks few, cheap, batched questions and keeps every answer.

Why it looks like this (OpenAlex facts as of 2026, from the project's field notes): OpenAlex meters a daily budget in USD, where a
singleton ``/works/W…`` is free, a list/filter page costs $0.0001 and a ``search=`` page $0.001. So
ID, DOI and ``cites:`` look-ups are OR-batched (``openalex:W1|W2|…``, ≤ 100 values, URL < ~4,000
characters), ``select`` is narrowed to the fields records.py reads, pages are walked by cursor and
stop as soon as the answer is complete, and IDs a batch did not return are asked singly (free).
Every answer goes to the RawStore before anything reads it; a stored answer is never asked again.

The API key (``OPENALEX_API_KEY``) travels only as the ``api_key`` query parameter. It is never put
in the store, in an error, in ``repr`` or in a log line (a filter scrubs it from httpx/httpcore logs).

How responses and transport failures map (the one place this is decided, see ``_classify``/``_send``):

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

Backoff is exponential with "equal jitter" (``base·2^attempt`` scaled by a seeded factor in
[0.5, 1], capped); ``sleep`` and ``rng`` are injectable so tests never really wait. Two runtime knobs
come from the environment, not the spec (they change how long a run waits, never what it makes):
``B2G_OPENALEX_BACKOFF`` (the backoff base in seconds, default 0.5; the cap scales with it) and
``B2G_OPENALEX_RATE`` (requests a second, default 10; 0 for no pacing), which tests against the
loopback server shrink.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence
from urllib.parse import quote, urlsplit

import httpx

from .. import __version__
from ..errors import DataError, NetworkError, UpstreamRefused, UsageError
from ..ids import normalize_doi, normalize_pmid, short_id
from .store import ApiRequest, RawStore, kept_headers, scrub_url

log = logging.getLogger("bib2graph.openalex")

DEFAULT_BASE_URL = "https://api.openalex.org"
ENV_BASE_URL = "B2G_OPENALEX_URL"
ENV_API_KEY = "OPENALEX_API_KEY"
ENV_BACKOFF = "B2G_OPENALEX_BACKOFF"
ENV_RATE = "B2G_OPENALEX_RATE"

#: The top-level Work fields records.py reads (``host_venue`` is gone from the current API).
SELECT_FIELDS = ("id", "doi", "title", "display_name", "publication_year", "publication_date", "type",
                 "language", "primary_location", "authorships", "cited_by_count", "referenced_works",
                 "is_retracted", "abstract_inverted_index", "updated_date", "keywords", "topics",
                 "concepts", "ids", "mesh")
MAX_OR_VALUES = 100
MAX_URL_CHARS = 4000
#: USD per request, by kind (OpenAlex price list, 2026): list/filter page, search page, singleton.
PRICES_USD = {"list": 0.0001, "search": 0.001, "singleton": 0.0}
KINDS = tuple(PRICES_USD)

_WORK_ID = re.compile(r"^W\d+$")
_MAX_REDIRECTS = 5
_BUDGET_WORDS = re.compile(r"daily|per day|budget|quota|insufficient|exhausted|out of credits", re.I)
_PER_PAGE_WORDS = re.compile(r"per[-_ ]?page", re.I)


# --------------------------------------------------------------------------------------------- secrets

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


def _register_secret(secret: str) -> None:
    _SecretFilter.secrets.add(secret)
    for name in _FILTERED_LOGGERS:
        logger = logging.getLogger(name)
        if _SECRET_FILTER not in logger.filters:
            logger.addFilter(_SECRET_FILTER)


# --------------------------------------------------------------------------------------------- settings

def resolve_base_url(spec_value: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """``B2G_OPENALEX_URL`` beats the spec's ``source.openalex.base_url``, which beats the default."""
    env = os.environ if env is None else env
    return (env.get(ENV_BASE_URL) or spec_value or DEFAULT_BASE_URL).rstrip("/")


def resolve_api_key(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return env.get(ENV_API_KEY) or None


def _env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
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


def request_kind(path: str, params: Mapping[str, Any]) -> str:
    """Which price applies: a ``/works/{id}`` singleton, a ``search=`` page or a list/filter page."""
    if path.rstrip("/") != "/works":
        return "singleton"
    return "search" if params.get("search") else "list"


# --------------------------------------------------------------------------------------------- batching

def _encoded_len(value: str) -> int:
    return len(str(httpx.QueryParams({"x": value}))) - 2


def or_batches(values: Sequence[str], field_name: str, *, fixed_chars: int = 400,
               max_values: int = MAX_OR_VALUES, max_chars: int = MAX_URL_CHARS) -> list[list[str]]:
    """Split `values` into OR lists ``field:v1|v2|…`` of ≤ `max_values` whose whole URL stays within
    `max_chars`; `fixed_chars` is the URL's length with ``filter=field:`` but no values yet."""
    batches: list[list[str]] = []
    current: list[str] = []
    length = fixed_chars
    separator = _encoded_len("|")
    for value in values:
        extra = _encoded_len(value) + (separator if current else 0)
        if current and (len(current) >= max_values or length + extra > max_chars):
            batches.append(current)
            current, length, extra = [], fixed_chars, _encoded_len(value)
        current.append(value)
        length += extra
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class RequestPlan:
    """How many requests of each kind a fetch needs, and what they cost (an upper estimate)."""

    requests: dict[str, int]
    cost_usd: float

    @property
    def total(self) -> int:
        return sum(self.requests.values())

    def as_dict(self) -> dict[str, Any]:
        return {"requests": dict(self.requests), "total": self.total, "cost_usd": round(self.cost_usd, 6)}


def estimate_cost(by_kind: Mapping[str, int]) -> float:
    return sum(PRICES_USD.get(kind, 0.0) * n for kind, n in by_kind.items())


def _count_or_values(values: int | Sequence[str], field_name: str, typical: str, fixed_chars: int) -> int:
    sample = [typical] * values if isinstance(values, int) else list(values)
    return len(or_batches(sample, field_name, fixed_chars=fixed_chars))


def plan_requests(*, ids: int | Sequence[str] = 0, dois: int | Sequence[str] = 0, pmids: int | Sequence[str] = 0,
                  searches: Sequence[int] = (), cited: int | Sequence[str] = 0, citing_works: int = 0,
                  singletons: int = 0, per_page: int = 100, fixed_chars: int = 400) -> RequestPlan:
    """Requests and cost of a fetch, without any HTTP: pure arithmetic on the client's own batching.

    `ids`/`dois`/`pmids`/`cited` are counts or the actual values (exact batching); `searches` the
    ``max_results`` of each query; `citing_works` the expected number of citing works (e.g. the sum
    of the cited works' ``cited_by_count``, an upper bound); `singletons` the expected misses
    (free). Look-up batches of ≤ 100 values fit one page when ``per_page ≥ 100``.
    """
    per_batch_pages = max(1, math.ceil(MAX_OR_VALUES / per_page))
    n_list = per_batch_pages * (_count_or_values(ids, "openalex", "W4200000000", fixed_chars)
                                + _count_or_values(dois, "doi", "10.1234/abcd.2020.01.002", fixed_chars)
                                + _count_or_values(pmids, "ids.pmid", "31234567", fixed_chars))
    cited_batches = _count_or_values(cited, "cites", "W4200000000", fixed_chars)
    n_list += cited_batches + (math.ceil(citing_works / per_page) if citing_works else 0)
    n_search = sum(max(1, math.ceil(m / per_page)) for m in searches)
    requests = {"list": n_list, "search": n_search, "singleton": int(singletons)}
    return RequestPlan(requests=requests, cost_usd=estimate_cost(requests))


# --------------------------------------------------------------------------------------------- pacing

class RateLimiter:
    """One pace for every thread of a client: request starts spaced by ``1/rate`` seconds, and a
    shared pause (after a 429's Retry-After) that holds back all threads, not only the one told."""

    def __init__(self, rate: float | None = None, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)

    def pause(self, seconds: float) -> None:
        with self._lock:
            self._next = max(self._next, self._clock() + max(0.0, seconds))


# --------------------------------------------------------------------------------------------- results

class Lookup(dict):
    """``{requested id or DOI: work}``, plus what could not be had directly.

    ``missing``: requested IDs/DOIs OpenAlex answered 404 for (dangling references, not errors);
    ``merged``: ``{old id: new id}`` for works OpenAlex merged (301), whose value is the new work.
    """

    def __init__(self) -> None:
        super().__init__()
        self.missing: list[str] = []
        self.merged: dict[str, str] = {}


@dataclass
class _Fault:
    code: str
    subcode: str
    message: str
    retry_after: float | None = None


@dataclass
class _Stats:
    by_kind: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    from_store: int = 0
    attempts: int = 0
    retries: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    reported_cost_usd: float = 0.0
    rate_limit: dict[str, str] = field(default_factory=dict)
    per_page_fallbacks: int = 0
    unattributed: int = 0


def _header_number(headers: Mapping[str, str], name: str) -> float | None:
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
    remaining = _header_number(headers, "x-ratelimit-remaining")
    required = _header_number(headers, "x-ratelimit-credits-required")
    remaining_usd = _header_number(headers, "x-ratelimit-remaining-usd")
    required_usd = _header_number(headers, "x-ratelimit-cost-required-usd")
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
    reset = _header_number(headers, "x-ratelimit-reset")
    return {"budget": budget, "resets_in_seconds": int(reset) if reset is not None else None,
            "remaining": remaining, "credits_required": required, "remaining_usd": remaining_usd}


def _fatal(message: str, **kwargs: Any) -> UpstreamRefused:
    """A NetworkError that retrying cannot cure (exit 4, retryable False)."""
    return UpstreamRefused(message, **kwargs)


def _nat_key(work_id: str) -> tuple[int, str]:
    return (int(work_id[1:]) if work_id[1:].isdecimal() else -1, work_id)


# --------------------------------------------------------------------------------------------- client

class OpenAlexClient:
    """Batched, stored, fault-tolerant access to OpenAlex ``/works``.

    All public look-ups take IDs in any form (``W1``, ``https://openalex.org/W1``) and answer with
    short IDs as keys and the raw Work objects (as OpenAlex sent them, ``select``-narrowed) as values.
    """

    def __init__(self, base_url: str | None = None, *, api_key: str | None = None, per_page: int = 100,
                 timeout: float = 30.0, max_retries: int = 6, store: RawStore | None = None,
                 max_workers: int = 4, rate_limit: float | None = 10.0,
                 sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None,
                 backoff_base: float = 0.5, backoff_cap: float = 60.0, max_retry_after: float = 600.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key or None
        if self._api_key:
            _register_secret(self._api_key)
        self.per_page = int(per_page)
        self.max_retries = int(max_retries)
        self.max_workers = max(1, int(max_workers))
        self.store = store
        self._sleep = sleep
        self._rng = rng or random.Random(0)
        self._backoff = (backoff_base, backoff_cap, max_retry_after)
        self._limiter = RateLimiter(rate_limit, sleep=sleep)
        self._stats = _Stats()
        self._lock = threading.Lock()
        self._http = httpx.Client(base_url=self.base_url, timeout=httpx.Timeout(timeout),
                                  follow_redirects=False, transport=transport,
                                  headers={"User-Agent": f"bib2graph/{__version__}", "Accept": "application/json"},
                                  limits=httpx.Limits(max_connections=self.max_workers + 2))
        self._pool: ThreadPoolExecutor | None = None

    @classmethod
    def from_settings(cls, openalex: Mapping[str, Any] | None = None, *, env: Mapping[str, str] | None = None,
                      **kwargs: Any) -> "OpenAlexClient":
        """A client from the spec's ``source.openalex`` block and the environment (URL override, key)."""
        openalex = openalex or {}
        env = os.environ if env is None else env
        kwargs.setdefault("per_page", openalex.get("per_page", 100))
        kwargs.setdefault("api_key", resolve_api_key(env))
        base = _env_seconds(env, ENV_BACKOFF, 0.5)
        kwargs.setdefault("backoff_base", base)
        kwargs.setdefault("backoff_cap", 120 * base)
        kwargs.setdefault("rate_limit", _env_seconds(env, ENV_RATE, 10.0) or None)
        return cls(resolve_base_url(openalex.get("base_url"), env), **kwargs)

    def __repr__(self) -> str:
        return f"OpenAlexClient(base_url={self.base_url!r}, api_key={'set' if self._api_key else 'unset'})"

    @property
    def has_api_key(self) -> bool:
        return self._api_key is not None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._http.close()

    def __enter__(self) -> "OpenAlexClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------------------------- statistics

    @property
    def stats(self) -> dict[str, Any]:
        """Requests sent (answered, by kind), answers reused from the store, attempts, retries, faults
        seen by subcode, the estimated cost of what was sent (stored answers cost nothing), the last
        X-RateLimit-* headers, and citing works that could not be attributed (data inconsistency)."""
        with self._lock:
            s = self._stats
            return {"requests": sum(s.by_kind.values()), "by_kind": dict(s.by_kind), "from_store": s.from_store,
                    "attempts": s.attempts, "retries": s.retries, "faults": dict(s.faults),
                    "cost_usd": round(estimate_cost(s.by_kind), 6),
                    "reported_cost_usd": round(s.reported_cost_usd, 6), "rate_limit": dict(s.rate_limit),
                    "per_page_fallbacks": s.per_page_fallbacks, "unattributed": s.unattributed}

    def _count(self, **changes: Any) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(self._stats, name, getattr(self._stats, name) + value)

    # ----------------------------------------------------------------------------------- transport

    def _call(self, path: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """One request through the store: a stored answer is reused, a new one stored before use."""
        request = ApiRequest.make(path, params)
        if self.store is not None:
            entry = self.store.get(request)
            if entry is not None:
                self._count(from_store=1)
                return entry
        status, headers, body = self._send(request, request_kind(path, params))
        if self.store is not None:
            return self.store.put(request, status, headers, body)
        return {"request": request.as_dict(), "status": status, "headers": kept_headers(headers), "body": body}

    def _send(self, request: ApiRequest, kind: str) -> tuple[int, httpx.Headers, Any]:
        """Send `request` until it gets a definitive answer (see the module table); raise otherwise."""
        params = list(request.params) + ([("api_key", self._api_key)] if self._api_key else [])
        fault = _Fault("UPSTREAM_ERROR", "NOT_SENT", "was not asked")
        for attempt in range(self.max_retries + 1):
            self._limiter.acquire()
            self._count(attempts=1)
            try:
                response = self._http.get(request.path, params=params)
            except httpx.TimeoutException:
                fault = _Fault("UPSTREAM_TIMEOUT", "TIMEOUT", "did not answer in time")
            except httpx.ConnectError:
                fault = _Fault("UPSTREAM_ERROR", "CONNECT_FAILED", "could not be reached")
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError):
                fault = _Fault("UPSTREAM_ERROR", "CONNECTION_DROPPED", "dropped the connection")
            except httpx.TransportError as exc:
                fault = _Fault("UPSTREAM_ERROR", "TRANSPORT", f"failed ({type(exc).__name__})")
            else:
                outcome = self._classify(response, request)
                if not isinstance(outcome, _Fault):
                    with self._lock:
                        self._stats.by_kind[kind] += 1
                    return outcome
                fault = outcome
            self._note_fault(fault, request)
            if attempt < self.max_retries:
                self._count(retries=1)
                self._wait(attempt, fault)
        raise NetworkError(f"OpenAlex {fault.message} after {self.max_retries + 1} attempts: {request.describe()}",
                           code=fault.code, subcode=fault.subcode,
                           details={"attempts": self.max_retries + 1, "request": request.describe()})

    def _note_fault(self, fault: _Fault, request: ApiRequest) -> None:
        with self._lock:
            self._stats.faults[fault.subcode] = self._stats.faults.get(fault.subcode, 0) + 1
        log.debug("OpenAlex %s (%s): %s", fault.message, fault.subcode, request.describe())

    def _wait(self, attempt: int, fault: _Fault) -> None:
        """Retry-After (and any 429) pauses every thread; other faults back off this thread only."""
        base, cap, max_retry_after = self._backoff
        if fault.retry_after is not None:
            if fault.retry_after > max_retry_after:
                raise NetworkError(f"OpenAlex asks to wait {fault.retry_after:.0f} s before retrying",
                                   code="RATE_LIMITED", subcode=fault.subcode,
                                   details={"retry_after_seconds": fault.retry_after})
            self._limiter.pause(fault.retry_after)
            return
        delay = min(cap, base * 2 ** attempt) * (0.5 + 0.5 * self._rng.random())
        if fault.code == "RATE_LIMITED":
            self._limiter.pause(delay)
        else:
            self._sleep(delay)

    def _classify(self, response: httpx.Response, request: ApiRequest) -> tuple[int, httpx.Headers, Any] | _Fault:
        """A definitive (status, headers, body), or a retryable fault; raises what must not be retried."""
        status, headers, raw = response.status_code, response.headers, response.content
        if self._api_key and self._api_key.encode() in raw:  # an error page echoing the query
            raw = raw.replace(self._api_key.encode(), b"***")
        self._note_rate_headers(headers)
        body = _parse_json(raw)
        if status == 200:
            if body is _INVALID:
                return _Fault("UPSTREAM_ERROR", "INVALID_JSON", "sent an incomplete or invalid JSON body")
            if not _well_formed(request.path, body):
                return _Fault("UPSTREAM_ERROR", "INVALID_BODY", "sent a body without results")
            return status, headers, body
        body = None if body is _INVALID else body
        if status in (301, 302, 307, 308, 404, 400):
            return status, headers, body
        if status in (429, 403):
            spent = budget_exhausted(headers, body)
            if spent is not None:
                raise self._budget_error(spent, request)
        if status == 429:
            return _Fault("RATE_LIMITED", "HTTP_429", "throttled the requests", _retry_after(headers))
        if status in (401, 403):
            raise _fatal(f"OpenAlex refused the request (HTTP {status}: {_error_text(body, raw)}); "
                         f"check {ENV_API_KEY}", code="ACCESS_DENIED", subcode=f"HTTP_{status}",
                         details={"status": status, "request": request.describe()})
        if status >= 500:
            return _Fault("UPSTREAM_ERROR", f"HTTP_{status}", f"failed (HTTP {status})", _retry_after(headers))
        raise _fatal(f"OpenAlex rejected {request.describe()} (HTTP {status}: {_error_text(body, raw)})",
                     code="UPSTREAM_REJECTED", subcode=f"HTTP_{status}", details={"status": status})

    def _note_rate_headers(self, headers: httpx.Headers) -> None:
        rate = {k: v for k, v in headers.items() if k.lower().startswith("x-ratelimit-")}
        cost = _header_number(headers, "x-ratelimit-cost-usd")
        with self._lock:
            if rate:
                self._stats.rate_limit = dict(sorted(rate.items()))
            if cost:
                self._stats.reported_cost_usd += cost

    @staticmethod
    def _budget_error(spent: dict[str, Any], request: ApiRequest) -> NetworkError:
        reset = spent["resets_in_seconds"]
        when = f"resets in {reset} s (~{reset / 3600:.1f} h)" if reset is not None else "reset time unknown"
        return _fatal(f"the OpenAlex daily budget is used up ({spent['budget']}); it {when}. "
                      f"Stored answers are kept: re-run after the reset to resume.",
                      code="BUDGET_EXHAUSTED", subcode=f"RESETS_IN_{reset}S" if reset is not None else "RESET_UNKNOWN",
                      details={**spent, "request": request.describe()})

    # ----------------------------------------------------------------------------------- interpreting

    def _body_or_raise(self, entry: dict[str, Any]) -> Any:
        """The body of a 200; a 400 becomes a DataError quoting OpenAlex."""
        status, body = entry["status"], entry.get("body")
        request = ApiRequest.make(entry["request"]["path"], entry["request"]["params"])
        if status == 200:
            return body
        if status == 400:
            text = _error_text(body, b"")
            raise DataError(f"OpenAlex rejected the query {request.describe()}: {text}",
                            code="OPENALEX_BAD_REQUEST",
                            details={"status": 400, "openalex_message": text, "request": request.describe()})
        raise _fatal(f"OpenAlex answered HTTP {status} to {request.describe()}", code="UPSTREAM_UNEXPECTED",
                     subcode=f"HTTP_{status}", details={"status": status})

    def _pages(self, params: dict[str, Any], max_results: int | None = None) -> list[dict[str, Any]]:
        """All results of one list query, walked by cursor; stops without asking for an empty page."""
        results: list[dict[str, Any]] = []
        cursor = "*"
        while True:
            per_page = min(self.per_page, max_results) if max_results else self.per_page
            try:
                body = self._body_or_raise(self._call("/works", {**params, "per_page": per_page,
                                                                 "cursor": cursor}))
            except DataError as exc:
                if per_page > 100 and _PER_PAGE_WORDS.search(exc.message):
                    self.per_page = 100  # newer OpenAlex docs cap pages at 100: fall back once
                    self._count(per_page_fallbacks=1)
                    continue
                raise
            page, meta = body["results"], body.get("meta") or {}
            results.extend(page)
            next_cursor = meta.get("next_cursor")
            count = meta.get("count")
            full = isinstance(count, int) and count < 10_000 and len(results) >= count  # exact below 10k
            short = len(page) < (meta.get("per_page") or per_page)
            if not page or not next_cursor or full or short or (max_results and len(results) >= max_results):
                return results[:max_results] if max_results else results
            cursor = next_cursor

    def _map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        """Run `fn` over `items` on the bounded pool; the first failure cancels what has not started."""
        if self.max_workers == 1 or len(items) <= 1:
            return [fn(item) for item in items]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="openalex")
        futures = [self._pool.submit(fn, item) for item in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            for f in futures:
                if not f.cancelled():
                    f.exception()  # let running requests finish (and be stored) before raising
            raise

    def _fixed_chars(self, field_name: str) -> int:
        params = {"select": ",".join(SELECT_FIELDS), "per_page": self.per_page, "cursor": "*",
                  "filter": f"{field_name}:", "api_key": self._api_key or ""}
        return len(str(httpx.URL(self.base_url + "/works", params=params)))

    def _batches(self, values: list[str], field_name: str) -> list[list[str]]:
        return or_batches(values, field_name, fixed_chars=self._fixed_chars(field_name))

    # ----------------------------------------------------------------------------------- singletons

    def _single(self, ref: str) -> dict[str, Any] | None:
        """The work at ``/works/{ref}``, following merges (301 → Location); None for a 404."""
        path = f"/works/{quote(ref, safe='/:')}"
        for _ in range(_MAX_REDIRECTS + 1):
            entry = self._call(path, {"select": ",".join(SELECT_FIELDS)})
            if entry["status"] == 404:
                return None
            if entry["status"] not in (301, 302, 307, 308):
                return self._body_or_raise(entry)
            location = (entry.get("headers") or {}).get("location") or ""
            target = short_id(urlsplit(location).path.rstrip("/").rsplit("/", 1)[-1])
            if not target or not _WORK_ID.match(target):
                break
            path = f"/works/{target}"
        raise _fatal(f"OpenAlex redirected /works/{ref} without end or to nowhere", code="UPSTREAM_UNEXPECTED",
                     subcode="BAD_REDIRECT")

    def _fill_singly(self, lookup: Lookup, absent: list[str], singleton_ref: Callable[[str], str],
                     record_merges: bool) -> None:
        """Ask singly (free) for what a batch did not return: found, merged (301) or missing (404)."""
        for wanted, work in zip(absent, self._map(lambda w: self._single(singleton_ref(w)), absent)):
            if work is None:
                lookup.missing.append(wanted)
                continue
            lookup[wanted] = work
            new_id = short_id(work.get("id"))
            if record_merges and new_id and new_id != wanted:
                lookup.merged[wanted] = new_id

    # ----------------------------------------------------------------------------------- public API

    def works_by_ids(self, ids: Iterable[str]) -> Lookup:
        """The works for `ids`, OR-batched ``openalex:`` (≤ 100 a request); misses asked singly."""
        wanted = _work_ids(ids)
        found: dict[str, dict[str, Any]] = {}
        for page in self._map(lambda b: self._pages(_filter_params("openalex", b)), self._batches(wanted, "openalex")):
            for work in page:
                found.setdefault(short_id(work.get("id")) or "", work)
        lookup = Lookup()
        lookup.update((w, found[w]) for w in wanted if w in found)
        self._fill_singly(lookup, [w for w in wanted if w not in found], lambda w: w, record_merges=True)
        return _ordered(lookup, wanted)

    def works_by_dois(self, dois: Iterable[str]) -> Lookup:
        """The works for `dois` (keys: bare lower-case DOIs), OR-batched ``doi:``; URL length decides the
        batch size. DOIs holding ``,`` or ``|`` (OpenAlex's separators) are asked singly."""
        wanted = _dois(dois)
        batchable = [d for d in wanted if "," not in d and "|" not in d]
        found: dict[str, dict[str, Any]] = {}
        for page in self._map(lambda b: self._pages(_filter_params("doi", b)), self._batches(batchable, "doi")):
            for work in sorted(page, key=lambda w: _nat_key(short_id(w.get("id")) or "")):
                found.setdefault(normalize_doi(work.get("doi")) or "", work)
        lookup = Lookup()
        lookup.update((d, found[d]) for d in wanted if d in found)
        self._fill_singly(lookup, [d for d in wanted if d not in found], lambda d: f"doi:{d}", record_merges=False)
        return _ordered(lookup, wanted)

    def works_by_pmids(self, pmids: Iterable[str]) -> Lookup:
        """The works for `pmids` (keys: PMID digits), OR-batched ``ids.pmid:``; misses asked singly
        (``/works/pmid:N``)."""
        wanted = _checked(pmids, normalize_pmid, "PubMed IDs")
        found: dict[str, dict[str, Any]] = {}
        for page in self._map(lambda b: self._pages(_filter_params("ids.pmid", b)), self._batches(wanted, "ids.pmid")):
            for work in sorted(page, key=lambda w: _nat_key(short_id(w.get("id")) or "")):
                ids = work.get("ids") if isinstance(work.get("ids"), dict) else {}
                found.setdefault(normalize_pmid(ids.get("pmid")) or "", work)
        lookup = Lookup()
        lookup.update((p, found[p]) for p in wanted if p in found)
        self._fill_singly(lookup, [p for p in wanted if p not in found], lambda p: f"pmid:{p}", record_merges=False)
        return _ordered(lookup, wanted)

    def citing(self, ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """The works citing each of `ids`, via batched ``cites:`` queries; each citing work is attributed
        to the cited IDs through its own ``referenced_works`` (no extra requests). Lists by ID order."""
        wanted = _work_ids(ids)
        batches = self._batches(wanted, "cites")
        result: dict[str, dict[str, dict[str, Any]]] = {w: {} for w in wanted}
        for batch, page in zip(batches, self._map(lambda b: self._pages(_filter_params("cites", b)), batches)):
            members = set(batch)
            for work in page:
                work_id = short_id(work.get("id")) or ""
                cited = {short_id(r) for r in work.get("referenced_works") or []} & members
                for ref in cited:
                    result[ref].setdefault(work_id, work)
                if not cited:  # OpenAlex said it cites the batch, its reference list disagrees
                    self._count(unattributed=1)
        return {w: [c[k] for k in sorted(c, key=_nat_key)] for w, c in result.items()}

    def search(self, query: str, max_results: int = 200) -> list[dict[str, Any]]:
        """Works matching ``search=query`` in OpenAlex's order, at most `max_results` (cursor paging)."""
        if not query or not query.strip():
            raise DataError("an empty OpenAlex search query", code="OPENALEX_BAD_REQUEST")
        return self._pages({"search": query, "select": ",".join(SELECT_FIELDS)}, max_results=max(1, int(max_results)))

    def filter_works(self, filter_expr: str, *, max_results: int | None = None) -> list[dict[str, Any]]:
        """Works matching a raw OpenAlex ``filter=`` expression (e.g. a spec's own filter), cursor-paged."""
        return self._pages({"filter": filter_expr, "select": ",".join(SELECT_FIELDS)}, max_results=max_results)


# --------------------------------------------------------------------------------------------- helpers

_INVALID = object()


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


def _filter_params(field_name: str, values: list[str]) -> dict[str, Any]:
    return {"filter": f"{field_name}:{'|'.join(values)}", "select": ",".join(SELECT_FIELDS)}


def _checked(values: Iterable[str], form, what: str) -> list[str]:
    """`form(value)` of each value, de-duplicated in first-seen order; values it rejects are a DataError."""
    wanted: list[str] = []
    bad: list[str] = []
    for raw in values:
        value = form(raw)
        (wanted if value else bad).append(value if value else str(raw))
    if bad:
        raise DataError(f"not {what}: {', '.join(bad[:5])}" + (" …" if len(bad) > 5 else ""),
                        code="OPENALEX_BAD_ID", details={"invalid": bad})
    return list(dict.fromkeys(wanted))


def _work_ids(ids: Iterable[str]) -> list[str]:
    """Short, de-duplicated work IDs in first-seen order; anything else is a DataError."""
    return _checked(ids, lambda raw: (short_id(raw) or "") if _WORK_ID.match(short_id(raw) or "") else None,
                    "OpenAlex work IDs")


def _dois(dois: Iterable[str]) -> list[str]:
    return _checked(dois, normalize_doi, "DOIs")


def _ordered(lookup: Lookup, wanted: list[str]) -> Lookup:
    """The same look-up with keys and `missing` in the order asked (threads finish in any order)."""
    out = Lookup()
    out.update((w, lookup[w]) for w in wanted if w in lookup)
    rank = {w: i for i, w in enumerate(wanted)}
    out.missing = sorted(set(lookup.missing), key=rank.__getitem__)
    out.merged = {w: lookup.merged[w] for w in wanted if w in lookup.merged}
    return out


__all__ = ["DEFAULT_BASE_URL", "ENV_API_KEY", "ENV_BASE_URL", "KINDS", "Lookup", "MAX_OR_VALUES", "MAX_URL_CHARS",
           "OpenAlexClient", "PRICES_USD", "RateLimiter", "RequestPlan", "SELECT_FIELDS", "budget_exhausted",
           "estimate_cost", "or_batches", "plan_requests", "request_kind", "resolve_api_key", "resolve_base_url",
           "scrub_url"]
