"""The works of a review's source files, read once, merged and with their references resolved.

    files ─► entries (one per record: OpenAlex JSON, Web of Science, Scopus, RIS, BibTeX, …)
          ─► merged works (one per work: same ID, DOI, or title + year + first author)
          ─► references resolved to one identity per cited work
          ─► the bundle tables + the cited references + where each work came from

Records wait in a scratch file and cited references in DuckDB (`reference_table`) until every work is
known, so that an import of a whole field holds neither in memory.

A merged work takes each field from its best source (`entries.RANK`: OpenAlex, then Web of Science,
Scopus, Lens, reference managers), its authors and references from the best source that has any (never
a union, which would count one cited work twice), and the union of its sources' terms. A reference
resolves to a work of the universe by DOI, else by its author–year–source–volume–page key; an
unresolved one is a work of its own, ``REF:`` and a hash of its identity, labelled from what the
reference says (see docs/networks.md, "Cited references").
"""

from __future__ import annotations

import pickle
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..ids import short_id
from ..skips import Skips
from ..tables import (AFFILIATIONS, AUTHORSHIPS, BUNDLE_TABLES, ORIGINS, REFERENCES, ROW_GROUP, SOURCE_REFS, TERMS,
                      WORKS, Bundle, arrow_schema, conform, read_table, write_arrow)
from .exports.entries import WORK_FIELDS, Entry, entry_from_record
from .exports.detect import file_format, is_blank
from .exports.readers import OPENALEX_JSON, read_records
from .exports.names import display_name
from .exports.references import ReferenceResolver, SourceFolding, native_identity, style_for, work_keys
from .files import read_work_objects
from .records import work_rows
from .reference_table import ReferenceTable


@dataclass
class Ingested:
    bundle: Bundle
    cited: pd.DataFrame      # SOURCE_REFS: the cited works that resolved to no work of the universe
    origins: pd.DataFrame    # ORIGINS: which record of which file gave which fields of which work
    counts: dict[str, Any] = field(default_factory=dict)


def _openalex_entries(path: Path, name: str, skips: Skips, start: int) -> Iterator[Entry]:
    for number, work in enumerate(read_work_objects(path, name, skips), 1):
        rows = work_rows(work)
        if rows is None:
            continue
        row = rows["works"][0]
        biblio = work.get("biblio") if isinstance(work.get("biblio"), dict) else {}
        strip = lambda r: {k: v for k, v in r.items() if k != "work_id"}   # noqa: E731
        yield Entry(file=name, format=OPENALEX_JSON, record=number, line=0, order=start + number,
                    native_id=row["work_id"], work={k: row[k] for k in WORK_FIELDS},
                    authors=[strip(r) for r in rows["authorships"]],
                    affiliations=[strip(r) for r in rows["affiliations"]],
                    terms=[(r["field"], r["term_id"], r["term"], r["score"]) for r in rows["terms"]],
                    referenced_ids=[r["referenced_id"] for r in rows["references"]],
                    volume=_text(biblio.get("volume")), first_page=_text(biblio.get("first_page")))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def read_entries(paths: list[Path], names: list[str], formats: list[str | None], skips: Skips,
                 on_record: Callable[[int], None] | None = None) -> Iterator[Entry]:
    """Every record of every file, in file order; formats declared or detected."""
    order = count = 0
    for path, name, declared in zip(paths, names, formats, strict=True):
        if is_blank(path):
            skips.add(name, "", "is empty: holds no records")
            continue
        fmt = file_format(Path(path), name, declared)
        if fmt == OPENALEX_JSON:
            entries: Iterable[Entry] = _openalex_entries(Path(path), name, skips, order)
        else:
            entries = (entry_from_record(r, order + i) for i, r in
                       enumerate(read_records(Path(path), name, fmt, skips), 1))
        for entry in entries:
            order = max(order, entry.order)
            count += 1
            if on_record is not None:
                on_record(count)
            yield entry


