"""Seeding: turn the spec's `seed` section into a list of works, saying how each one was found.

Every identifier that does not resolve is reported (by value, or by entry key for BibTeX/RIS files),
never dropped silently. The source is a files universe or OpenAlex; both answer `known_ids`,
`ids_for_dois`, `ids_for_pmids` and `search`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from .errors import DataError
from .ids import normalize_doi, normalize_pmid, short_id
from .skips import Skips
from .sources.files import read_seed_entries
from .tables import SEEDS, conform


class SeedSource(Protocol):
    def known_ids(self, work_ids: list[str]) -> dict[str, str]: ...
    def ids_for_dois(self, dois: list[str]) -> dict[str, str]: ...
    def ids_for_pmids(self, pmids: list[str]) -> dict[str, str]: ...
    def search(self, query: str, max_results: int) -> list[str]: ...
    def all_ids(self) -> set[str]: ...


@dataclass
class SeedResult:
    seeds: pd.DataFrame
    unresolved: list[dict[str, str]] = field(default_factory=list)


def resolve_seeds(source: SeedSource, seed_spec: dict[str, Any], seed_files: list[Path],
                  file_names: list[str], skips: Skips | None = None) -> SeedResult:
    """Resolve the query, IDs, DOIs and seed-file entries; each seed keeps the first way it was found.
    Seed-file entries that cannot be read go to `skips`, naming each file as `file_names` does."""
    entries = [(name, entry) for path, name in zip(seed_files, file_names)
               for entry in read_seed_entries(path, name, skips)]
    ids = [short_id(x) or x for x in seed_spec.get("ids", [])] + [e.work_id for _, e in entries if e.work_id]
    dois = [normalize_doi(x) for x in seed_spec.get("dois", [])] + [e.doi for _, e in entries if e.doi]
    known = source.known_ids(sorted(set(ids)))
    by_doi = source.ids_for_dois(sorted({d for d in dois if d}))
    pmids = sorted({p for p in (normalize_pmid(x) for x in seed_spec.get("pmids", [])) if p})
    by_pmid = source.ids_for_pmids(pmids) if pmids else {}
    found: dict[str, str] = {}
    unresolved: list[dict[str, str]] = []
    if seed_spec.get("all"):   # the export is the corpus: every work the source files hold
        for work_id in sorted(source.all_ids()):
            found.setdefault(work_id, "all")
    if seed_spec.get("query"):
        for work_id in source.search(seed_spec["query"], seed_spec.get("max_results", 200)):
            found.setdefault(work_id, "query")
    for raw in seed_spec.get("ids", []):
        _add(found, unresolved, known.get(short_id(raw) or raw), "id", raw)
    for raw in seed_spec.get("dois", []):
        _add(found, unresolved, by_doi.get(normalize_doi(raw) or ""), "doi", raw)
    for raw in seed_spec.get("pmids", []):
        _add(found, unresolved, by_pmid.get(normalize_pmid(raw) or ""), "pmid", str(raw))
    for name, entry in entries:
        work_id = known.get(entry.work_id or "") or by_doi.get(entry.doi or "")
        _add(found, unresolved, work_id, f"file:{name}", entry.key)
    seeds = conform(pd.DataFrame({"work_id": list(found), "seeded_by": list(found.values())}), SEEDS)
    if seeds.empty:
        raise DataError("no seed resolved to a work: check seed.query / seed.ids / seed.dois / seed.pmids / seed.files / "
                        "seed.all "
                        f"({len(unresolved)} given, none found in the source)", code="NO_SEEDS",
                        details={"unresolved": unresolved[:20]})
    return SeedResult(seeds=seeds, unresolved=unresolved)


def _add(found: dict[str, str], unresolved: list[dict[str, str]], work_id: str | None, how: str,
         value: str) -> None:
    if work_id:
        found.setdefault(work_id, how)
    else:
        unresolved.append({"seeded_by": how, "value": value})
