"""Chaining-like fetch over loopback: the batched OpenAlex client vs one request per work.

Starts tests/openalex_server.py on real SYNERGY works (closed under references with stub works, as
the real OpenAlex nearly is), picks seeds, and fetches what one round of chaining needs — the seeds,
every work they reference, and every work citing them — twice in the same process:

- batched: OpenAlexGraph over OpenAlexClient (OR-batched ``openalex:`` and ``cites:``, cursor paging);
- baseline: ``/works/{id}`` for each seed and each referenced work, and one ``cites:{id}`` query per
  seed (paged), the way per-work tools do it.

Both use the same thread count. It prints requests, works fetched, requests per fetched work, wall
time and estimated cost for both, and the batched/baseline ratios. `--latency` adds a fixed delay to
every response, standing in for the round trip to api.openalex.org.

    python benchmarks/bench_fetch.py                         # all five SYNERGY sets, 200 seeds
    python benchmarks/bench_fetch.py --seeds 50 --latency 0.02
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from bib2graph.sources.openalex import SELECT_FIELDS, OpenAlexClient  # noqa: E402
from bib2graph.sources.openalex_cost import PRICES_USD, estimate_cost  # noqa: E402
from bib2graph.sources.openalex_graph import OpenAlexGraph  # noqa: E402
from bib2graph.sources.records import short_id  # noqa: E402
from tests.openalex_server import OpenAlexTestServer  # noqa: E402

DEFAULT_WORKS = sorted((ROOT.parent / "shared" / "data" / "synergy").glob("*/works_1.zip"))


def batched(url: str, seeds: list[str], workers: int) -> int:
    """One chaining round's fetch through OpenAlexGraph; returns the number of distinct works held."""
    with OpenAlexClient(url, rate_limit=None, max_workers=workers) as client:
        graph = OpenAlexGraph(client)
        graph.reachable_references(seeds)
        graph.citing(seeds)
        return graph.cached


def baseline(url: str, seeds: list[str], workers: int) -> int:
    """The same fetch with one singleton per work and one ``cites:`` query per seed."""
    select = ",".join(SELECT_FIELDS)
    fetched: dict[str, dict] = {}
    with httpx.Client(base_url=url, timeout=30, limits=httpx.Limits(max_connections=workers + 2)) as http, \
            ThreadPoolExecutor(workers) as pool:
        def single(work_id: str) -> dict | None:
            response = http.get(f"/works/{work_id}", params={"select": select})
            return response.json() if response.status_code == 200 else None

        def cites(work_id: str) -> list[dict]:
            out, cursor = [], "*"
            while cursor:
                body = http.get("/works", params={"filter": f"cites:{work_id}", "select": select,
                                                  "per_page": 100, "cursor": cursor}).json()
                out.extend(body["results"])
                cursor = body["meta"]["next_cursor"] if body["results"] else None
            return out

        for work in pool.map(single, seeds):
            if work:
                fetched[short_id(work["id"])] = work
        refs = sorted({short_id(r) for w in list(fetched.values()) for r in w.get("referenced_works") or []})
        for work in pool.map(single, refs):
            if work:
                fetched.setdefault(short_id(work["id"]), work)
        for citing in pool.map(cites, seeds):
            for work in citing:
                fetched.setdefault(short_id(work["id"]), work)
    return len(fetched)


def measure(name: str, fn, server: OpenAlexTestServer, *args) -> dict:
    server.clear_log()
    start = time.perf_counter()
    works = fn(server.url, *args)
    wall = time.perf_counter() - start
    by_kind: dict[str, int] = {}
    for request in server.requests():
        by_kind[request["kind"]] = by_kind.get(request["kind"], 0) + 1
    requests = sum(by_kind.values())
    return {"name": name, "requests": requests, "works": works, "per_work": requests / max(works, 1),
            "wall": wall, "cost": estimate_cost(by_kind), "by_kind": by_kind}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", action="append", default=None, help="works zip (repeatable)")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.005, help="seconds added to each response")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    paths = args.works or [str(p) for p in DEFAULT_WORKS]
    with OpenAlexTestServer(paths=paths, latency=args.latency, stub_references=True) as server:
        universe = sorted(server.universe.works)
        seeds = sorted(random.Random(args.seed).sample(universe, min(args.seeds, len(universe))))
        print(f"universe: {len(universe)} works from {len(paths)} file(s) (+ stubs for referenced works); "
              f"{len(seeds)} seeds; {args.workers} threads; {args.latency * 1000:.0f} ms added per response")
        rows = [measure("batched", batched, server, seeds, args.workers),
                measure("one-per-work", baseline, server, seeds, args.workers)]
    print(f"{'mode':<14}{'requests':>10}{'works':>8}{'req/work':>10}{'wall s':>9}{'cost $':>10}  by kind")
    for r in rows:
        print(f"{r['name']:<14}{r['requests']:>10}{r['works']:>8}{r['per_work']:>10.4f}{r['wall']:>9.2f}"
              f"{r['cost']:>10.4f}  {r['by_kind']}")
    fast, slow = rows
    print(f"ratio batched/baseline: requests {fast['requests'] / slow['requests']:.4f}, "
          f"wall {fast['wall'] / slow['wall']:.3f}, works {fast['works'] / max(slow['works'], 1):.3f} "
          f"(prices: {PRICES_USD})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