class _Groups:
    """Union–find over entries sharing a merge key."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        a, b = self.find(i), self.find(j)
        if a != b:
            self.parent[max(a, b)] = min(a, b)


def group_entries(entries: list[Entry]) -> list[list[Entry]]:
    """Entries that are one work, best source first (rank, then read order); groups in order of their
    best entry.

    The same native ID, DOI or PMID makes one work (a PMID not when the two records give different
    DOIs). Title, year and first author join a record without a DOI to the one work with a DOI that
    has them (to none when several do: a conference abstract and its article share all three), and
    records without a DOI to each other; two DOIs never merge, nor do two records one database (WoS,
    Scopus, OpenAlex) gave different IDs.
    """
    groups = _Groups(len(entries))
    owner: dict[str, int] = {}
    titled: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        for key in entry.merge_keys():
            if key.startswith("title:"):
                titled.setdefault(key, []).append(i)
            elif key in owner:
                if not (key.startswith("pmid:") and _dois_differ(entries[owner[key]], entry)):
                    groups.union(owner[key], i)
            else:
                owner[key] = i
    natives: dict[int, set[tuple[str, str]]] = {}   # group root → the native IDs of its database records
    for i, entry in enumerate(entries):
        if entry.scheme is not None:
            natives.setdefault(groups.find(i), set()).add((entry.scheme, entry.native_id))
    for members in titled.values():
        with_doi = {groups.find(i) for i in members if entries[i].doi}
        without = [i for i in members if not entries[i].doi]
        if len(with_doi) <= 1 and without:
            anchor = next(iter(with_doi)) if with_doi else without[0]
            for i in without:
                a, b = groups.find(anchor), groups.find(i)
                ids_a, ids_b = natives.get(a, set()), natives.get(b, set())
                if a == b or any(s == t and x != y for s, x in ids_a for t, y in ids_b):
                    continue   # one database's two IDs are two works, whatever their titles say
                groups.union(a, b)
                natives[groups.find(a)] = ids_a | ids_b
    members: dict[int, list[Entry]] = {}
    for i, entry in enumerate(entries):
        members.setdefault(groups.find(i), []).append(entry)
    ordered = [sorted(m, key=lambda e: (e.rank, e.order)) for m in members.values()]
    return sorted(ordered, key=lambda m: (m[0].rank, m[0].order))


def _dois_differ(a: Entry, b: Entry) -> bool:
    doi_a, doi_b = a.doi, b.doi
    return bool(doi_a and doi_b and doi_a != doi_b)


@dataclass
class Merged:
    work_id: str
    entries: list[Entry]
    work: dict[str, Any]
    supplied: dict[int, list[str]]   # index in entries → the fields it supplied
    authors_from: Entry | None
    references_from: Entry | None


def merge_group(entries: list[Entry]) -> Merged:
    """One work from the entries of a group: each field from the best entry that has it."""
    best = entries[0]
    work, supplied = {}, {i: [] for i in range(len(entries))}
    for name in WORK_FIELDS:
        for i, entry in enumerate(entries):
            value = entry.work.get(name)
            if value is not None and value is not False and value != "":
                work[name] = value
                supplied[i].append(name)
                break
        else:
            work[name] = False if name == "is_retracted" else None
    authors_from = next((e for e in entries if e.authors), None)
    references_from = next((e for e in entries if e.cites), None)
    for i, entry in enumerate(entries):
        if entry is authors_from:
            supplied[i].append("authors")
        if entry is references_from:
            supplied[i].append("references")
        if entry.terms:
            supplied[i].append("terms")
    return Merged(best.native_id, entries, work, supplied, authors_from, references_from)


class _Spill:
    """Entries pickled to a scratch file as they are read and read back one group at a time: a hundred
    thousand records as Python objects are about a gigabyte."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("w+b")
        self.offsets: list[int] = []

    def add(self, entry: Entry) -> None:
        self.offsets.append(self.file.tell())
        pickle.dump(entry, self.file, pickle.HIGHEST_PROTOCOL)

    def get(self, index: int) -> Entry:
        self.file.seek(self.offsets[index])
        return pickle.load(self.file)

    def close(self) -> None:
        self.file.close()


@dataclass(slots=True)
class _Key:
    """What `group_entries` needs of an entry, without its rows; `index` finds the entry in the spill."""

    index: int
    keys: list[str]
    doi: str | None
    scheme: str | None
    native_id: str
    rank: int
    order: int
    file: str

    def merge_keys(self) -> list[str]:
        return self.keys


