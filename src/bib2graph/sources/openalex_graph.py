"""OpenAlex seen as chain.py's CitationGraph: the same three batched questions FileUniverse answers.

Every work object fetched (looked up, referenced or citing) is kept in memory, so a round of chaining
asks OpenAlex for each work at most once, and ``works(ids)`` hands the raw objects to
``bundle_from_works`` without another request. IDs are short (``W1``). Merged works (301) are
answered under their new ID; missing ones (404) are dangling references: they stay in
``references`` (what the work cites) but not in ``reachable_references`` (what OpenAlex can deliver).
"""

from __future__ import annotations

from typing import Any, Iterable

from .openalex import OpenAlexClient
from ..ids import short_id


def _nat(work_id: str) -> tuple[int, str]:
    return (int(work_id[1:]) if work_id[1:].isdecimal() else -1, work_id)


class OpenAlexGraph:
    """A CitationGraph over an OpenAlexClient, caching fetched works by short ID."""

    def __init__(self, client: OpenAlexClient) -> None:
        self.client = client
        self._works: dict[str, dict[str, Any]] = {}
        self._citing: dict[str, list[str]] = {}
        self.missing: set[str] = set()
        self.merged: dict[str, str] = {}

    # ----------------------------------------------------------------------------------- fetching

    def _canonical(self, work_id: str) -> str:
        seen = set()
        while work_id in self.merged and work_id not in seen:
            seen.add(work_id)
            work_id = self.merged[work_id]
        return work_id

    def fetch(self, work_ids: Iterable[str]) -> None:
        """Make sure every one of `work_ids` is cached, missing or merged, in as few requests as possible."""
        wanted = [w for w in dict.fromkeys(short_id(x) or "" for x in work_ids)
                  if w and self._canonical(w) not in self._works and w not in self.missing]
        if not wanted:
            return
        lookup = self.client.works_by_ids(wanted)
        self.missing.update(lookup.missing)
        self.merged.update(lookup.merged)
        for work in lookup.values():
            self._works.setdefault(short_id(work.get("id")) or "", work)

    def _refs(self, work_id: str) -> list[str]:
        work = self._works.get(self._canonical(work_id))
        if work is None:
            return []
        return sorted({r for r in (short_id(x) for x in work.get("referenced_works") or []) if r}, key=_nat)

    # ----------------------------------------------------------------------------------- CitationGraph

    def references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """All referenced works of each work (dangling ones included), as OpenAlex lists them."""
        self.fetch(work_ids)
        return {w: self._refs(w) for w in work_ids}

    def reachable_references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The referenced works OpenAlex can deliver (fetched here, in batches), under their current IDs."""
        refs = self.references(work_ids)
        self.fetch(r for rs in refs.values() for r in rs)
        out = {}
        for work_id, rs in refs.items():
            live = {self._canonical(r) for r in rs if r not in self.missing}
            out[work_id] = sorted((r for r in live if r in self._works), key=_nat)
        return out

    def citing(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The works citing each work (batched ``cites:``), cached with their objects."""
        todo = [w for w in dict.fromkeys(self._canonical(short_id(x) or "") for x in work_ids)
                if w and w not in self._citing]
        if todo:
            for cited, works in self.client.citing(todo).items():
                self._citing[cited] = [short_id(w.get("id")) or "" for w in works]
                for work in works:
                    self._works.setdefault(short_id(work.get("id")) or "", work)
        return {w: list(self._citing.get(self._canonical(short_id(w) or ""), [])) for w in work_ids}

    # ----------------------------------------------------------------------------------- objects

    def works(self, work_ids: Iterable[str]) -> list[dict[str, Any]]:
        """The raw Work objects of `work_ids` (fetched if need be; missing ones left out), in the order
        asked and once each: feed them to ``records.bundle_from_works``."""
        ids = [short_id(x) or "" for x in work_ids]
        self.fetch(ids)
        out, seen = [], set()
        for work_id in ids:
            canonical = self._canonical(work_id)
            if canonical in self._works and canonical not in seen:
                seen.add(canonical)
                out.append(self._works[canonical])
        return out

    @property
    def cached(self) -> int:
        return len(self._works)
