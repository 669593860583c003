"""The works of a review's source files, read once, merged and with their references resolved.

    files ─► entries (one per record: OpenAlex JSON, Web of Science, Scopus, RIS, BibTeX, …)
          ─► merged works (one per work: same ID, DOI, or title + year + first author)
          ─► references resolved to one identity per cited work
          ─► the bundle tables + the cited references + where each work came from

A merged work takes each field from its best source (`entries.RANK`: OpenAlex, then Web of Science,
Scopus, Lens, reference managers), its authors and references from the best source that has any (never
a union, which would count one cited work twice), and the union of its sources' terms. A reference
resolves to a work of the universe by DOI, else by its author–year–source–volume–page key; an
unresolved one is a work of its own, ``REF:`` and a hash of its identity, labelled from what the
reference says (see docs/networks.md, "Cited references").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pandas as pd

from ..ids import short_id
from ..skips import Skips
from ..tables import AFFILIATIONS, AUTHORSHIPS, REFERENCES, TERMS, WORKS, Bundle, conform
from .exports.entries import WORK_FIELDS, Entry, entry_from_record
from .exports.detect import file_format
from .exports.readers import OPENALEX_JSON, read_records
from .exports.names import display_name
from .exports.work_ids import derived_id
from .exports.references import (ReferenceResolver, SourceFolding, identity_key, merge_identities, names_a_work,
                                 parse_reference, style_for, work_keys)
from .files import read_work_objects
from .records import work_rows

UNPARSED_SHOWN = 1_000   # unparsed references listed with file and line in the manifest; cited.parquet has all (raw:)


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
        with_doi = {groups.find(i) for i in members if entries[i].work.get("doi")}
        without = [i for i in members if not entries[i].work.get("doi")]
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
    doi_a, doi_b = a.work.get("doi"), b.work.get("doi")
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
    references_from = next((e for e in entries if e.referenced_ids or e.raw_references), None)
    for i, entry in enumerate(entries):
        if entry is authors_from:
            supplied[i].append("authors")
        if entry is references_from:
            supplied[i].append("references")
        if entry.terms:
            supplied[i].append("terms")
    return Merged(best.native_id, entries, work, supplied, authors_from, references_from)


def _ref_id(identity: str) -> str:
    return derived_id("REF", identity)


class _References:
    """Every distinct cited reference met, parsed once, with what resolving and labelling it needs.

    A field's export cites millions of distinct works, so each costs as little as it can: a raw string
    maps to its identity alone (whether it has a DOI is in the identity), the raw text of a parsed
    identity is its `ParsedRef`'s, and only unparsed identities keep theirs apart."""

    def __init__(self, fold: SourceFolding | None = None) -> None:
        self.fold = fold
        self.parsed: dict[str, Any] = {}          # identity → ParsedRef (first met) or None (unparsed)
        self.forms: list[Any] = []                # every distinct parsed reference: merge_identities compares them all
        self.unparsed_raw: dict[str, str] = {}    # raw: identity → the raw string first met
        self.counts: Counter = Counter()
        self.unparsed: list[dict[str, Any]] = []
        self.seen: dict[str, dict[str, str | None]] = {}   # style → raw → identity (None: names no work)

    def raw(self, identity: str) -> str:
        """The raw string first met for `identity`."""
        parsed = self.parsed[identity]
        return parsed.raw if parsed is not None else self.unparsed_raw[identity]

    def add(self, raw: str, line: int | None, style: str, file: str) -> str | None:
        """The identity of one raw reference, None for one that names no work (`names_a_work`: a bare
        year); an unparsed one is listed with its file and line. A raw string met before (popular
        references recur thousands of times) is not parsed again."""
        self.counts["references"] += 1
        seen = self.seen.setdefault(style, {})
        if raw in seen:
            identity = seen[raw]
            if identity is None:
                self.counts["unnamed"] += 1
            elif identity.startswith("raw:"):
                self._unparsed(raw, line, file)
            self.counts["with_doi"] += identity is not None and identity.startswith("doi:")
            return identity
        identity = seen[raw] = self._identity(raw, style, file, line)
        return identity

    def _unparsed(self, raw: str, line: int | None, file: str) -> None:
        self.counts["unparsed"] += 1
        if len(self.unparsed) < UNPARSED_SHOWN:
            self.unparsed.append({"file": file, "line": line, "reference": raw[:300]})

    def _identity(self, raw: str, style: str, file: str, line: int | None) -> str | None:
        parsed = parse_reference(raw, style)
        if parsed is not None and not names_a_work(parsed):
            self.counts["unnamed"] += 1
            return None
        if parsed is None:
            self._unparsed(raw, line, file)
            identity = "raw:" + " ".join(raw.split()).casefold()
            self.parsed.setdefault(identity, None)
            self.unparsed_raw.setdefault(identity, raw)
            return identity
        identity = identity_key(parsed, self.fold)
        self.forms.append(parsed)
        self.counts["with_doi"] += bool(parsed.doi)
        self.parsed.setdefault(identity, parsed)
        return identity


