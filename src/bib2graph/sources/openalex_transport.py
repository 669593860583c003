"""One OpenAlex request's way to a definitive answer: the store first, then HTTP, paced and retried.

Every answer goes to the RawStore before anything reads it; a stored answer is never asked again.
Requests start at a shared pace (`RateLimiter`); a fault (openalex_responses.py says which answers are
faults) is retried with exponential backoff with "equal jitter" (``base·2^attempt`` scaled by a seeded
factor in [0.5, 1], capped), and a Retry-After or a 429 pauses every thread, not only the one told.
``sleep`` and ``rng`` are injectable so tests never really wait. The transport also counts what it did
(`stats`) and runs look-ups on a bounded thread pool (`_map`); openalex.py's client asks through it.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import httpx

from .. import __version__
from ..errors import NetworkError
from .openalex_cost import KINDS, estimate_cost, request_kind
from .openalex_responses import Answer, Fault, classify, header_number
from .openalex_settings import DEFAULT_BASE_URL, register_secret
from .store import ApiRequest, RawStore, kept_headers

log = logging.getLogger("bib2graph.openalex")


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


class OpenAlexTransport:
    """Stored, paced, retried requests to one OpenAlex base URL, and the count of what they cost."""

    def __init__(self, base_url: str | None = None, *, api_key: str | None = None, timeout: float = 30.0,
                 max_retries: int = 6, store: RawStore | None = None, max_workers: int = 4,
                 rate_limit: float | None = 10.0, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None, backoff_base: float = 0.5, backoff_cap: float = 60.0,
                 max_retry_after: float = 600.0, transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key or None
        if self._api_key:
            register_secret(self._api_key)
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
        self._stopping = threading.Event()   # set while `_map` waits for its running calls after a failure

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, api_key={'set' if self._api_key else 'unset'})"

    @property
    def has_api_key(self) -> bool:
        return self._api_key is not None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._http.close()

    def __enter__(self):
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

    # ----------------------------------------------------------------------------------- requests

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

    def _send(self, request: ApiRequest, kind: str) -> Answer:
        """Send `request` until it gets a definitive answer (openalex_responses.py); raise otherwise."""
        params = list(request.params) + ([("api_key", self._api_key)] if self._api_key else [])
        fault = Fault("UPSTREAM_ERROR", "NOT_SENT", "was not asked")
        for attempt in range(self.max_retries + 1):
            if self._stopping.is_set():   # another call failed or the caller's deadline passed: ask no more
                raise _Stopped(request.describe())
            self._limiter.acquire()
            self._count(attempts=1)
            try:
                response = self._http.get(request.path, params=params)
            except httpx.TimeoutException:
                fault = Fault("UPSTREAM_TIMEOUT", "TIMEOUT", "did not answer in time")
            except httpx.ConnectError:
                fault = Fault("UPSTREAM_ERROR", "CONNECT_FAILED", "could not be reached")
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError):
                fault = Fault("UPSTREAM_ERROR", "CONNECTION_DROPPED", "dropped the connection")
            except httpx.TransportError as exc:
                fault = Fault("UPSTREAM_ERROR", "TRANSPORT", f"failed ({type(exc).__name__})")
            else:
                self._note_rate_headers(response.headers)
                outcome = classify(response, request, self._api_key)
                if not isinstance(outcome, Fault):
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

    def _note_fault(self, fault: Fault, request: ApiRequest) -> None:
        with self._lock:
            self._stats.faults[fault.subcode] = self._stats.faults.get(fault.subcode, 0) + 1
        log.debug("OpenAlex %s (%s): %s", fault.message, fault.subcode, request.describe())

    def _wait(self, attempt: int, fault: Fault) -> None:
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

    def _note_rate_headers(self, headers: httpx.Headers) -> None:
        rate = {k: v for k, v in headers.items() if k.lower().startswith("x-ratelimit-")}
        cost = header_number(headers, "x-ratelimit-cost-usd")
        with self._lock:
            if rate:
                self._stats.rate_limit = dict(sorted(rate.items()))
            if cost:
                self._stats.reported_cost_usd += cost

    def _map(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        """Run `fn` over `items` on the bounded pool; results and the first failure in item order. A
        failure (or an exception raised in the waiting thread: a deadline's, a Ctrl-C) cancels what has
        not started, and the running calls send no further request: each ends with the request it is
        waiting on (stored), so the caller hears of it within one request's time, not after every page
        and retry of the running calls."""
        if self.max_workers == 1 or len(items) <= 1:
            return [fn(item) for item in items]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="openalex")
        futures = [self._pool.submit(fn, item) for item in items]
        try:
            return [f.result() for f in futures]    # in item order: the error raised is the same every run
        except BaseException:
            self._stopping.set()
            try:
                for f in futures:
                    f.cancel()
                for f in futures:
                    if not f.cancelled():
                        f.exception()  # let the requests on the wire finish (and be stored) before raising
            finally:
                self._stopping.clear()
            raise


class _Stopped(Exception):
    """A pooled call told to send no more requests (`OpenAlexTransport._map`); never seen by callers."""
