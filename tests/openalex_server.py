"""A loopback stand-in for the OpenAlex API, serving real works from SYNERGY zips, with switchable faults.

It speaks the subset of ``/works`` that bib2graph's client uses, the way OpenAlex does:

- ``/works?filter=…`` with ``openalex`` / ``ids.openalex`` / ``doi`` / ``ids.pmid`` (``pmid``) / ``cites`` / ``cited_by``
  (``|`` ORs values, at most 100; ``,`` ANDs filters), ``search=`` (case-insensitive substring of
  title + abstract), ``select=`` (current top-level fields only: ``host_venue`` is refused),
  ``per_page``/``per-page`` (1–200, configurable cap), ``cursor`` (opaque, stable) and ``page``
  (≤ 10,000 results), ``sort``; ``meta`` with ``count``, ``per_page``, ``page``, ``next_cursor``
  (null only once a page comes back empty, as OpenAlex does);
- ``/works/{id}``, ``/works/doi:{doi}`` and ``/works/pmid:{pmid}``: 404 for the unknown, 301 with ``Location`` (echoing the
  query string, key included, as real redirects do) for a configured merged-id map;
- ``X-RateLimit-*`` headers on every response, an optional daily credit budget (list 1 credit,
  search 10, singleton 0), and 400s with an OpenAlex-like ``{"error", "message"}`` body.

Faults (``server.faults``): per-request probabilities drawn from a seeded RNG, or "the next N
requests": ``throttle`` (429 + Retry-After), ``budget`` (429, Remaining 0), ``error500``,
``error503``, ``slow`` (answer after ``slow_seconds``), ``drop`` (close the socket, no response),
``truncate`` (full Content-Length, half the body, close) and ``invalid_json`` (half the body as a
complete response). Every request is logged (path and params, never the key) for counting.

Run standalone for integration tests and benchmarks::

    python tests/openalex_server.py --works ../shared/data/synergy/Sep_2021/works_1.zip --port 8765
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import re
import socket
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import abstract_from_index, normalize_doi, short_id, work_pmid

FAULT_KINDS = ("throttle", "budget", "error500", "error503", "slow", "drop", "truncate", "invalid_json")
FILTERS = ("openalex", "ids.openalex", "doi", "ids.pmid", "pmid", "cites", "cited_by")
PARAMS = {"filter", "search", "select", "per_page", "per-page", "cursor", "page", "sort", "api_key", "mailto",
          "seed", "sample"}
#: Top-level Work fields the current API lets one select (no host_venue: it was removed).
SELECTABLE = {"id", "doi", "title", "display_name", "publication_year", "publication_date", "ids", "language",
              "primary_location", "type", "type_crossref", "indexed_in", "open_access", "authorships",
              "institution_assertions", "countries_distinct_count", "institutions_distinct_count",
              "corresponding_author_ids", "corresponding_institution_ids", "apc_list", "apc_paid", "fwci",
              "has_fulltext", "fulltext_origin", "cited_by_count", "citation_normalized_percentile",
              "cited_by_percentile_year", "biblio", "is_retracted", "is_paratext", "primary_topic", "topics",
              "keywords", "concepts", "mesh", "locations_count", "locations", "best_oa_location",
              "sustainable_development_goals", "grants", "funders", "awards", "datasets", "versions",
              "referenced_works_count", "referenced_works", "related_works", "abstract_inverted_index",
              "counts_by_year", "updated_date", "created_date", "is_xpac", "has_content"}
SORTABLE = {"publication_date", "publication_year", "cited_by_count", "display_name", "relevance_score"}
MAX_OR = 100
MAX_URL = 4096
CREDITS = {"list": 1, "search": 10, "singleton": 0}
USD_PER_CREDIT = 0.0001


class BadRequest(Exception):
    """A query OpenAlex would answer with 400."""


def _url(work_id: str) -> str:
    return f"https://openalex.org/{work_id}"


# ------------------------------------------------------------------------------------------ universe

class Universe:
    """Works indexed by short ID, DOI and citation, in a stable order; safe to grow while serving."""

    def __init__(self, works: Iterable[dict[str, Any]] = (), *, stub_references: bool = False) -> None:
        self.stub_references = stub_references
        self.works: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.by_doi: dict[str, list[str]] = {}
        self.by_pmid: dict[str, list[str]] = {}
        self.citers: dict[str, set[str]] = {}
        self.text: dict[str, str] = {}
        self.lock = threading.RLock()
        self.add(works)

    def add(self, works: Iterable[dict[str, Any]]) -> list[str]:
        """Add works (first copy of an ID wins); returns the IDs added."""
        added = []
        with self.lock:
            for work in works:
                wid = short_id(work.get("id"))
                if not wid or wid in self.works:
                    continue
                self.works[wid] = work
                self.order.append(wid)
                added.append(wid)
                doi = normalize_doi(work.get("doi"))
                if doi:
                    self.by_doi.setdefault(doi, []).append(wid)
                if work_pmid(work):
                    self.by_pmid.setdefault(work_pmid(work), []).append(wid)
                for ref in work.get("referenced_works") or []:
                    self.citers.setdefault(short_id(ref) or "", set()).add(wid)
                self.text[wid] = " ".join(filter(None, [work.get("title") or work.get("display_name") or "",
                                                        abstract_from_index(work.get("abstract_inverted_index"))
                                                        or ""])).lower()
        return added

    def get(self, wid: str) -> dict[str, Any] | None:
        with self.lock:
            work = self.works.get(wid)
            if work is None and self.stub_references and wid in self.citers:
                work = {"id": _url(wid), "doi": None, "title": None, "display_name": None,
                        "referenced_works": [], "cited_by_count": len(self.citers[wid])}
            return work

    def snapshot(self) -> list[str]:
        with self.lock:
            return list(self.order)


def load_works(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    works: list[dict[str, Any]] = []
    for path in paths:
        works.extend(read_work_objects(path))
    return works


# ------------------------------------------------------------------------------------------ faults

class Faults:
    """Switchable faults: ``set(kind, p)`` per request (seeded RNG) or ``next(kind, n)``; thread-safe."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._prob: dict[str, float] = {}
        self._queue: list[str] = []
        self._lock = threading.Lock()
        self.injected: Counter[str] = Counter()
        self.max_streak: int | None = None       # random faults in a row for one request, at most
        self._streak: Counter[str] = Counter()

    def set(self, kind: str, probability: float) -> "Faults":
        self._check(kind)
        with self._lock:
            self._prob[kind] = float(probability)
        return self

    def next(self, kind: str, n: int = 1) -> "Faults":
        self._check(kind)
        with self._lock:
            self._queue.extend([kind] * n)
        return self

    def clear(self) -> None:
        with self._lock:
            self._prob.clear()
            self._queue.clear()

    def draw(self, request: str = "") -> str | None:
        """The fault for this request, if any. With `max_streak`, a request that failed that many times in a
        row gets no random fault: a client retrying more often than that must then succeed, whatever order
        concurrent requests draw in (probabilities alone make a long enough run fail by chance)."""
        with self._lock:
            if self._queue:
                kind = self._queue.pop(0)
            elif self.max_streak is not None and self._streak[request] >= self.max_streak:
                kind = None
            else:
                kind = None
                roll = self._rng.random()
                for name in FAULT_KINDS:
                    p = self._prob.get(name, 0.0)
                    if roll < p:
                        kind = name
                        break
                    roll -= p
            if kind:
                self.injected[kind] += 1
                self._streak[request] += 1
            else:
                self._streak.pop(request, None)
            return kind

    @staticmethod
    def _check(kind: str) -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; known: {', '.join(FAULT_KINDS)}")


