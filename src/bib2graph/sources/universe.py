"""A fixed universe of works read from files, seen through the same questions the OpenAlex source
answers: which works exist, what they reference, and which works cite them.

With `source.kind: files` seeding and chaining stay inside the universe: backward chaining finds
the referenced works that are present in it, forward chaining the works in it that cite. Cited
references of export files that match no work of the universe (``REF:`` works, `refs`) are known by
what the reference says, which is what labels their nodes.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import DataError
from ..skips import Skips
import pandas as pd
import pyarrow as pa

from ..atomic import copy_file
from ..tables import (AUTHORSHIPS, BUNDLE_TABLES, SOURCE_REFS, WORKS, Bundle, conform, read_columns,
                      read_dictionaries, read_filtered, read_rows)
from .citation_links import Links


def _first_work(works: pd.DataFrame, column: str) -> dict[str, str]:
    """Value of `column` → the work (the first by work ID when works share it)."""
    found: dict[str, str] = {}
    for work_id, value in sorted(zip(works["work_id"], works[column]), key=lambda x: x[0]):
        if isinstance(value, str):
            found.setdefault(value, work_id)
    return found


class FileUniverse:
    """The works of a set of OpenAlex Work files, indexed for look-up and chaining."""

    def __init__(self, bundle: Bundle | Callable[[], Bundle], refs: pd.DataFrame | None | Callable[[], Any] = None,
                 index: pd.DataFrame | None = None, folder: Path | None = None, cited: Path | None = None) -> None:
        """`bundle` and `refs` are the tables or functions reading them when first needed; `index` (the
        works' IDs, DOIs and PMIDs) spares the whole bundle to a job that only looks works up; `folder`
        and `cited` hold the tables' files, which chaining reads two columns of, a pool of every work
        copies, and a pool of some works reads only the rows of (`read`)."""
        self._bundle, self._cited, self.folder, self.cited_path = bundle, refs, folder, cited
        works = self.bundle.works if index is None else index
        self.ids = set(works["work_id"])
        self.by_doi = _first_work(works, "doi")
        self.by_pmid = _first_work(works, "pmid")

    @classmethod
    def read(cls, folder: str | Path, cited: str | Path) -> "FileUniverse":
        """The universe the `sources` job wrote to `folder` (and `cited`), each table read when first
        needed and only as far as needed: the seed job looks up IDs, DOIs and PMIDs; chaining reads the
        references' two ID columns; the pool reads the rows of its works. A million works' tables are
        never all held."""
        return cls(lambda: Bundle.read(folder), index=read_columns(Path(folder) / "works.parquet", WORKS, ["doi", "pmid"]),
                   folder=Path(folder), cited=Path(cited))

    def copy_whole(self, work_ids: list[str], folder: str | Path) -> bool:
        """Write the bundle of `work_ids` to `folder` by copying the universe's table files, without
        reading them, when `work_ids` are all its works and nothing else (`seed.all` without chaining: a
        whole field's pool); False, and nothing written, otherwise. The bytes are those `records` and
        `Bundle.write` would give: the same checked tables, written by the same writer."""
        if self.folder is None or set(work_ids) != self.ids:
            return False
        for name in BUNDLE_TABLES:
            copy_file(self.folder / f"{name}.parquet", Path(folder) / f"{name}.parquet", keep_times=False)
        return True

    @cached_property
    def bundle(self) -> Bundle:
        return self._bundle() if callable(self._bundle) else self._bundle

    @cached_property
    def refs(self) -> pd.DataFrame | None:
        """The cited references outside the universe (SOURCE_REFS), None when there are none."""
        return self._cited() if callable(self._cited) else self._cited

    @cached_property
    def _links(self) -> Links:
        """Who cites whom (citation_links), built when chaining first asks."""
        names = ["work_id", "referenced_id"]
        table = (read_dictionaries(self.folder / "references.parquet", names) if self.folder is not None
                 else pa.Table.from_pandas(self.bundle.references[names], preserve_index=False))
        return Links(table, self.ids)

    @classmethod
    def from_files(cls, paths: Iterable[str | Path], names: Iterable[str] | None = None,
                   skips: Skips | None = None, formats: Iterable[str | None] | None = None) -> "FileUniverse":
        """The universe of the works in `paths`, read as the `sources` job reads them; `names` are how
        messages name the files (default: the paths), `skips` collects the records passed over."""
        from .ingest import ingest

        paths = [Path(p) for p in paths]
        names = [str(p) for p in paths] if names is None else list(names)
        found = ingest(paths, names, list(formats) if formats is not None else None, skips)
        return cls(found.bundle, found.cited)

    def references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """All works each one references (inside or outside the universe)."""
        return self._links.references(work_ids)

    def reachable_references(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The referenced works the universe holds: backward chaining's reach."""
        return self._links.reachable_references(work_ids)

    def citing(self, work_ids: list[str]) -> dict[str, list[str]]:
        """The works of the universe citing each one: forward chaining's reach."""
        return self._links.citing(work_ids)

    def all_ids(self) -> set[str]:
        """Every work of the universe (seed.all)."""
        return set(self.ids)

    def known_ids(self, work_ids: list[str]) -> dict[str, str]:
        """Asked ID → ID, for the IDs the universe holds."""
        return {w: w for w in work_ids if w in self.ids}

    def ids_for_dois(self, dois: list[str]) -> dict[str, str]:
        """DOI → work ID for the DOIs of works in the universe."""
        return {d: self.by_doi[d] for d in dois if d in self.by_doi}

    def ids_for_pmids(self, pmids: list[str]) -> dict[str, str]:
        """PMID → work ID for the PMIDs of works in the universe."""
        return {p: self.by_pmid[p] for p in pmids if p in self.by_pmid}

    def search(self, query: str, max_results: int) -> list[str]:
        raise DataError("seed.query searches OpenAlex and needs `source.kind: openalex`; with a files "
                        "source list the seeds under seed.ids, seed.dois or seed.files",
                        code="SPEC_UNSUPPORTED", details={"key": "query", "place": "seed.query"})

    def records(self, work_ids: Iterable[str]) -> Bundle:
        """The bundle tables of `work_ids`; a cited reference outside the universe as a work of what the
        reference says (first author, year, title, source, DOI) and no references of its own."""
        work_ids = list(work_ids)
        if self.ids.issubset(work_ids):
            found = replace(self.bundle)                                  # all: no copy
        elif self.folder is not None:
            found = read_filtered(self.folder, work_ids)                  # only the rows of these works
        else:
            found = self.bundle.subset(work_ids)
        refs = self._refs_of(work_ids)
        if refs is None or not len(refs):
            return found
        works = pd.DataFrame({"work_id": refs["work_id"], "doi": refs["doi"], "title": refs["title"],
                              "year": refs["year"], "venue": refs["venue"], "n_references": 0, "is_retracted": False})
        named = refs[refs["first_author"].notna()]
        authors = pd.DataFrame({"work_id": named["work_id"], "position": 0, "author_name": named["first_author"]})
        found.works = conform(pd.concat([found.works, works.reindex(columns=list(WORKS.columns))],
                                        ignore_index=True).assign(is_retracted=lambda d: d["is_retracted"].astype(bool)),
                              WORKS)
        found.authorships = conform(pd.concat([found.authorships, authors.reindex(columns=list(AUTHORSHIPS.columns))],
                                              ignore_index=True), AUTHORSHIPS)
        return found

    def _refs_of(self, work_ids: list[str]) -> pd.DataFrame | None:
        """The rows of `refs` for `work_ids` (from the file, only they, for a universe read from files)."""
        if self.cited_path is not None:
            return read_rows(self.cited_path, SOURCE_REFS, work_ids)
        return None if self.refs is None else self.refs[self.refs["work_id"].isin(set(work_ids))]

    def close(self) -> None:
        """Nothing to release; present so every source can be closed alike."""