#: `import_files` hands each table to a writer: its name (a bundle table, "cited", "origins") and its rows
#: as Arrow batches sorted by key
Writer = Callable[[str, Iterator[pa.RecordBatch]], Any]
SCHEMAS = {**BUNDLE_TABLES, "cited": SOURCE_REFS, "origins": ORIGINS}


def table_writer(paths: dict[str, Path]) -> Writer:
    """A `Writer` of each table to its path in `paths` (`write_arrow`: `write_table`'s bytes)."""
    return lambda name, batches: write_arrow(batches, SCHEMAS[name], paths[name])


def ingest(paths: list[Path], names: list[str], formats: list[str | None] | None = None,
           skips: Skips | None = None, on_record: Callable[[int], None] | None = None,
           fold: SourceFolding | None = None) -> Ingested:
    """`import_files` into memory: its tables as they are written (and checked, by `write_arrow`), read
    back (for a review's files, the tests and `source.resolve: openalex`; the sources job writes them
    straight to its outputs)."""
    with tempfile.TemporaryDirectory(prefix="b2g-ingest-") as tmp:
        folder = Path(tmp)
        counts = import_files(paths, names, formats, skips, on_record, fold,
                              write=table_writer({name: folder / f"{name}.parquet" for name in SCHEMAS}),
                              scratch=folder)
        return Ingested(Bundle.read(folder, checked=False), read_table(folder / "cited.parquet", SOURCE_REFS, False),
                        read_table(folder / "origins.parquet", ORIGINS, False), counts)


def import_files(paths: list[Path], names: list[str], formats: list[str | None] | None = None,
                 skips: Skips | None = None, on_record: Callable[[int], None] | None = None,
                 fold: SourceFolding | None = None, *, write: Writer, scratch: Path) -> dict[str, Any]:
    """Read, merge and resolve the works of `paths` (named in messages as `names`), handing each table to
    `write` as it is done; returns the counts. `fold` maps source names before references are keyed
    (`source.thesaurus`). Records wait in a file and references in DuckDB, both in `scratch` (a folder
    the caller removes), so that memory holds the tables being written, not every record and reference."""
    skips = Skips() if skips is None else skips
    formats = formats or [None] * len(paths)
    refs = ReferenceTable(scratch, fold)
    spill = _Spill(scratch / "entries.pickle")
    try:
        lengths: dict[str, Counter] = defaultdict(Counter)   # file → how many records list n references
        keys = _read(read_entries(paths, names, formats, skips, on_record), refs, spill, lengths)
        refs.finish()
        records, by_file = len(keys), Counter(k.file for k in keys)
        merged = _Merged(fold, scratch)
        for group in group_entries(keys):
            merged.add(merge_group([spill.get(k.index) for k in group]), [k.index for k in group])
        del keys
        pa.default_memory_pool().release_unused()
        merged.write_rows(write)
        resolving = refs.resolve(merged.resolver, refs.fuller())
        if len({db for db, _ in merged.databases.values()}) > 1:   # one work's two reference lists, aligned
            resolving["aligned_across_databases"] = refs.align(merged.databases)
        merged.resolver = None   # the keys of every work: tens of MB, no longer asked
        refs.references(merged.sources, lambda batches: write("references", batches))
        merged.write_works(write, refs.reference_counts())
        found = _agreements(merged, refs)
        duplicates, works = merged.duplicates, merged.count
        del merged   # its keys and sources: tens of MB a field, let go before the largest table is written
        refs.cited(lambda batches: write("cited", batches))
    finally:
        spill.close()
        refs.close()
    counts = {"records": records, "works": works,
              "files": [{"file": name, "records": by_file.get(name, 0), "duplicates": duplicates.get(name, 0)}
                        | ({"references_capped_at": cap} if (cap := capped_at(lengths[name])) else {})
                        for name in names],
              "references": {**resolving, "total": refs.counts["references"], "unparsed": refs.counts["unparsed"],
                             "with_doi": refs.counts["with_doi"], "unnamed": refs.counts["unnamed"],
                             "unparsed_shown": refs.unparsed}}
    if found:
        counts["agreement"] = found
    return counts