def ingest(paths: list[Path], names: list[str], formats: list[str | None] | None = None,
           skips: Skips | None = None, on_record: Callable[[int], None] | None = None,
           fold: SourceFolding | None = None) -> Ingested:
    """Read, merge and resolve the works of `paths` (named in messages as `names`); `fold` maps source
    names before references are keyed (`source.thesaurus`)."""
    skips = Skips() if skips is None else skips
    formats = formats or [None] * len(paths)
    refs = _References(fold)
    entries = []
    for entry in read_entries(paths, names, formats, skips, on_record):
        if entry.raw_references:   # parsed as read: an entry keeps identities, not raw strings
            style = style_for(entry.format)
            entry.referenced_ids = [i for raw, line in entry.raw_references
                                    if (i := refs.add(raw, line, style, entry.file)) is not None]
            entry.raw_references = []
            entry.parsed_references = True
        entries.append(entry)
    merged = [merge_group(g) for g in group_entries(entries)]
    cites: dict[str, list[str]] = {}
    for m in merged:
        source = m.references_from
        if source is None:
            cites[m.work_id] = []
        elif source.parsed_references:
            cites[m.work_id] = source.referenced_ids
        else:
            cites[m.work_id] = [short_id(r) or r for r in source.referenced_ids]
    resolved, counts = _resolve(merged, refs, fold)
    bundle = _bundle(merged, cites, resolved)
    cited = _cited_table(refs, resolved, bundle.references)
    by_file = Counter(e.file for e in entries)
    dup_by_file = Counter(e.file for m in merged for e in m.entries[1:])
    counts = {"records": len(entries), "works": len(merged),
              "files": [{"file": name, "records": by_file.get(name, 0), "duplicates": dup_by_file.get(name, 0)}
                        for name in names],
              "references": {**counts, "total": refs.counts["references"], "unparsed": refs.counts["unparsed"],
                             "with_doi": refs.counts["with_doi"], "unnamed": refs.counts["unnamed"],
                             "unparsed_shown": refs.unparsed}}
    if found := _agreements(merged, resolved):
        counts["agreement"] = found
    return Ingested(bundle, cited, _origins(merged), counts)


def _agreements(merged: list[Merged], resolved: dict[str, str]) -> list[dict[str, Any]]:
    """How far each two databases' records of the same works agree on what they cite (agreement.py):
    each record's own references, resolved as the network resolves them."""
    from .agreement import agreements, database

    sides: dict[str, dict[str, set[str]]] = {}
    files: dict[str, set[str]] = {}
    for m in merged:
        for entry in m.entries:
            db = database(entry.format, entry.scheme) if entry.parsed_references else None
            if db is not None:
                sides.setdefault(db, {}).setdefault(m.work_id, set()).update(
                    resolved.get(r, r) for r in entry.referenced_ids)
                files.setdefault(db, set()).add(entry.file)
    if len(sides) < 2:
        return []
    return agreements(sides, {db: sorted(names) for db, names in files.items()})


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
    from ..tables import SOURCE_REFS

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


def _resolve(merged: list[Merged], refs: _References,
             fold: SourceFolding | None = None) -> tuple[dict[str, str], dict[str, Any]]:
    """Identity → work ID. A key written elsewhere with a fuller identity (a DOI, a volume and page)
    takes that one (`merge_identities`); it resolves to a work of the universe by DOI, else PMID, else by key
    (`ReferenceResolver`); else it is a work of its own, ``REF:`` and a hash of the identity."""
    resolver = ReferenceResolver(
        ((m.work_id, work_keys(display_name(_first_author(m)), m.work.get("year"), m.work.get("venue"),
                               _first(m, "venue_abbrev"), _first(m, "volume"), _first(m, "first_page"),
                               m.work.get("doi"), fold, m.work.get("pmid")))
         for m in merged), fold)
    fuller = merge_identities(refs.forms, fold)
    out: dict[str, str] = {}
    methods: Counter = Counter()
    for identity, parsed in refs.parsed.items():
        target = fuller.get(identity, identity)
        best = refs.parsed.get(target, parsed) if target != identity else parsed
        work_id, method = resolver.resolve(best) if best is not None else (None, None)
        if work_id is None:
            work_id, method = _ref_id(target), "merged" if target != identity else "unresolved"
        out[identity] = work_id
        methods[method] += 1
    return out, {"identities": len(refs.parsed), "identities_by_method": dict(sorted(methods.items())),
                 "merged_into_fuller": sum(1 for i in refs.parsed if fuller.get(i, i) != i),
                 "ambiguous": resolver.ambiguous}


