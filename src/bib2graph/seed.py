"""Seeding: turn the spec's `seed` section into a list of works, saying how each one was found.

Every identifier that does not resolve is reported (by value, or by entry key for BibTeX/RIS files),
never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import DataError
from .sources.files import read_seed_entries
from .sources.records import normalize_doi, short_id
from .sources.universe import FileUniverse
from .tables import SEEDS, conform


@dataclass
class SeedResult:
    seeds: pd.DataFrame
    unresolved: list[dict[str, str]] = field(default_factory=list)


def seed_from_universe(universe: FileUniverse, seed_spec: dict[str, Any], seed_files: list[Path],
                       file_names: list[str]) -> SeedResult:
    """Resolve IDs, DOIs and seed-file entries against the works of a file universe."""
    if seed_spec.get("query"):
        raise DataError("seed.query searches OpenAlex and needs `source.kind: openalex`; with a files "
                        "source list the seeds under seed.ids, seed.dois or seed.files",
                        code="SPEC_UNSUPPORTED", details={"key": "query", "place": "seed.query"})
    found: dict[str, str] = {}
    unresolved: list[dict[str, str]] = []

    def add(work_id: str | None, how: str, value: str) -> None:
        if work_id and work_id in universe.ids:
            found.setdefault(work_id, how)
        else:
            unresolved.append({"seeded_by": how, "value": value})

    for raw in seed_spec.get("ids", []):
        add(short_id(raw), "id", raw)
    for raw in seed_spec.get("dois", []):
        doi = normalize_doi(raw)
        add(universe.by_doi.get(doi) if doi else None, "doi", raw)
    for path, name in zip(seed_files, file_names):
        for entry in read_seed_entries(path):
            work_id = entry.work_id if entry.work_id in universe.ids else universe.by_doi.get(entry.doi or "")
            add(work_id, f"file:{name}", entry.key)
    seeds = conform(pd.DataFrame({"work_id": list(found), "seeded_by": list(found.values())}), SEEDS)
    if seeds.empty:
        raise DataError("no seed resolved to a work: check seed.ids / seed.dois / seed.files "
                        f"({len(unresolved)} given, none found in the source)", code="NO_SEEDS",
                        details={"unresolved": unresolved[:20]})
    return SeedResult(seeds=seeds, unresolved=unresolved)