# ------------------------------------------------------------------------------------------ the API

class OpenAlexAPI:
    """The request logic, free of sockets: (path, params) → (status, headers, body)."""

    def __init__(self, universe: Universe, *, merged: dict[str, str] | None = None, max_per_page: int = 200,
                 budget: int | None = None, reset_seconds: int = 43_200) -> None:
        self.universe = universe
        self.merged = {short_id(k): short_id(v) for k, v in (merged or {}).items()}
        self.max_per_page = max_per_page
        self.budget = budget
        self.reset_seconds = reset_seconds
        self.used = 0
        self._lock = threading.Lock()

    # -- budget and headers

    def rate_headers(self, credits: int) -> dict[str, str]:
        limit = self.budget if self.budget is not None else 100_000
        remaining = max(0, limit - self.used)
        return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(self.reset_seconds), "X-RateLimit-Credits-Used": str(credits),
                "X-RateLimit-Limit-USD": f"{limit * USD_PER_CREDIT:.4f}",
                "X-RateLimit-Remaining-USD": f"{remaining * USD_PER_CREDIT:.4f}",
                "X-RateLimit-Cost-USD": f"{credits * USD_PER_CREDIT:.4f}"}

    def charge(self, kind: str) -> tuple[bool, dict[str, str]]:
        """Spend the credits of one request; (False, headers) when the daily budget cannot pay."""
        cost = CREDITS[kind]
        with self._lock:
            if self.budget is not None and cost and self.used + cost > self.budget:
                headers = self.rate_headers(0)
                headers["X-RateLimit-Credits-Required"] = str(cost)
                return False, headers
            self.used += cost
            return True, self.rate_headers(cost)

    # -- routing

    @staticmethod
    def kind(path: str, params: dict[str, str]) -> str:
        if path.rstrip("/") != "/works":
            return "singleton"
        return "search" if params.get("search") else "list"

    def handle(self, path: str, params: dict[str, str], query: str) -> tuple[int, dict[str, str], Any]:
        try:
            if path.rstrip("/") == "/works":
                return 200, {}, self.list_works(params)
            if path.startswith("/works/"):
                return self.single(unquote(path[len("/works/"):]), params, query)
            return 404, {}, {"error": "Not Found", "message": f"no such endpoint {path}"}
        except BadRequest as exc:
            return 400, {}, {"error": "Invalid query parameters error.", "message": str(exc)}

    def single(self, ref: str, params: dict[str, str], query: str) -> tuple[int, dict[str, str], Any]:
        select = self._select(params)
        lowered = ref.lower()
        if lowered.startswith(("doi:", "https://doi.org/", "http://doi.org/")):
            doi = normalize_doi(ref[4:] if lowered.startswith("doi:") else ref)
            ids = self.universe.by_doi.get(doi or "", [])
            work = self.universe.get(sorted(ids, key=_nat)[0]) if ids else None
        elif lowered.startswith("pmid:"):
            ids = self.universe.by_pmid.get(ref[5:].strip(), [])
            work = self.universe.get(sorted(ids, key=_nat)[0]) if ids else None
        else:
            wid = short_id(ref) or ""
            if wid in self.merged:
                location = f"/works/{self.merged[wid]}" + (f"?{query}" if query else "")
                return 301, {"Location": location}, None
            work = self.universe.get(wid) if re.fullmatch(r"W\d+", wid) else None
        if work is None:
            return 404, {}, {"error": "404 Not Found", "message": f"The requested work {ref} was not found."}
        return 200, {}, _project(work, select)

    def list_works(self, params: dict[str, str]) -> dict[str, Any]:
        unknown = sorted(set(params) - PARAMS)
        if unknown:
            raise BadRequest(f"{unknown[0]} is not a valid parameter. Valid parameters are: "
                             + ", ".join(sorted(PARAMS - {"api_key"})))
        per_page = self._per_page(params)
        select = self._select(params)
        matches = self._matches(params)
        matches = self._sort(matches, params.get("sort"))
        offset, page = self._offset(params, per_page, matches)
        chunk = matches[offset:offset + per_page]
        next_cursor = None
        if params.get("cursor") is not None and chunk:
            next_cursor = _cursor(offset + per_page, params)
        return {"meta": {"count": len(matches), "db_response_time_ms": 1, "page": page, "per_page": per_page,
                         "next_cursor": next_cursor, "groups_count": None},
                "results": [_project(self.universe.get(w), select) for w in chunk], "group_by": []}

    # -- parameters

    def _per_page(self, params: dict[str, str]) -> int:
        raw = params.get("per_page", params.get("per-page", "25"))
        try:
            value = int(raw)
        except ValueError:
            raise BadRequest(f"Per page parameter must be an integer; got {raw!r}") from None
        if not 1 <= value <= self.max_per_page:
            raise BadRequest(f"Per page parameter must be between 1 and {self.max_per_page}")
        return value

    @staticmethod
    def _select(params: dict[str, str]) -> list[str] | None:
        if not params.get("select"):
            return None
        fields = [f.strip() for f in params["select"].split(",") if f.strip()]
        bad = [f for f in fields if f not in SELECTABLE]
        if bad:
            raise BadRequest(f"{bad[0]} is not a valid select field. Valid fields for select are: "
                             + ", ".join(sorted(SELECTABLE)))
        return fields

    def _matches(self, params: dict[str, str]) -> list[str]:
        """IDs meeting every filter clause and the search, in universe order (stubs last)."""
        with self.universe.lock:
            sets = [self._clause(c) for c in (params.get("filter") or "").split(",") if c]
            if params.get("search"):
                needle = params["search"].strip().strip('"').lower()
                sets.append({w for w, text in self.universe.text.items() if needle in text})
            stubs = sorted(set().union(*sets) - set(self.universe.works), key=_nat) if sets else []
            return [w for w in self.universe.order + stubs if all(w in s for s in sets)]

    def _clause(self, clause: str) -> set[str]:
        key, sep, value = clause.partition(":")
        if not sep or key not in FILTERS:
            raise BadRequest(f"{key} is not a valid field. Valid fields are: " + ", ".join(FILTERS))
        values = [v for v in value.split("|") if v]
        if not values:
            raise BadRequest(f"filter {key} needs a value")
        if len(values) > MAX_OR:
            raise BadRequest(f"Maximum number of values exceeded for {key}. Decrease values to {MAX_OR} or below.")
        if key == "doi":
            dois = [normalize_doi(v) for v in values]
            if None in dois:
                raise BadRequest(f"'{values[dois.index(None)]}' is not a valid DOI")
            return {w for d in dois for w in self.universe.by_doi.get(d, [])}
        if key in ("ids.pmid", "pmid"):
            bad = [v for v in values if not v.isdigit()]
            if bad:
                raise BadRequest(f"'{bad[0]}' is not a valid PMID")
            return {w for v in values for w in self.universe.by_pmid.get(v.lstrip("0"), [])}
        ids = [short_id(v) or "" for v in values]
        for raw, wid in zip(values, ids):
            if not re.fullmatch(r"W\d+", wid):
                raise BadRequest(f"'{raw}' is not a valid OpenAlex ID")
        if key in ("openalex", "ids.openalex"):
            return {w for w in ids if self.universe.get(w) is not None}
        if key == "cites":
            return {c for w in ids for c in self.universe.citers.get(w, ())}
        refs = {short_id(r) for w in ids for r in ((self.universe.get(w) or {}).get("referenced_works") or [])}
        return {r for r in refs if r and r in self.universe.works}

    def _sort(self, matches: list[str], sort: str | None) -> list[str]:
        if not sort:
            return matches
        name, _, direction = sort.partition(":")
        if name not in SORTABLE:
            raise BadRequest(f"{name} is not a valid sort field")
        if name == "relevance_score":
            return matches
        key = lambda w: (self.universe.get(w) or {}).get(name) or ""  # noqa: E731
        return sorted(matches, key=key, reverse=direction == "desc")

    def _offset(self, params: dict[str, str], per_page: int, matches: list[str]) -> tuple[int, int | None]:
        if params.get("cursor") is not None:
            if params.get("page"):
                raise BadRequest("cursor and page cannot be used together")
            return _read_cursor(params["cursor"], params), None
        page = int(params.get("page") or 1)
        if page < 1:
            raise BadRequest("page must be 1 or more")
        if page * per_page > 10_000:
            raise BadRequest("Maximum results size of 10,000 records is exceeded. Cursor pagination is required "
                             "for records beyond 10,000.")
        return (page - 1) * per_page, page