def _first_author(m: Merged) -> str | None:
    return m.authors_from.first_author() if m.authors_from else None


def _first(m: Merged, name: str) -> str | None:
    return next((getattr(e, name) for e in m.entries if getattr(e, name)), None)


def _bundle(merged: list[Merged], cites: dict[str, list[str]], resolved: dict[str, str]) -> Bundle:
    works, authorships, affiliations, terms = [], [], [], []
    citing: list[str] = []       # the references table as two columns: millions of rows, no dict each
    cited: list[str] = []
    for m in merged:
        refs = sorted({resolved.get(r, r) for r in cites.pop(m.work_id)} - {m.work_id})
        works.append({"work_id": m.work_id, **m.work, "n_references": len(refs)})
        citing.extend([m.work_id] * len(refs))
        cited.extend(refs)
        if m.authors_from:
            authorships.extend({"work_id": m.work_id, **row} for row in m.authors_from.authors)
            affiliations.extend({"work_id": m.work_id, **row} for row in m.authors_from.affiliations)
        seen = set()
        for entry in m.entries:
            for row in entry.terms:
                if row[:2] not in seen:
                    seen.add(row[:2])
                    terms.append((m.work_id, *row))
    affiliations = pd.DataFrame(affiliations, columns=list(AFFILIATIONS.columns))
    affiliations = affiliations.drop_duplicates(["work_id", "position", "institution_id"])
    return Bundle(works=conform(pd.DataFrame(works, columns=list(WORKS.columns)), WORKS),
                  authorships=conform(pd.DataFrame(authorships, columns=list(AUTHORSHIPS.columns)), AUTHORSHIPS),
                  affiliations=conform(affiliations, AFFILIATIONS),
                  references=conform(pd.DataFrame({"work_id": citing, "referenced_id": cited}), REFERENCES),
                  terms=conform(pd.DataFrame.from_records(terms, columns=list(TERMS.columns)), TERMS))


def _cited_table(refs: _References, resolved: dict[str, str], references: pd.DataFrame) -> pd.DataFrame:
    """The REF works: one row per identity that resolved to no work of the universe, labelled from the
    reference (first met), with the number of works citing it."""
    from ..tables import SOURCE_REFS

    citing = references.groupby("referenced_id").size()
    label_of: dict[str, str] = {}   # REF ID → the identity it is named after (itself when it was met)
    for identity, work_id in resolved.items():
        if work_id.startswith("REF:") and (work_id not in label_of or work_id == _ref_id(identity)):
            label_of[work_id] = identity
    ids = list(label_of)         # columns, not a dict per row: a field's export has millions of REF works
    identities = [label_of[w] for w in ids]
    parsed = [refs.parsed[i] for i in identities]
    raw = [refs.raw(i) for i in identities]

    def attr(name: str) -> list:
        return [getattr(p, name, None) for p in parsed]
    table = pd.DataFrame({
        "work_id": ids, "identity": identities, "raw": raw, "first_author": [_label_author(p) for p in parsed],
        "year": attr("year"), "title": [getattr(p, "title", None) if p else r for p, r in zip(parsed, raw)],
        "venue": attr("source"), "volume": attr("volume"), "page": attr("page"), "doi": attr("doi"),
        "pmid": attr("pmid"),
        "citing": pd.Series(ids, dtype=object).map(citing).fillna(0).astype("int64").to_numpy()},
        columns=list(SOURCE_REFS.columns))
    return conform(table.drop_duplicates("work_id"), SOURCE_REFS)


def _label_author(parsed) -> str | None:
    author = getattr(parsed, "first_author", None) if parsed is not None else None
    return display_name(author) if author else None


def _origins(merged: list[Merged]) -> pd.DataFrame:
    from ..tables import ORIGINS

    rows = [{"work_id": m.work_id, "file": e.file, "format": e.format, "record": e.record, "line": e.line,
             "native_id": e.native_id, "primary": i == 0, "fields": ",".join(m.supplied[i])}
            for m in merged for i, e in enumerate(m.entries)]
    return conform(pd.DataFrame(rows, columns=list(ORIGINS.columns)), ORIGINS)
