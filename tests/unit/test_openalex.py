"""The real OpenAlex client against the loopback server serving real SYNERGY works.

Expected values are computed directly from the works in the zip, never from the client. Nothing
here sleeps for real beyond a few timeouts of 0.1 s: the client's sleep is a recorder.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import signal
import subprocess
import sys
from datetime import datetime, timezone

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.atomic import canonical_json
from bib2graph.chain import chain
from bib2graph.errors import DataError, NetworkError
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.openalex import SELECT_FIELDS, OpenAlexClient
from bib2graph.sources.openalex_cost import MAX_URL_CHARS, PRICES_USD, or_batches, plan_requests
from bib2graph.sources.openalex_responses import budget_exhausted
from bib2graph.sources.openalex_settings import resolve_base_url
from bib2graph.sources.openalex_transport import RateLimiter
from bib2graph.sources.openalex_graph import OpenAlexGraph
from bib2graph.sources.records import bundle_from_works, normalize_doi, short_id
from bib2graph.sources.store import ApiRequest, RawStore
from bib2graph.sources.universe import FileUniverse

from ..conftest import DEMO_LABELS, ROOT, SHARED_DATA, included_ids
from ..openalex_server import OpenAlexTestServer, Universe

ZIP = SHARED_DATA / "synergy" / "Sep_2021" / "works_1.zip"
KEY = "sk-test-7f3a91c0-SECRET"
ABSENT = "W99999999999"
MERGED_OLD = "W11"


@pytest.fixture(scope="module")
def works():
    return list(read_work_objects(ZIP))


@pytest.fixture(scope="module")
def ids(works):
    return [short_id(w["id"]) for w in works]


@pytest.fixture(scope="module")
def universe(works):
    return Universe(works)


@pytest.fixture
def server(universe, ids):
    """A fresh server (log, faults, budget) over the shared, read-only universe."""
    with OpenAlexTestServer(universe, merged={MERGED_OLD: ids[5]}, reset_seconds=3600) as srv:
        yield srv


@pytest.fixture(scope="module")
def clean_result(universe, ids, works):
    """The scenario's answer from a fault-free server without a store: what every other run must equal."""
    with OpenAlexTestServer(universe, merged={MERGED_OLD: ids[5]}) as srv, \
            OpenAlexClient(srv.url, api_key=KEY, rate_limit=None) as client:
        return scenario(client, ids, works)


