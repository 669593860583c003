"""How OpenAlex look-ups are batched and what they cost, without any HTTP.

OpenAlex meters a daily budget in USD (its price list as of 2026): a singleton ``/works/W…`` is free, a
list/filter page costs $0.0001 and a ``search=`` page $0.001. So ID, DOI, PMID and ``cites:`` look-ups
are OR-batched (``openalex:W1|W2|…``, ≤ 100 values, URL < ~4,000 characters). The client batches with
`or_batches`; `plan_requests` does the same arithmetic for `b2g plan` before anything is asked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import httpx

MAX_OR_VALUES = 100
MAX_URL_CHARS = 4000
#: USD per request, by kind (OpenAlex price list, 2026): list/filter page, search page, singleton.
PRICES_USD = {"list": 0.0001, "search": 0.001, "singleton": 0.0}
KINDS = tuple(PRICES_USD)


def request_kind(path: str, params: Mapping[str, Any]) -> str:
    """Which price applies: a ``/works/{id}`` singleton, a ``search=`` page or a list/filter page."""
    if path.rstrip("/") != "/works":
        return "singleton"
    return "search" if params.get("search") else "list"


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