def _read(entries: Iterable[Entry], refs: ReferenceTable, spill: _Spill, lengths: dict[str, Counter]) -> list[_Key]:
    """Every entry to the spill and its references to `refs` (parsed as read: a field's export cites
    millions of works); the keys that group them. `lengths` counts, per file, the records listing each
    number of references (`capped_at`)."""
    keys = []
    for entry in entries:
        index = len(keys)
        if entry.raw_references:
            lengths[entry.file][len(entry.raw_references)] += 1
            style = style_for(entry.format)
            entry.cites = any([refs.add(index, raw, line, style, entry.file) is not None
                               for raw, line in entry.raw_references])
            entry.raw_references, entry.parsed_references = [], True
        elif entry.referenced_ids:
            refs.add_ids(index, [short_id(r) or r for r in entry.referenced_ids])
            entry.cites, entry.referenced_ids = True, []
        keys.append(_Key(index, entry.merge_keys(), entry.doi, entry.scheme, entry.native_id, entry.rank,
                         entry.order, entry.file))
        spill.add(entry)
    return keys


#: a file's reference lists look cut at n when at least this share of its records listing references list n,
#: and almost none (`CAPPED_ABOVE`) more; with at least `CAPPED_RECORDS` such records
CAPPED_SHARE, CAPPED_ABOVE, CAPPED_RECORDS = 0.5, 0.02, 20


def capped_at(lengths: Counter) -> int | None:
    """The number of references at which a file's reference lists look cut (most of its records list just
    that many, almost none more), else None. Scopus CSV exports of 2026 list at most 10 references a
    record (283 of 357 records and 676 of 873 hold exactly 10): coupling built from them misses most
    shared references, and the manifest says so."""
    total = sum(lengths.values())
    if total < CAPPED_RECORDS:
        return None
    cap, held = max(lengths.items(), key=lambda item: (item[1], -item[0]))
    above = sum(n for length, n in lengths.items() if length > cap)
    return cap if held >= CAPPED_SHARE * total and above <= CAPPED_ABOVE * total else None


class _Rows:
    """One table's rows, a tuple each as they come, turned into Arrow batches (`write_table`'s types)
    every `ROWS` rows and spilled to an Arrow file in the scratch folder until the table is sorted: a
    field's works and their authors, affiliations and terms are hundreds of MB, and only one table at a
    time need be in memory."""

    ROWS = 20_000

    def __init__(self, schema, path: Path) -> None:
        self.schema, self.path = schema, path
        self.types = arrow_schema(schema).remove_metadata()
        self.pending: list[tuple] = []
        self.file = pa.ipc.new_stream(str(path), self.types)

    def add(self, row: tuple) -> None:
        self.pending.append(row)
        if len(self.pending) >= self.ROWS:
            self._batch()

    def _batch(self) -> None:
        if self.pending:
            columns = list(zip(*self.pending))
            self.file.write_batch(pa.RecordBatch.from_arrays(
                [pa.array(values, type=self.types.field(i).type) for i, values in enumerate(columns)],
                schema=self.types))
            self.pending = []

    def sorted_batches(self) -> Iterator[pa.RecordBatch]:
        """The rows sorted by the schema's key, as `conform` sorts them; the spill removed."""
        self._batch()
        self.file.close()
        with pa.OSFile(str(self.path)) as file, pa.ipc.open_stream(file) as reader:
            table = reader.read_all().combine_chunks()   # Arrow's take joins a column's chunks first, a copy
        self.path.unlink()
        pa.default_memory_pool().release_unused()   # the chunks' pages, else kept from the columns to come
        order = pc.sort_indices(table, [(k, "ascending") for k in self.schema.metadata["key"]])
        columns = []
        while table.num_columns:   # a column at a time, each let go once sorted: the table is held once
            columns.append(table.column(0).take(order))
            table = table.remove_column(0)
        yield from pa.Table.from_arrays(columns, schema=self.types).to_batches(ROW_GROUP)


_AUTHORSHIP = [c for c in AUTHORSHIPS.columns if c != "work_id"]
_AFFILIATION = [c for c in AFFILIATIONS.columns if c != "work_id"]