class Sleeps(list):
    """A stand-in for time.sleep that only records the delays asked for."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps():
    return Sleeps()


@pytest.fixture
def make_client(server, sleeps):
    clients = []

    def make(**kwargs):
        options = dict(api_key=KEY, rate_limit=None, sleep=sleeps, rng=random.Random(7), timeout=5.0,
                       max_workers=4)
        options.update(kwargs)
        client = OpenAlexClient(options.pop("base_url", server.url), **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def citers_index(works):
    """Direct reading of the universe: cited ID → the works whose referenced_works contain it, by ID."""
    index = {}
    for work in works:
        for ref in {short_id(r) for r in work.get("referenced_works") or []}:
            index.setdefault(ref, []).append(short_id(work["id"]))
    return {k: sorted(v, key=lambda x: int(x[1:])) for k, v in index.items()}


def selected(work):
    return {k: work[k] for k in SELECT_FIELDS if k in work}


def scenario(client, ids, works, store=None):
    """A fetch touching every path: batched IDs with a 404 and a 301, DOIs, cites paging, search."""
    if store is not None:
        client.store = store
    looked = client.works_by_ids(ids + [ABSENT, MERGED_OLD])
    dois = client.works_by_dois([w["doi"] for w in works[:150] if w.get("doi")])
    citing = client.citing(ids)
    found = client.search("memory", max_results=60)
    return canonical_json({
        "ids": looked, "missing": looked.missing, "merged": looked.merged, "dois": dois,
        "citing": {k: [short_id(w["id"]) for w in v] for k, v in citing.items()},
        "search": [short_id(w["id"]) for w in found],
    })


# ------------------------------------------------------------------------------------------ batching

def test_id_lookups_are_or_batched_and_narrowed(server, make_client, works, ids):
    client = make_client()
    shuffled = random.Random(3).sample(ids, len(ids))
    got = client.works_by_ids(shuffled)
    assert list(got) == shuffled
    assert got.missing == [] and got.merged == {}
    assert all(got[short_id(w["id"])] == selected(w) for w in works)
    lists = server.requests("list")
    assert len(lists) == math.ceil(len(ids) / 100) and not server.requests("singleton")
    for request in lists:
        assert request["had_api_key"] and request["url_chars"] < MAX_URL_CHARS
        assert len(request["params"]["filter"].split("|")) <= 100
        assert "host_venue" not in request["params"]["select"].split(",")
    assert client.stats["by_kind"] == {"list": 3, "search": 0, "singleton": 0}
    assert client.stats["cost_usd"] == pytest.approx(3 * PRICES_USD["list"])


def test_doi_lookups_keep_urls_short(server, make_client, works):
    client = make_client()
    wanted = [w["doi"] for w in works if w.get("doi")]
    asked = [d.upper().replace("HTTPS://DOI.ORG/", "https://doi.org/") for d in wanted]
    absent = ["10.9999/not-in-openalex", "10.1002/(sici)1097-0029(19960601)34:2<1,2>3.0.co;2-x"]
    got = client.works_by_dois(asked + absent)
    assert set(got) == {normalize_doi(d) for d in wanted} and got.missing == absent
    assert sorted(r["path"] for r in server.requests("singleton")) == sorted(f"/works/doi:{d}" for d in absent)
    for doi, work in got.items():
        assert normalize_doi(work["doi"]) == doi
    lists = server.requests("list")
    assert all(r["url_chars"] <= MAX_URL_CHARS for r in lists)
    total = sum(len(r["params"]["filter"]) for r in lists)
    assert len(lists) <= math.ceil(total / (MAX_URL_CHARS - 600)) + 1  # batches are nearly full
    assert plan_requests(dois=[normalize_doi(d) for d in wanted]).requests["list"] >= len(lists)


def test_missing_is_recorded_and_merged_is_followed(server, make_client, ids):
    client = make_client()
    got = client.works_by_ids([ids[0], ABSENT, MERGED_OLD])
    assert got.missing == [ABSENT]
    assert got.merged == {MERGED_OLD: ids[5]}
    assert short_id(got[MERGED_OLD]["id"]) == ids[5] and ABSENT not in got
    singles = [(r["path"], r["status"]) for r in server.requests("singleton")]
    assert sorted(singles) == sorted([(f"/works/{ABSENT}", 404), (f"/works/{MERGED_OLD}", 301),
                                      (f"/works/{ids[5]}", 200)])
    assert client.stats["cost_usd"] == pytest.approx(PRICES_USD["list"])  # singletons are free


def test_citing_is_attributed_through_referenced_works(server, make_client, works, ids):
    per_page = 25
    client = make_client(per_page=per_page)
    got = client.citing(ids)
    citers = citers_index(works)
    for cited in ids:
        assert [short_id(w["id"]) for w in got[cited]] == citers.get(cited, [])
    first_pages = [r for r in server.requests("list") if r["params"]["cursor"] == "*"]
    assert len(first_pages) == math.ceil(len(ids) / 100)
    expected_pages = 0
    for request in first_pages:
        batch = set(request["params"]["filter"].removeprefix("cites:").split("|"))
        assert len(batch) <= 100
        citing_batch = {c for cited in batch for c in citers.get(cited, [])}
        expected_pages += max(1, math.ceil(len(citing_batch) / per_page))
    assert len(server.requests("list")) == expected_pages  # no empty trailing page is asked for
    assert client.stats["unattributed"] == 0


def test_search_pages_by_cursor_and_stops_at_max(server, make_client, works):
    client = make_client(per_page=20)
    found = client.search("memory", max_results=50)
    universe_hits = [short_id(w["id"]) for w in works if "memory" in server.universe.text[short_id(w["id"])]]
    assert [short_id(w["id"]) for w in found] == universe_hits[:50]
    assert len(server.requests("search")) == 3
    assert client.stats["cost_usd"] == pytest.approx(3 * PRICES_USD["search"])


def test_plan_matches_what_the_client_sends(server, make_client, ids, works):
    client = make_client()
    client.works_by_ids(ids)
    plan = plan_requests(ids=ids, searches=[250], cited=len(ids), citing_works=400, singletons=7)
    assert plan.requests["list"] >= client.stats["by_kind"]["list"]
    assert plan_requests(ids=len(ids)).requests == {"list": 3, "search": 0, "singleton": 0}
    assert plan.requests["search"] == 3 and plan.requests["singleton"] == 7
    assert plan.cost_usd == pytest.approx(plan.requests["list"] * 0.0001 + 3 * 0.001)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.from_regex(r"10\.[0-9]{4,5}/[a-z0-9.()<>;_-]{3,60}", fullmatch=True), max_size=250))
def test_or_batches_respect_count_and_url_length(dois):
    batches = or_batches(dois, "doi", fixed_chars=500)
    assert [d for b in batches for d in b] == dois
    for batch in batches:
        assert 1 <= len(batch) <= 100
        assert len(batch) == 1 or 500 + len(str(httpx.QueryParams({"x": "|".join(batch)}))) - 2 <= MAX_URL_CHARS


# ------------------------------------------------------------------------------------------ the store

@pytest.mark.long
def test_store_makes_a_second_run_free(server, make_client, tmp_path, ids, works, clean_result):
    first = make_client(store=RawStore(tmp_path / "openalex"))
    result = scenario(first, ids, works)
    assert result == clean_result
    sent = first.stats["requests"]
    assert sent > 0 and len(RawStore(tmp_path / "openalex")) == sent
    server.clear_log()
    second = make_client(store=RawStore(tmp_path / "openalex"))
    assert scenario(second, ids, works) == result
    assert server.requests() == [] and second.stats["requests"] == 0
    assert second.stats["from_store"] == sent and second.stats["cost_usd"] == 0
    third = make_client(store=RawStore(tmp_path / "openalex", refresh=True))
    assert scenario(third, ids, works) == result and third.stats["requests"] == sent


def test_store_entry_holds_request_status_headers_time_and_body(server, make_client, tmp_path, ids):
    clock = lambda: datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)  # noqa: E731
    store = RawStore(tmp_path, clock=clock)
    make_client(store=store).works_by_ids(ids[:10] + [MERGED_OLD])
    entries = list(store.entries())
    assert len(entries) == 3
    for entry in entries:
        assert set(entry) == {"request", "status", "headers", "fetched_at", "body"}
        assert entry["fetched_at"] == "2026-01-02T03:04:05Z"
        assert "api_key" not in entry["request"]["params"]
        assert "x-ratelimit-remaining" in entry["headers"] and "content-type" in entry["headers"]
        assert store.path_for(ApiRequest.make(entry["request"]["path"], entry["request"]["params"])).is_file()
    (listed,) = [e for e in entries if e["request"]["path"] == "/works"]
    assert len(listed["body"]["results"]) == 10 and listed["body"]["meta"]["count"] == 10
    (moved,) = [e for e in entries if e["status"] == 301]
    assert moved["body"] is None and moved["request"]["path"] == f"/works/{MERGED_OLD}"
    assert f"/works/{ids[5]}" in moved["headers"]["location"] and "api_key" not in moved["headers"]["location"]


def test_request_key_ignores_order_and_api_key():
    a = ApiRequest.make("/works", {"filter": "doi:10.1/x", "per_page": 100, "api_key": KEY})
    b = ApiRequest.make("/works", {"per_page": "100", "filter": "doi:10.1/x"})
    assert a.key == b.key and KEY not in json.dumps(a.as_dict())
    assert a.key != ApiRequest.make("/works", {"filter": "doi:10.1/y", "per_page": 100}).key


def test_truncated_and_invalid_bodies_are_retried_never_stored(server, make_client, tmp_path, ids):
    server.faults.next("truncate", 2).next("invalid_json", 2).next("drop", 1)
    store = RawStore(tmp_path)
    got = make_client(store=store, max_workers=1).works_by_ids(ids)
    assert len(got) == len(ids)
    assert server.faults.injected == {"truncate": 2, "invalid_json": 2, "drop": 1}
    entries = list(store.entries())
    assert len(entries) == 3 and sum(len(e["body"]["results"]) for e in entries) == len(ids)
    assert not list(tmp_path.rglob("*.tmp"))


KILLED_CHILD = """
import sys
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.openalex import OpenAlexClient
from bib2graph.sources.records import short_id
from bib2graph.sources.store import RawStore
from tests.unit.test_openalex import scenario