def _nat(wid: str) -> tuple[int, str]:
    return (int(wid[1:]) if wid[1:].isdigit() else -1, wid)


def _project(work: dict[str, Any] | None, select: list[str] | None) -> dict[str, Any] | None:
    if work is None or select is None:
        return work
    return {k: work[k] for k in select if k in work}


def _query_hash(params: dict[str, str]) -> str:
    core = {k: v for k, v in params.items() if k not in ("cursor", "api_key")}
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()[:12]


def _cursor(offset: int, params: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{_query_hash(params)}".encode()).decode().rstrip("=")


def _read_cursor(cursor: str, params: dict[str, str]) -> int:
    if cursor == "*":
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        offset, digest = text.split(":")
        if digest != _query_hash(params):
            raise ValueError
        return int(offset)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("cursor is invalid (it belongs to another query or was altered)") from None


# ------------------------------------------------------------------------------------------ the server

class OpenAlexTestServer:
    """The API on ``127.0.0.1:<port>`` (0 = any free port) in a thread; use as a context manager."""

    def __init__(self, works: Iterable[dict[str, Any]] | Universe = (), *, paths: Iterable[str | Path] = (),
                 merged: dict[str, str] | None = None, seed: int = 0, max_per_page: int = 200,
                 budget: int | None = None, reset_seconds: int = 43_200, retry_after: int = 1,
                 slow_seconds: float = 0.5, latency: float = 0.0, stub_references: bool = False,
                 port: int = 0) -> None:
        if isinstance(works, Universe):  # an indexed universe can be shared by servers (tests)
            universe = works
            universe.add(load_works(paths))
        else:
            universe = Universe(list(works) + load_works(paths), stub_references=stub_references)
        self.api = OpenAlexAPI(universe, merged=merged, max_per_page=max_per_page, budget=budget,
                               reset_seconds=reset_seconds)
        self.faults = Faults(seed)
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.latency = latency
        self.log: list[dict[str, Any]] = []
        self._log_lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- life cycle

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "OpenAlexTestServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name="openalex-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "OpenAlexTestServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- state the tests drive

    @property
    def universe(self) -> Universe:
        return self.api.universe

    def add_works(self, works: Iterable[dict[str, Any]]) -> list[str]:
        """Make new works appear (e.g. new citing works for monitoring tests)."""
        return self.universe.add(works)

    def add_merged(self, old: str, new: str) -> None:
        self.api.merged[short_id(old)] = short_id(new)

    def reset_budget(self) -> None:
        self.api.used = 0

    def requests(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Logged requests (each: method, path, params without api_key, had_api_key, kind, status, fault)."""
        with self._log_lock:
            return [dict(r) for r in self.log if kind is None or r["kind"] == kind]

    def clear_log(self) -> None:
        with self._log_lock:
            self.log.clear()

    def _record(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self.log.append(entry)


def _handler_for(server: OpenAlexTestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "openalex-test/1"
        disable_nagle_algorithm = True  # headers and body go out as separate writes

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            pairs = parse_qsl(parts.query, keep_blank_values=True)
            params = dict(pairs)
            kind = OpenAlexAPI.kind(parts.path, params)
            entry = {"method": "GET", "path": unquote(parts.path), "kind": kind, "url_chars": len(self.path),
                     "params": {k: v for k, v in pairs if k != "api_key"}, "had_api_key": "api_key" in params,
                     "status": None, "fault": None}
            server._record(entry)
            if server.latency:
                time.sleep(server.latency)
            if len(self.path) > MAX_URL:
                entry["status"] = 414
                return self._send(414, {}, {"error": "URI Too Long", "message": "the request URL is too long"})
            fault = server.faults.draw(self.path)
            entry["fault"] = fault
            if fault and self._fault(fault, entry):
                return
            paid, rate = server.api.charge(kind)
            if not paid:
                entry["status"] = 429
                return self._send(429, rate, {"error": "Rate limit exceeded",
                                              "message": "Insufficient credits: the daily budget is used up."})
            status, headers, body = server.api.handle(parts.path, params, parts.query)
            entry["status"] = status
            self._send(status, {**rate, **headers}, body, cut=fault)

        def _fault(self, fault: str, entry: dict[str, Any]) -> bool:
            """Apply a fault; True when the request is answered (or dropped) by it."""
            rate = server.api.rate_headers(0)
            if fault == "slow":
                time.sleep(server.slow_seconds)
                return False
            if fault == "drop":
                entry["status"] = "dropped"
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return True
            if fault == "throttle":
                entry["status"] = 429
                self._send(429, {**rate, "Retry-After": str(server.retry_after)},
                           {"error": "Too Many Requests", "message": "Slow down: too many requests per second."})
                return True
            if fault == "budget":
                entry["status"] = 429
                self._send(429, {**rate, "X-RateLimit-Remaining": "0", "X-RateLimit-Remaining-USD": "0.0000",
                                 "X-RateLimit-Credits-Required": "1"},
                           {"error": "Rate limit exceeded", "message": "Insufficient credits: daily budget used up."})
                return True
            if fault in ("error500", "error503"):
                status = int(fault[-3:])
                entry["status"] = status
                self._send(status, rate, {"error": "Server error", "message": "temporarily unavailable"})
                return True
            return False  # truncate / invalid_json: answered normally, then cut in _send

        def _send(self, status: int, headers: dict[str, str], body: Any, cut: str | None = None) -> None:
            data = b"" if body is None else json.dumps(body).encode("utf-8")
            length = len(data)
            if cut in ("truncate", "invalid_json") and status == 200:
                data = data[: max(1, len(data) // 2)]
                length = length if cut == "truncate" else len(data)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(length))
                for name, value in headers.items():
                    self.send_header(name, value)
                if cut == "truncate":
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return
            if cut == "truncate":
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    return Handler


# ------------------------------------------------------------------------------------------ command line

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve OpenAlex works from SYNERGY zips on 127.0.0.1.")
    parser.add_argument("--works", action="append", required=True, help="a works file (repeatable)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-per-page", type=int, default=200)
    parser.add_argument("--budget", type=int, default=None, help="daily credits (list 1, search 10)")
    parser.add_argument("--reset-seconds", type=int, default=43_200)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every response")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND=P",
                        help=f"per-request fault probability; kinds: {', '.join(FAULT_KINDS)}")
    parser.add_argument("--merged", action="append", default=[], metavar="OLD=NEW")
    parser.add_argument("--stub-references", action="store_true",
                        help="serve referenced-but-absent IDs as minimal works (a universe closed under references)")
    args = parser.parse_args(argv)
    merged = dict(m.split("=", 1) for m in args.merged)
    server = OpenAlexTestServer(paths=args.works, port=args.port, seed=args.seed, max_per_page=args.max_per_page,
                                budget=args.budget, reset_seconds=args.reset_seconds, latency=args.latency,
                                merged=merged, stub_references=args.stub_references)
    for spec in args.fault:
        kind, _, p = spec.partition("=")
        server.faults.set(kind, float(p))
    print(f"serving {len(server.universe.works)} works on {server.url}", flush=True)
    try:
        server._httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