class _Merged:
    """The rows of the merged works, gathered one work at a time: the works (their reference counts come
    last), authorships, affiliations, terms and origins; the keys a reference resolves to each by; which
    record each takes its references from; which database each record with references is from."""

    def __init__(self, fold: SourceFolding | None, scratch: Path) -> None:
        self.fold = fold
        self.count = 0
        self.rows = {name: _Rows(schema, scratch / f"{name}.arrows") for name, schema in (
            ("works", WORKS), ("authorships", AUTHORSHIPS), ("affiliations", AFFILIATIONS), ("terms", TERMS),
            ("origins", ORIGINS))}
        self.resolver = ReferenceResolver(fold=fold)   # the keys each work answers to
        self.works: Path | None = None   # the works sorted, once `write_rows` has run
        self.sources: list[tuple[str, int]] = []
        self.duplicates: Counter = Counter()
        self.databases: dict[int, tuple[str, str]] = {}   # entry → (database, work ID)
        self.files: dict[str, set[str]] = {}
        from .agreement import database   # scipy: loaded when an import runs, not with the module
        self.database = database

    def add(self, m: Merged, indices: list[int]) -> None:
        wid, rows = m.work_id, self.rows
        self.count += 1
        rows["works"].add(tuple(wid if c == "work_id" else 0 if c == "n_references" else m.work[c]   # counted last
                                for c in WORKS.columns))
        if m.authors_from:
            for r in m.authors_from.authors:
                rows["authorships"].add((wid, *(r.get(c) for c in _AUTHORSHIP)))
            seen_places = set()
            for r in m.authors_from.affiliations:
                if (place := (r.get("position"), r.get("institution_id"))) not in seen_places:
                    seen_places.add(place)
                    rows["affiliations"].add((wid, *(r.get(c) for c in _AFFILIATION)))
        seen = set()
        for i, (entry, index) in enumerate(zip(m.entries, indices)):
            for row in entry.terms:
                if row[:2] not in seen:
                    seen.add(row[:2])
                    rows["terms"].add((wid, *row))
            rows["origins"].add((wid, entry.file, entry.format, entry.record, entry.line, entry.native_id, i == 0,
                                 ",".join(m.supplied[i])))
            if entry is m.references_from:
                self.sources.append((wid, index))
            if entry.parsed_references and (db := self.database(entry.format, entry.scheme)) is not None:
                self.databases[index] = (db, wid)
                self.files.setdefault(db, set()).add(entry.file)
        self.duplicates.update(e.file for e in m.entries[1:])
        lens = sorted({native_identity("lens", e.native_id) for e in m.entries if e.scheme == "lens"})
        self.resolver.add(wid, work_keys(display_name(_first_author(m)), m.work.get("year"), m.work.get("venue"),
                                         _first(m, "venue_abbrev"), _first(m, "volume"), _first(m, "first_page"),
                                         m.work.get("doi"), self.fold, m.work.get("pmid"), lens))

    def write_rows(self, write: Writer) -> None:
        """Every table but the works, written and let go; the works sorted (while little else is in memory)
        and spilled again, to be written when their reference counts are known."""
        for name in ("authorships", "affiliations", "terms", "origins"):
            write(name, self.rows.pop(name).sorted_batches())
        works = self.rows.pop("works")
        self.works = works.path.with_suffix(".sorted.arrows")
        with pa.ipc.new_stream(str(self.works), works.types) as out:
            for batch in works.sorted_batches():
                out.write_batch(batch)

    def write_works(self, write: Writer, n_references: dict[str, int]) -> None:
        """The works, each with the number of works it references (`n_references`)."""
        column = list(WORKS.columns).index("n_references")

        def counted() -> Iterator[pa.RecordBatch]:
            # read a batch at a time, not memory-mapped: mapped pages would count as the job's memory too
            with pa.OSFile(str(self.works)) as file, pa.ipc.open_stream(file) as reader:
                for batch in reader:
                    counts = pa.array([n_references.get(w, 0) for w in batch.column(0).to_pylist()], pa.int64())
                    yield batch.set_column(column, batch.schema.field(column), counts)
        write("works", counted())


