"""The live OpenAlex API as a bib2graph source: seeding look-ups on top of the chaining graph.

It answers the same questions as `FileUniverse` (which IDs exist, which works carry these DOIs,
what a search finds, the records of a set of works) through one `OpenAlexClient`, whose raw-response
store under `resources/openalex/` makes a re-run ask nothing it already has.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from ..tables import Bundle
from .openalex import OpenAlexClient
from .openalex_graph import OpenAlexGraph
from ..ids import normalize_doi, normalize_pmid, short_id
from ..skips import Skips
from .records import bundle_from_works
from .store import RawStore

STORE_DIR = Path("resources/openalex")


def _cache(graph: OpenAlexGraph, works: Iterable[dict[str, Any]]) -> list[str]:
    ids = []
    for work in works:
        work_id = short_id(work.get("id")) or ""
        graph._works.setdefault(work_id, work)
        ids.append(work_id)
    return ids


class OpenAlexSource(OpenAlexGraph):
    """Seeding and chaining against OpenAlex, every response kept in the raw store first."""

    skips: Skips | None = None   # where records OpenAlex sent without a usable ID are reported

    @classmethod
    def open(cls, settings: dict[str, Any], root: str | Path = ".", skips: Skips | None = None) -> "OpenAlexSource":
        refresh = os.environ.get("B2G_REFRESH", "").strip().lower() in {"1", "true", "yes"}
        store = RawStore(Path(root) / STORE_DIR, refresh=refresh)
        source = cls(OpenAlexClient.from_settings(settings, store=store))
        source.skips = skips
        return source

    def known_ids(self, work_ids: list[str]) -> dict[str, str]:
        """Asked ID → its current ID, for the IDs OpenAlex knows (merged IDs are followed)."""
        self.fetch(work_ids)
        return {w: self._canonical(w) for w in work_ids if self._canonical(w) in self._works}

    def ids_for_dois(self, dois: list[str]) -> dict[str, str]:
        """DOI → work ID for the DOIs OpenAlex resolves (batched `doi:` look-ups)."""
        wanted = sorted({d for d in (normalize_doi(x) for x in dois) if d})
        found = self.client.works_by_dois(wanted) if wanted else {}
        return dict(zip(found.keys(), _cache(self, found.values())))

    def ids_for_pmids(self, pmids: list[str]) -> dict[str, str]:
        """PMID → work ID for the PMIDs OpenAlex resolves (batched `ids.pmid:` look-ups)."""
        wanted = sorted({p for p in (normalize_pmid(x) for x in pmids) if p})
        found = self.client.works_by_pmids(wanted) if wanted else {}
        return dict(zip(found.keys(), _cache(self, found.values())))

    def search(self, query: str, max_results: int) -> list[str]:
        return _cache(self, self.client.search(query, max_results=max_results))

    def records(self, work_ids: Iterable[str]) -> Bundle:
        """The bundle tables of `work_ids`, fetched (or read from the store) if need be."""
        return bundle_from_works(self.works(work_ids), self.skips)

    def close(self) -> None:
        self.client.close()