class Announcing(RawStore):
    def put(self, *args, **kwargs):
        entry = super().put(*args, **kwargs)
        print("stored", flush=True)
        return entry

url, store_dir, zip_path = sys.argv[1:4]
works = list(read_work_objects(zip_path))
client = OpenAlexClient(url, api_key="child-key", rate_limit=None, max_workers=1)
scenario(client, [short_id(w["id"]) for w in works], works, store=Announcing(store_dir))
"""


@pytest.mark.long
def test_a_run_killed_mid_fetch_resumes_without_asking_again(server, make_client, tmp_path, ids, works,
                                                             clean_result):
    store_dir = tmp_path / "openalex"
    child = subprocess.Popen([sys.executable, "-c", KILLED_CHILD, server.url, str(store_dir), str(ZIP)],
                             cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    for _ in range(5):  # synchronise on the child's own words, not on time
        assert child.stdout.readline().strip() == "stored"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    child.stdout.close()
    store = RawStore(store_dir)
    store.discard_partial()
    kept = {ApiRequest.make(e["request"]["path"], e["request"]["params"]).key for e in store.entries()}
    assert len(kept) >= 5
    server.clear_log()
    resumed = make_client(store=RawStore(store_dir))
    assert scenario(resumed, ids, works) == clean_result
    asked = {ApiRequest.make(r["path"], r["params"]).key for r in server.requests()}
    assert not asked & kept and resumed.stats["from_store"] == len(kept)


def test_unreadable_store_file_is_fetched_again(server, make_client, tmp_path, ids):
    store = RawStore(tmp_path)
    make_client(store=store).works_by_ids(ids[:5])
    (path,) = tmp_path.rglob("*.json")
    path.write_text('{"request": ', encoding="utf-8")
    server.clear_log()
    assert len(make_client(store=RawStore(tmp_path)).works_by_ids(ids[:5])) == 5
    assert len(server.requests()) == 1 and json.loads(path.read_text())["status"] == 200


# ------------------------------------------------------------------------------------------ faults

def test_throttling_and_503s_at_30_percent_give_identical_results(server, make_client, ids, works, sleeps,
                                                                   clean_result):
    clean = clean_result
    server.faults.next("throttle", 2).next("error503", 2)  # some of each for sure, then 30 % at random
    server.faults.set("throttle", 0.15).set("error503", 0.15)
    faulty_client = make_client(max_retries=15)
    assert scenario(faulty_client, ids, works) == clean
    assert server.faults.injected["throttle"] > 0 and server.faults.injected["error503"] > 0
    assert faulty_client.stats["retries"] == sum(server.faults.injected.values())
    assert any(0.9 <= s <= 1.0 for s in sleeps)  # Retry-After: 1 honoured (a shared pause)
    assert all(s <= 60 for s in sleeps)


def test_drops_truncation_500s_and_invalid_json_give_identical_results(server, make_client, ids, works,
                                                                       clean_result):
    clean = clean_result
    for kind in ("drop", "truncate", "invalid_json", "error500"):
        server.faults.next(kind, 1).set(kind, 0.08)
    faulty = make_client(max_retries=15)
    assert scenario(faulty, ids, works) == clean
    assert set(faulty.stats["faults"]) == {"CONNECTION_DROPPED", "INVALID_JSON", "HTTP_500"}


def test_backoff_is_exponential_with_jitter_then_gives_up(server, make_client, sleeps, ids):
    server.faults.next("error503", 50)
    client = make_client(max_retries=4, backoff_base=0.5)
    with pytest.raises(NetworkError) as caught:
        client.works_by_ids(ids[:3])
    err = caught.value
    assert (err.exit_code, err.code, err.subcode, err.retryable) == (4, "UPSTREAM_ERROR", "HTTP_503", True)
    assert len(sleeps) == 4
    for attempt, delay in enumerate(sleeps):
        assert 0.5 * 0.5 * 2 ** attempt <= delay <= 0.5 * 2 ** attempt
    assert len(server.requests()) == 5 and KEY not in str(err) + json.dumps(err.details)


def test_persistent_throttling_ends_rate_limited(server, make_client, ids):
    server.faults.next("throttle", 50)
    with pytest.raises(NetworkError) as caught:
        make_client(max_retries=2).works_by_ids(ids[:3])
    assert (caught.value.code, caught.value.retryable) == ("RATE_LIMITED", True)


def test_timeouts_are_retried_then_reported(server, make_client, ids):
    server.slow_seconds = 0.4
    server.faults.next("slow", 1)
    client = make_client(timeout=0.1, max_workers=1)
    assert len(client.works_by_ids(ids[:3])) == 3 and client.stats["faults"] == {"TIMEOUT": 1}
    server.faults.next("slow", 5)
    with pytest.raises(NetworkError) as caught:
        make_client(timeout=0.1, max_retries=1).works_by_ids(ids[3:6])
    assert (caught.value.code, caught.value.exit_code, caught.value.retryable) == ("UPSTREAM_TIMEOUT", 4, True)


def test_unreachable_server_is_a_network_error(make_client, ids):
    client = make_client(base_url="http://127.0.0.1:9", max_retries=1)
    with pytest.raises(NetworkError) as caught:
        client.works_by_ids(ids[:1])
    assert caught.value.subcode == "CONNECT_FAILED" and caught.value.exit_code == 4


# ------------------------------------------------------------------------------------------ budget

def test_exhausted_budget_stops_keeps_the_store_and_resumes(server, make_client, tmp_path, ids, works,
                                                            clean_result):
    server.api.budget = 3  # the three ID batches fit, the first cites: page does not
    store_dir = tmp_path / "openalex"
    client = make_client(store=RawStore(store_dir))
    with pytest.raises(NetworkError) as caught:
        scenario(client, ids, works)
    err = caught.value
    assert (err.exit_code, err.code, err.retryable) == (4, "BUDGET_EXHAUSTED", False)
    assert err.details["resets_in_seconds"] == 3600 and err.subcode == "RESETS_IN_3600S"
    assert client.stats["retries"] == 0
    kept = len(RawStore(store_dir))
    assert kept == client.stats["requests"] >= 3
    assert KEY not in err.message + json.dumps(err.details)

    server.reset_budget()
    server.api.budget = None
    server.clear_log()
    resumed = make_client(store=RawStore(store_dir))
    result = scenario(resumed, ids, works)
    assert resumed.stats["from_store"] == kept and len(server.requests()) == resumed.stats["requests"]
    assert result == clean_result


def test_budget_fault_with_remaining_zero_is_not_retried(server, make_client, ids):
    server.faults.next("budget", 1)
    client = make_client(max_workers=1)
    with pytest.raises(NetworkError) as caught:
        client.works_by_ids(ids[:3])
    assert caught.value.code == "BUDGET_EXHAUSTED" and len(server.requests()) == 1


@pytest.mark.parametrize("headers, body, spent", [
    ({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "60"}, None, "credits"),
    ({"X-RateLimit-Remaining": "5", "X-RateLimit-Credits-Required": "10"}, None, "credits"),
    ({"X-RateLimit-Remaining-USD": "0.0000"}, None, "usd"),
    ({}, {"error": "Rate limit exceeded", "message": "You have used your daily budget"}, "daily"),
    ({"X-RateLimit-Remaining": "900", "Retry-After": "1"}, {"message": "too many requests per second"}, None),
])
def test_budget_is_told_from_per_second_throttling(headers, body, spent):
    found = budget_exhausted(headers, body)
    assert (found or {}).get("budget") == spent


# ------------------------------------------------------------------------------------------ 400s, keys, settings

def test_bad_query_is_a_data_error_quoting_openalex(server, make_client):
    client = make_client()
    with pytest.raises(DataError) as caught:
        client.filter_works("publisher.flavour:sweet")
    err = caught.value
    assert (err.exit_code, err.code) == (2, "OPENALEX_BAD_REQUEST")
    assert "publisher.flavour is not a valid field" in err.message
    assert not isinstance(err, NetworkError) and client.stats["retries"] == 0


def test_per_page_above_the_cap_falls_back_to_100(works, sleeps, ids):
    with OpenAlexTestServer(works, max_per_page=100) as srv, \
            OpenAlexClient(srv.url, api_key=KEY, per_page=200, rate_limit=None, sleep=sleeps,
                           max_workers=1) as client:
        assert len(client.works_by_ids(ids)) == len(ids)
        assert client.stats["per_page_fallbacks"] == 1
        assert [r["status"] for r in srv.requests()] == [400, 200, 200, 200]


def test_api_key_never_reaches_store_logs_or_errors(server, make_client, tmp_path, ids, works, caplog):
    caplog.set_level(logging.DEBUG)
    client = make_client(store=RawStore(tmp_path))
    scenario(client, ids, works)
    assert all(r["had_api_key"] for r in server.requests())
    assert "HTTP Request" in caplog.text and KEY not in caplog.text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(encoding="utf-8")
    assert KEY not in repr(client)
    with pytest.raises(DataError) as caught:
        client.filter_works("nope:1")
    assert KEY not in caught.value.message + json.dumps(caught.value.details)


def test_a_short_key_leaves_the_data_as_sent(server, make_client, ids):
    """The key was scrubbed from every body: with the key "k", "referenced_works" became
    "referenced_wor***s" and chaining found nothing, exit 0. Only error pages are scrubbed now."""
    plain = make_client(api_key=None).works_by_ids(ids[:5])
    keyed = make_client(api_key="k").works_by_ids(ids[:5])
    assert keyed == plain and all("referenced_works" in w for w in keyed.values())


def test_a_failure_in_the_pool_stops_the_running_calls_at_their_next_request(server, make_client, ids):
    """`_map` waited for its running calls to end every page and retry: `monitor --timeout 2` on 146 works
    answered after 35 s. Now a running call sends no request after the failure (or the deadline)."""
    import threading

    client = make_client(max_workers=2)
    started, sent = threading.Event(), []

    def work(item):
        if item == "fail":
            started.wait(30)
            raise NetworkError("the deadline passed", code="UPSTREAM_TIMEOUT")
        for _ in range(500):              # a long paging: one request at a time
            client._call("/works", {"filter": f"openalex:{ids[0]}"})
            sent.append(1)
            started.set()
        return len(sent)

    with pytest.raises(NetworkError, match="deadline"):
        client._map(work, ["fail", "pages"])
    assert 1 <= len(sent) < 50
    assert client._call("/works", {"filter": f"openalex:{ids[1]}"})["status"] == 200   # the client goes on


def test_base_url_and_key_come_from_the_environment(server, sleeps, ids):
    env = {"B2G_OPENALEX_URL": server.url, "OPENALEX_API_KEY": KEY}
    assert resolve_base_url("https://api.openalex.org", env) == server.url
    assert resolve_base_url("https://example.org/", {}) == "https://example.org"
    with OpenAlexClient.from_settings({"base_url": "https://api.openalex.org", "per_page": 50}, env=env,
                                      rate_limit=None, sleep=sleeps) as client:
        assert client.per_page == 50 and client.has_api_key
        assert len(client.works_by_ids(ids[:2])) == 2
    assert server.requests()[0]["had_api_key"]


@pytest.mark.parametrize("status, headers, code, retryable", [
    (401, {}, "ACCESS_DENIED", False),
    (403, {}, "ACCESS_DENIED", False),
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "10"}, "BUDGET_EXHAUSTED", False),
    (414, {}, "UPSTREAM_REJECTED", False),
    (429, {"Retry-After": "86400", "X-RateLimit-Remaining": "50"}, "RATE_LIMITED", True),
])
def test_other_refusals_map_to_their_codes(status, headers, code, retryable, sleeps):
    def answer(request):
        assert request.url.params["api_key"] == KEY
        return httpx.Response(status, headers=headers, json={"error": "no", "message": f"refused api_key={KEY}"})

    with OpenAlexClient("https://openalex.invalid", api_key=KEY, sleep=sleeps, rate_limit=None,
                        transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(NetworkError) as caught:
            client.works_by_ids(["W1"])
    err = caught.value
    assert (err.code, err.retryable, err.exit_code) == (code, retryable, 4)
    assert client.stats["attempts"] == 1 and KEY not in err.message + json.dumps(err.details)


def test_bad_ids_are_data_errors_before_any_request(server, make_client):
    with pytest.raises(DataError):
        make_client().works_by_ids(["W1", "10.1/not-an-id"])
    assert server.requests() == []


def test_rate_limiter_spaces_requests_and_shares_pauses():
    now, waits = [0.0], []
    limiter = RateLimiter(10, clock=lambda: now[0], sleep=waits.append)
    for _ in range(3):
        limiter.acquire()
    assert waits == pytest.approx([0.1, 0.2])
    limiter.pause(2.0)
    limiter.acquire()
    assert waits[-1] == pytest.approx(2.0)


# ------------------------------------------------------------------------------------------ monitoring, graph

def test_new_citing_works_appear_at_runtime(works, ids, sleeps):
    cited = ids[0]
    newcomer = {**works[1], "id": "https://openalex.org/W4400000001", "doi": None,
                "referenced_works": [f"https://openalex.org/{cited}"]}
    with OpenAlexTestServer(works) as server, \
            OpenAlexClient(server.url, api_key=KEY, rate_limit=None, sleep=sleeps) as client:
        before = {short_id(w["id"]) for w in client.citing([cited])[cited]}
        server.add_works([newcomer])  # its own server: the shared universe stays untouched
        after = {short_id(w["id"]) for w in client.citing([cited])[cited]}
    assert after == before | {"W4400000001"}


@pytest.mark.long
def test_graph_chains_exactly_like_the_file_universe(server, make_client, works):
    seeds = included_ids(DEMO_LABELS)
    params = {"direction": "both", "depth": 1, "max_candidates": 10_000, "min_links": 1}
    files = FileUniverse.from_files([ZIP])
    graph = OpenAlexGraph(make_client())
    remote, local = chain(graph, seeds, params), chain(files, seeds, params)
    assert remote.admitted == local.admitted and remote.rounds == local.rounds
    assert remote.candidates.equals(local.candidates)
    fetched = bundle_from_works(graph.works(seeds + remote.admitted))
    expected = files.records(seeds + remote.admitted)
    assert sorted(fetched.works.work_id) == sorted(expected.works.work_id)
    assert fetched.references.sort_values(list(fetched.references.columns)).reset_index(drop=True).equals(
        expected.references.sort_values(list(expected.references.columns)).reset_index(drop=True))


def test_graph_keeps_dangling_references_out_of_reach(server, make_client, ids):
    graph = OpenAlexGraph(make_client())
    seed = next(i for i in ids if len(server.universe.works[i]["referenced_works"]) > 5)
    refs = graph.references([seed])[seed]
    reach = graph.reachable_references([seed])[seed]
    inside = {r for r in refs if r in server.universe.works}
    assert set(reach) == inside and set(refs) - inside <= graph.missing
    before = len(server.requests())
    graph.reachable_references([seed])
    graph.citing([seed]), graph.citing([seed])
    assert len(server.requests()) == before + 1  # cached: only the one cites: query is new
    assert [short_id(w["id"]) for w in graph.works([MERGED_OLD, ids[5], ABSENT])] == [ids[5]]
    assert graph.merged == {MERGED_OLD: ids[5]} and ABSENT in graph.missing
