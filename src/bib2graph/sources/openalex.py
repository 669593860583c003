"""The OpenAlex source's client: few, cheap, batched questions about works, every answer kept.

Why it looks like this (OpenAlex facts as of 2026, from the project's field notes): OpenAlex meters a
daily budget in USD (openalex_cost.py), so ID, DOI, PMID and ``cites:`` look-ups are OR-batched,
``select`` is narrowed to the fields records.py reads, pages are walked by cursor and stop as soon as the
answer is complete, and IDs a batch did not return are asked singly (free). Each request goes through
the transport (openalex_transport.py: the raw store, pacing, retries), which decides with
openalex_responses.py what an answer means; settings and the API key's secrecy are in
openalex_settings.py.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import quote, urlsplit

import httpx

from ..errors import DataError
from ..ids import normalize_doi, normalize_pmid, openalex_work_id, short_id
from .openalex_cost import or_batches
from .openalex_responses import body_or_raise, fatal
from .openalex_settings import ENV_BACKOFF, ENV_RATE, env_seconds, resolve_api_key, resolve_base_url
from .openalex_transport import OpenAlexTransport

#: The top-level Work fields records.py reads (``host_venue`` is gone from the current API).
SELECT_FIELDS = ("id", "doi", "title", "display_name", "publication_year", "publication_date", "type",
                 "language", "primary_location", "authorships", "cited_by_count", "referenced_works",
                 "is_retracted", "abstract_inverted_index", "updated_date", "keywords", "topics",
                 "concepts", "ids", "mesh")

_MAX_REDIRECTS = 5
_PER_PAGE_WORDS = re.compile(r"per[-_ ]?page", re.I)


class Lookup(dict):
    """``{requested id or DOI: work}``, plus what could not be had directly.

    ``missing``: requested IDs/DOIs OpenAlex answered 404 for (dangling references, not errors);
    ``merged``: ``{old id: new id}`` for works OpenAlex merged (301), whose value is the new work.
    """

    def __init__(self) -> None:
        super().__init__()
        self.missing: list[str] = []
        self.merged: dict[str, str] = {}


def _nat_key(work_id: str) -> tuple[int, str]:
    return (int(work_id[1:]) if work_id[1:].isdecimal() else -1, work_id)


class OpenAlexClient(OpenAlexTransport):
    """Batched, stored, fault-tolerant access to OpenAlex ``/works``.

    All public look-ups take IDs in any form (``W1``, ``https://openalex.org/W1``) and answer with
    short IDs as keys and the raw Work objects (as OpenAlex sent them, ``select``-narrowed) as values.
    The transport's keyword arguments (api_key, store, max_workers, rate_limit, retries, …) pass through.
    """

    def __init__(self, base_url: str | None = None, *, per_page: int = 100, **transport: Any) -> None:
        super().__init__(base_url, **transport)
        self.per_page = int(per_page)

    @classmethod
    def from_settings(cls, openalex: Mapping[str, Any] | None = None, *, env: Mapping[str, str] | None = None,
                      **kwargs: Any) -> "OpenAlexClient":
        """A client from the spec's ``source.openalex`` block and the environment (URL override, key)."""
        openalex = openalex or {}
        env = os.environ if env is None else env
        kwargs.setdefault("per_page", openalex.get("per_page", 100))
        kwargs.setdefault("api_key", resolve_api_key(env))
        base = env_seconds(env, ENV_BACKOFF, 0.5)
        kwargs.setdefault("backoff_base", base)
        kwargs.setdefault("backoff_cap", 120 * base)
        kwargs.setdefault("rate_limit", env_seconds(env, ENV_RATE, 10.0) or None)
        return cls(resolve_base_url(openalex.get("base_url"), env), **kwargs)

    # ----------------------------------------------------------------------------------- paging

    def _pages(self, params: dict[str, Any], max_results: int | None = None) -> list[dict[str, Any]]:
        """All results of one list query, walked by cursor; stops without asking for an empty page."""
        results: list[dict[str, Any]] = []
        cursor = "*"
        while True:
            per_page = min(self.per_page, max_results) if max_results else self.per_page
            try:
                body = body_or_raise(self._call("/works", {**params, "per_page": per_page,
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
                return body_or_raise(entry)
            location = (entry.get("headers") or {}).get("location") or ""
            target = openalex_work_id(urlsplit(location).path.rstrip("/").rsplit("/", 1)[-1])
            if not target:
                break
            path = f"/works/{target}"
        raise fatal(f"OpenAlex redirected /works/{ref} without end or to nowhere", code="UPSTREAM_UNEXPECTED",
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
    return _checked(ids, openalex_work_id, "OpenAlex work IDs")


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