def _agreements(merged: _Merged, refs: ReferenceTable) -> list[dict[str, Any]]:
    """How far each two databases' records of the same works agree on what they cite (agreement.py):
    each record's own references, resolved as the network resolves them."""
    from .agreement import agreements

    if len({db for db, _ in merged.databases.values()}) < 2:
        return []
    sides: dict[str, dict[str, set[str]]] = {}
    for db, work_id in merged.databases.values():
        sides.setdefault(db, {}).setdefault(work_id, set())
    for entry, work_id in refs.entry_references(list(merged.databases)):
        db, citing = merged.databases[entry]
        sides[db][citing].add(work_id)
    return agreements(sides, {db: sorted(names) for db, names in merged.files.items()})


def read_source_folding(path: str | Path) -> SourceFolding:
    """`source.thesaurus` as the folding of source names (thesaurus.py reads it: either header,
    chains followed, every problem a THESAURUS_INVALID naming its line; an empty target keeps a name)."""
    from ..thesaurus import read
    from .exports.references import normalize_raw

    return SourceFolding({normalize_raw(name): target for name, target in read(path).items() if target})


def resolve_with_openalex(found: Ingested, ids_for_dois: Callable[[list[str]], dict[str, str]],
                          ids_for_pmids: Callable[[list[str]], dict[str, str]] | None = None) -> Ingested:
    """`found` with each ``REF:`` work that carries a DOI (else a PMID) replaced by the OpenAlex work of
    that DOI (PMID), as `ids_for_dois` (`ids_for_pmids`) answers, in batches of 100 through the client
    and its raw store. Their rows in `cited` keep what the reference says, under the OpenAlex ID, so
    that their nodes stay named without a second look-up; counts go to ``references.openalex``."""
    cited = found.cited
    asked = cited.loc[cited["doi"].notna(), ["work_id", "doi"]]
    by_doi = ids_for_dois(sorted(set(asked["doi"]))) if len(asked) else {}
    to = {ref: by_doi[doi] for ref, doi in zip(asked["work_id"], asked["doi"]) if doi in by_doi}
    by_pmid = cited.loc[cited["pmid"].notna() & ~cited["work_id"].isin(to), ["work_id", "pmid"]]
    if ids_for_pmids is not None and len(by_pmid):
        found_pmids = ids_for_pmids(sorted(set(by_pmid["pmid"])))
        to.update((ref, found_pmids[p]) for ref, p in zip(by_pmid["work_id"], by_pmid["pmid"]) if p in found_pmids)
    known = set(found.bundle.works["work_id"])
    refs = found.bundle.references.assign(referenced_id=found.bundle.references["referenced_id"].replace(to))
    refs = refs[refs["work_id"] != refs["referenced_id"]].drop_duplicates()
    works = found.bundle.works.assign(
        n_references=found.bundle.works["work_id"].map(refs.groupby("work_id").size()).fillna(0).astype("int64"))
    renamed = cited.assign(work_id=cited["work_id"].replace(to))
    renamed = renamed[~renamed["work_id"].isin(known)].drop_duplicates("work_id")
    renamed = renamed.assign(citing=renamed["work_id"].map(refs.groupby("referenced_id").size()).fillna(0)
                             .astype("int64"))
    bundle = Bundle(works=conform(works, WORKS), authorships=found.bundle.authorships,
                    affiliations=found.bundle.affiliations, references=conform(refs, REFERENCES),
                    terms=found.bundle.terms)
    counts = {**found.counts, "references": {**found.counts["references"], "openalex": {
        "asked": int(asked["doi"].nunique()),
        "asked_pmids": int(by_pmid["pmid"].nunique()) if ids_for_pmids is not None else 0,
        "resolved": len(set(to.values())),
        "into_universe": len(set(to.values()) & known)}}}
    return Ingested(bundle, conform(renamed, SOURCE_REFS), found.origins, counts)


def _first_author(m: Merged) -> str | None:
    return m.authors_from.first_author() if m.authors_from else None


def _first(m: Merged, name: str) -> str | None:
    return next((getattr(e, name) for e in m.entries if getattr(e, name)), None)


