"""The cited references of an import, held in DuckDB rather than as Python objects.

A field's export cites millions of distinct works (100,000 Web of Science records: 5.8M references to
2.9M works), which as Python objects cost gigabytes. Each reference is parsed as it is read (a bounded
cache skips the popular ones met again) and leaves rows on disk:

    occurrences   (entry, ref, parsed)   one per reference of a record: its identity, or an OpenAlex ID
    forms         one per reference parsed anew: what it says, and its parts as merging compares them
    resolved      (identity, work_id, self, seq)   one per identity, once `resolve` has run

DuckDB does what needs all of them at once (the first form met of each identity, the blocks of one
surname and year that `merge_forms` compares, the references table, the cited works' labels), spilling
to disk as it needs. What comes out is what `ingest` computed in memory before: the same identities,
the same resolution, the same tables.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb
import pyarrow as pa

from .exports.names import display_name
from .exports.parsed_ref import ParsedRef
from .exports.references import (Aligned, ReferenceResolver, SourceFolding, _Form, align_lists, author_keys,
                                 form_parts, identity_key, merge_forms, names_a_work, parse_reference,
                                 placeholder)
from .exports.work_ids import derived_id

UNPARSED_SHOWN = 1_000   # unparsed references listed with file and line in the manifest; cited.parquet has all
CACHE = 100_000          # raw strings remembered per import: a popular reference is parsed once per cache life
BATCH = 50_000           # rows buffered in Python before they go to DuckDB
HASH_JOIN = True         # join on identities' hashes when no two share one (tests turn it off)
MEMORY_LIMIT = "200MB"   # DuckDB's own (one thread); it spills to its temp folder past it
IDLE_LIMIT = "32MB"      # while the works are merged in Python
RANGE_ROWS = 250_000     # cited works sorted at a time
RANGE_LIMIT = "100MB"    # DuckDB's own while they are (a range's rows are some 50 MB)

_REF_FIELDS = ("first_author", "year", "source", "volume", "page", "doi", "title", "pmid", "native")
_FORM_FIELDS = ("identity", "letters", "numbers", "volume", "page", "surname", "initial", "article")
_FORMS = {"seq": pa.int64(), "identity": pa.string(), "raw": pa.string(), "unparsed": pa.bool_(),
          **{f: (pa.int64() if f == "year" else pa.string()) for f in _REF_FIELDS}, "label_author": pa.string(),
          **{f"f_{f}": (pa.bool_() if f == "article" else pa.string()) for f in _FORM_FIELDS[1:]},
          "title_letters": pa.string(), "source_letters": pa.string()}   # form_parts: None when too short
#: `_Form.rank` in SQL, over a form's columns
_RANK = ("CASE WHEN starts_with(identity, 'doi:') THEN 0 WHEN starts_with(identity, 'pmid:') THEN 1 "
         "WHEN starts_with(identity, 'raw:') THEN 4 WHEN f_volume <> '' AND f_page <> '' THEN 2 ELSE 3 END")
_OCCURRENCES = {"entry": pa.int64(), "ref": pa.string(), "parsed": pa.bool_()}


def _id_ranges(rows: int) -> list[tuple[str, str]]:
    """Ranges of ``REF:`` IDs (``REF:`` and 12 upper-case hex digits, uniform: a hash) that split `rows` IDs
    into parts of about `RANGE_ROWS`, in order; the last ends above every ID."""
    parts = min(4096, max(1, -(-rows // RANGE_ROWS)))
    bounds = ["REF:" + format(k * 4096 // parts, "03X") for k in range(parts)] + ["REF;"]   # ";" follows ":"
    return list(zip(bounds, bounds[1:]))


def ref_id(identity: str) -> str:
    """The ID of a cited work no work of the universe is: ``REF:`` and a hash of its identity."""
    return derived_id("REF", identity)


class _Buffer:
    """Rows as Python column lists, appended to a DuckDB table `BATCH` rows at a time."""

    def __init__(self, con: duckdb.DuckDBPyConnection, table: str, types: dict[str, pa.DataType]) -> None:
        self.con, self.table, self.types = con, table, types
        self.columns: dict[str, list] = {name: [] for name in types}
        self.size = 0
        con.execute(f"CREATE TABLE {table} ({', '.join(f'{n} {_sql_type(t)}' for n, t in types.items())})")

    def add(self, row: tuple) -> None:
        for values, value in zip(self.columns.values(), row):
            values.append(value)
        self.size += 1
        if self.size >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.size:
            return
        self.con.register("batch", pa.table({n: pa.array(v, type=self.types[n]) for n, v in self.columns.items()}))
        self.con.execute(f"INSERT INTO {self.table} SELECT * FROM batch")
        self.con.unregister("batch")
        pa.default_memory_pool().release_unused()
        for values in self.columns.values():
            values.clear()
        self.size = 0


def _sql_type(t: pa.DataType) -> str:
    return {pa.int64(): "BIGINT", pa.string(): "VARCHAR", pa.bool_(): "BOOLEAN"}[t]


class ReferenceTable:
    """Every cited reference of an import: added while reading (`add`, `add_ids`), then merged,
    resolved and tabled by DuckDB in `folder` (a scratch folder the caller removes)."""

    def __init__(self, folder: Path, fold: SourceFolding | None = None) -> None:
        self.fold = fold
        self.con = duckdb.connect(str(Path(folder) / "references.duckdb"))
        self.con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'; SET preserve_insertion_order = false; "
                         "SET threads = 1; SET arrow_large_buffer_size = true; "
                         f"SET temp_directory = '{Path(folder) / 'spill'}'")
        self.forms = _Buffer(self.con, "forms", _FORMS)
        self.occurrences = _Buffer(self.con, "occurrences", _OCCURRENCES)
        self.cache: dict[tuple[str, str], str | None] = {}
        self.seq = 0
        self.counts: Counter = Counter()
        self.unparsed: list[dict[str, Any]] = []

    def close(self) -> None:
        self.con.close()

    # ---------------------------------------------------------------------------------------- reading

    def add(self, entry: int, raw: str, line: int | None, style: str, file: str) -> str | None:
        """The identity of one raw reference of record `entry`, None for one that names no work (a bare
        year); one given a ``raw:`` identity (no author–year key, DOI or PMID found in it) is counted as
        unparsed and listed with its file and line, every time it is met."""
        self.counts["references"] += 1
        key = (style, raw)
        if key in self.cache:
            identity = self.cache[key]
        else:
            if len(self.cache) >= CACHE:
                self.cache.clear()
            identity = self.cache[key] = self._parse(raw, style)
        if identity is None:
            self.counts["unnamed"] += 1
            return None
        if identity.startswith("raw:"):   # no key, DOI or PMID found: a raw: row of cited.parquet
            self._unparsed(raw, line, file)
        self.counts["with_doi"] += identity.startswith("doi:")
        self.occurrences.add((entry, identity, True))
        return identity

    def add_ids(self, entry: int, ids: list[str]) -> None:
        """References already given as work IDs (OpenAlex), kept as they are."""
        for work_id in ids:
            self.occurrences.add((entry, work_id, False))

    def _unparsed(self, raw: str, line: int | None, file: str) -> None:
        self.counts["unparsed"] += 1
        if len(self.unparsed) < UNPARSED_SHOWN:
            self.unparsed.append({"file": file, "line": line, "reference": raw[:300]})

    def _parse(self, raw: str, style: str) -> str | None:
        """Its identity (None: it names no work), and a new form row."""
        if placeholder(raw):
            return None
        parsed = parse_reference(raw, style)
        if parsed is not None and not names_a_work(parsed):
            return None
        self.seq += 1
        if parsed is None:
            identity = "raw:" + " ".join(raw.split()).casefold()
            self.forms.add((self.seq, identity, raw, True) + (None,) * (len(_FORMS) - 4))
            return identity
        identity = identity_key(parsed, self.fold)
        parts: tuple = (None,) * 9
        if parsed.year is not None:
            form, titles = form_parts(parsed, self.fold, identity)
            parts = tuple(getattr(form, f) for f in _FORM_FIELDS[1:]) + titles
        author = display_name(parsed.first_author) if parsed.first_author else None
        self.forms.add((self.seq, identity, parsed.raw, False) + tuple(getattr(parsed, f) for f in _REF_FIELDS)
                       + (author,) + parts)
        return identity

    def finish(self) -> None:
        """Every buffered row to DuckDB; the first form met of each identity tabled (`firsts`)."""
        self.forms.flush()
        self.occurrences.flush()
        self.cache.clear()
        self._double_surnames()
        self.con.execute("CREATE TABLE firsts AS SELECT * FROM forms WHERE seq IN "
                         "(SELECT min(seq) FROM forms GROUP BY identity)")
        self._limit(IDLE_LIMIT)   # its cached pages let go while works merge

    def _double_surnames(self) -> None:
        """Names that read two ways (`author_keys`: "Maynard Smith J" a double surname or a given name
        written out) take the double surname where the import's references written with a comma name
        that author ("Maynard Smith, J.") and none so names the other, so that they meet its other
        references; the rest keep `author_key`'s reading."""
        names = [name for (name,) in self.con.execute(
            "SELECT DISTINCT first_author FROM forms WHERE f_surname IS NOT NULL AND NOT contains(first_author, ',') "
            "AND len(string_split(trim(first_author), ' ')) >= 3").fetchall()]
        readings = {name: keys for name in names if (keys := author_keys(name))[1]}
        if not readings:
            return
        written = {key for (key,) in self.con.execute(
            "SELECT DISTINCT trim(f_surname || ' ' || f_initial) FROM forms WHERE contains(first_author, ',') "
            "AND f_surname IS NOT NULL").fetchall()}
        double = {name: other.partition(" ") for name, (key, other) in readings.items()
                  if other in written and key not in written}
        if double:
            self._table("doubled", {"name": pa.array(list(double), pa.string()),
                                    "surname": pa.array([s for s, _, _ in double.values()], pa.string()),
                                    "initial": pa.array([i for _, _, i in double.values()], pa.string())})
            self.con.execute("UPDATE forms SET f_surname = d.surname, f_initial = d.initial FROM doubled d "
                             "WHERE forms.first_author = d.name")

    def _limit(self, size: str = MEMORY_LIMIT) -> None:
        """DuckDB's memory limit: `MEMORY_LIMIT` while it works, less while Python holds the rest."""
        self.con.execute(f"SET memory_limit = '{size}'")

    def _table(self, name: str, columns: dict[str, pa.Array]) -> None:
        self.con.register("_arrow", pa.table(columns))
        self.con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _arrow")
        self.con.unregister("_arrow")

    # -------------------------------------------------------------------------------------- resolving

    def _rows(self, query: str) -> Iterator[tuple]:
        """Rows of `query`, a batch at a time, read through a cursor of their own (rows go on being written
        through the connection meanwhile)."""
        reader = self.con.cursor().sql(query).to_arrow_reader(BATCH)
        for batch in reader:
            yield from zip(*(batch.column(i).to_pylist() for i in range(batch.num_columns)))
        pa.default_memory_pool().release_unused()

    def fuller(self) -> dict[str, str]:
        """`merge_identities` over every dated parsed reference, a block of one surname and year at a time
        (only blocks of two identities or more, and title groups where a form of rank 3 or 4 meets a better
        one or a key with volume and page another identity's title: no other can merge anything)."""
        self._limit()
        cols = ", ".join(f"f_{f}" if f != "identity" else f for f in _FORM_FIELDS)
        dated = "FROM forms WHERE year IS NOT NULL AND NOT unparsed"
        blocks_q = (f"""WITH b AS (SELECT DISTINCT f_surname AS s, year AS y, {cols} {dated} AND f_surname <> ''
                                   AND NOT starts_with(identity, 'raw:')),
                         g AS (SELECT s, y FROM b GROUP BY s, y HAVING count(DISTINCT identity) > 1)
                    SELECT b.* FROM b SEMI JOIN g ON b.s = g.s AND b.y = g.y ORDER BY b.s, b.y""")
        titled_q = (f"""WITH t AS (SELECT DISTINCT year AS y, k, coalesce(k = title_letters, false) AS is_title,
                                   {cols}
                            FROM (SELECT *, unnest(list_distinct([title_letters, source_letters])) AS k {dated})
                            WHERE k IS NOT NULL),
                        g AS (SELECT y, k FROM t GROUP BY y, k
                              HAVING max({_RANK}) >= 3 AND min({_RANK}) < max({_RANK})
                                  OR count(*) FILTER (is_title AND {_RANK} = 2) > 0
                                     AND count(DISTINCT identity) FILTER (is_title) > 1)
                        SELECT t.* FROM t SEMI JOIN g ON t.y = g.y AND t.k = g.k ORDER BY t.y, t.k""")
        placed_q = (f"""WITH p AS (SELECT DISTINCT f_surname AS s, f_volume AS v, f_page AS pg, year, {cols} {dated}
                                   AND f_surname <> '' AND f_volume <> '' AND f_page <> ''
                                   AND NOT starts_with(identity, 'raw:')),
                         g AS (SELECT s, v, pg FROM p GROUP BY s, v, pg HAVING count(DISTINCT year) > 1)
                    SELECT p.* FROM p SEMI JOIN g ON p.s = g.s AND p.v = g.v AND p.pg = g.pg
                    ORDER BY p.s, p.v, p.pg""")
        return merge_forms(self._groups(blocks_q), self._groups(titled_q, 2, True), self._groups(placed_q, 3, True))

    def align(self, databases: dict[int, tuple[str, str]]) -> int:
        """Join the cited works that two databases' records of one work (`databases`: entry → (database,
        work ID)) each cite as their only dated reference of a surname and year (`align_lists`), or as their
        only reference of a surname, dated a year apart, one of them with a DOI or PMID or in the corpus
        (online first: WoS and Scopus date such a paper apart), once `resolve` has run; returns how many
        cited works took another's ID."""
        self._table("sides", {"entry": pa.array(list(databases), pa.int64()),
                              "db": pa.array([db for db, _ in databases.values()], pa.string()),
                              "work": pa.array([work for _, work in databases.values()], pa.string())})
        # the initial and volume of a cited work's fullest forms in the record (the greatest, when they differ)
        best = ", ".join(f"coalesce(max(nullif({c}, '')) FILTER (WHERE NOT rk), max(nullif({c}, ''))) AS {c}"
                         for c in ("ini", "v"))
        rows = self._rows(f"""
            WITH s AS (SELECT * FROM sides WHERE work IN (SELECT work FROM sides GROUP BY work
                                                          HAVING count(DISTINCT db) > 1)),
                 named AS (SELECT work_id FROM resolved GROUP BY work_id   -- a corpus work, or one with a DOI
                           HAVING bool_or(starts_with(identity, 'doi:') OR starts_with(identity, 'pmid:'))
                               OR NOT starts_with(work_id, 'REF:')),
                 r AS (SELECT s.work, s.db, f.f_surname AS sn, f.year AS y, rs.work_id AS cited,
                              rs.work_id IN (SELECT work_id FROM named) AS nm, f.f_initial AS ini, f.f_volume AS v,
                              f.f_volume = '' OR f.f_page = '' AS rk
                       FROM occurrences o JOIN s ON o.entry = s.entry JOIN firsts f ON f.identity = o.ref
                            JOIN resolved rs ON rs.identity = o.ref
                       WHERE o.parsed AND f.year IS NOT NULL AND f.f_surname <> ''
                         AND NOT starts_with(f.identity, 'raw:')),
                 u AS (SELECT work, db, sn, y, min(cited) AS cited, bool_or(nm) AS nm, {best}
                       FROM r GROUP BY work, db, sn, y HAVING count(DISTINCT cited) = 1),
                 w AS (SELECT work, db, sn, min(y) AS y, min(cited) AS cited, bool_or(nm) AS nm, {best}
                       FROM r GROUP BY work, db, sn HAVING count(DISTINCT cited) = 1 AND count(DISTINCT y) = 1)
            SELECT a.cited, a.ini, a.v, a.nm, b.cited, b.ini, b.v, b.nm
            FROM u a JOIN u b ON a.work = b.work AND a.sn = b.sn AND a.y = b.y AND a.db < b.db
            WHERE a.cited <> b.cited
            UNION   -- the only work of a surname on each side, a year apart: online first, when one has a DOI
            SELECT a.cited, a.ini, a.v, a.nm, b.cited, b.ini, b.v, b.nm
            FROM w a JOIN w b ON a.work = b.work AND a.sn = b.sn AND abs(a.y - b.y) = 1 AND a.db < b.db
            WHERE a.cited <> b.cited AND (a.nm OR b.nm)
            ORDER BY ALL""")
        joined = align_lists((Aligned(r[0], r[1] or "", r[2] or "", r[3]), Aligned(r[4], r[5] or "", r[6] or "", r[7]))
                             for r in rows)
        if joined:
            self._table("joined", {"work_id": pa.array(list(joined), pa.string()),
                                   "target": pa.array(list(joined.values()), pa.string())})
            self.con.execute("""UPDATE resolved SET work_id = j.target, self = false FROM joined j
                                WHERE resolved.work_id = j.work_id""")
            self._join_key()
        return len(joined)

    def _groups(self, query: str, keys: int = 2, dated: bool = False) -> Iterator[set]:
        """The forms of `query`'s rows (`keys` grouping columns, then, when `dated`, a column read with the
        form (the year; whether the group's letters are the form's title), then a form's fields), one set
        per group: of forms, or of (that column, form)."""
        current, forms = None, set()
        for row in self._rows(query):
            if row[:keys] != current:
                if forms:
                    yield forms
                current, forms = row[:keys], set()
            forms.add((row[keys], _Form(*row[keys + 1:])) if dated else _Form(*row[keys:]))
        if forms:
            yield forms

    def resolve(self, resolver: ReferenceResolver, fuller: dict[str, str]) -> dict[str, Any]:
        """Identity → work ID, as `ingest` resolves it, tabled as ``resolved``; returns the counts."""
        self._table("fuller", {"identity": pa.array(list(fuller), pa.string()),
                               "target": pa.array(list(fuller.values()), pa.string())})
        fields = ", ".join(f"t.{f}" for f in ("raw", "unparsed", *_REF_FIELDS))
        self.con.execute(f"""CREATE TABLE best AS SELECT m.identity, m.target, {fields}   -- the target's form, whole
                             FROM fuller m JOIN firsts t ON t.identity = m.target""")
        fields = ", ".join(f"CASE WHEN b.identity IS NULL THEN f.{f} ELSE b.{f} END"
                           for f in ("raw", "unparsed", *_REF_FIELDS))
        rows = self._rows(f"""SELECT f.identity, f.seq, coalesce(b.target, f.identity), {fields}
                               FROM firsts f LEFT JOIN best b ON b.identity = f.identity""")
        out = _Buffer(self.con, "resolved", {"identity": pa.string(), "work_id": pa.string(), "self": pa.bool_(),
                                             "seq": pa.int64()})
        methods: Counter = Counter()
        identities = merged = 0
        for identity, seq, target, raw, unparsed, *fields in rows:
            identities += 1
            merged += target != identity
            work_id, method = (None, None) if unparsed else resolver.resolve(ParsedRef(raw, *fields))
            if work_id is None:
                work_id, method = ref_id(target), "merged" if target != identity else "unresolved"
            methods[method] += 1
            out.add((identity, work_id, work_id == ref_id(identity), seq))
        out.flush()
        self._join_key()
        return {"identities": identities, "identities_by_method": dict(sorted(methods.items())),
                "merged_into_fuller": merged, "ambiguous": resolver.ambiguous}

    def _join_key(self) -> None:
        """Each identity's 64-bit hash, the key references are joined to their resolution by (a hash table
        of 2.9M identity strings does not fit DuckDB's memory, one of integers does); the identities
        themselves when two of them share a hash."""
        self.con.execute("CREATE OR REPLACE TABLE resolved AS SELECT *, hash(identity) AS h FROM resolved")
        unique = HASH_JOIN and self.con.execute("SELECT count(DISTINCT h) = count(*) FROM resolved").fetchall()[0][0]
        self.join = ("(SELECT h, work_id FROM resolved) r ON r.h = hash(o.ref)" if unique else
                     "(SELECT identity, work_id FROM resolved) r ON r.identity = o.ref")

    # ---------------------------------------------------------------------------------------- tables

    def references(self, sources: list[tuple[str, int]], write: Callable[[Iterator[pa.RecordBatch]], Any]) -> Any:
        """The references table of the merged works, each citing what the record it takes its references
        from (`sources`: work ID, entry) cites, resolved, once, never itself; sorted, handed to `write` a
        batch at a time. Also tabled as ``cites`` (work_id, referenced_id) for the counts."""
        self._table("sources", {"work_id": pa.array([w for w, _ in sources], pa.string()),
                                "entry": pa.array([e for _, e in sources], pa.int64())})
        self.con.execute(f"""CREATE TABLE cites AS SELECT DISTINCT s.work_id,
                                 CASE WHEN o.parsed THEN r.work_id ELSE o.ref END AS referenced_id
                             FROM occurrences o JOIN sources s ON o.entry = s.entry
                             LEFT JOIN {self.join}""")
        self.con.execute("DELETE FROM cites WHERE referenced_id = work_id")
        return write(self.con.sql("SELECT work_id, referenced_id FROM cites ORDER BY work_id, referenced_id")
                     .to_arrow_reader(BATCH))

    def reference_counts(self) -> dict[str, int]:
        """Work ID → the number of works it references (after `references`)."""
        return dict(self.con.execute("SELECT work_id, count(*) FROM cites GROUP BY work_id").fetchall())

    def cited(self, write: Callable[[Iterator[pa.RecordBatch]], Any]) -> Any:
        """The REF works (SOURCE_REFS): one row per ``REF:`` ID, labelled from the identity it is named after
        (else the first met that resolved to it) as first met, with the number of works citing it; handed
        to `write` a batch at a time, sorted by work ID.

        The rows are sorted a range of IDs at a time (`_id_ranges`), each range in memory: one sort of a
        field's millions of rows would hold DuckDB's whole memory while the writer holds a row group."""
        self.con.execute("""CREATE TABLE label AS SELECT work_id, arg_min(seq, CASE WHEN self THEN -1 ELSE seq END) AS seq
                            FROM resolved WHERE starts_with(work_id, 'REF:') GROUP BY work_id""")
        self.con.execute("""CREATE TABLE citing AS SELECT referenced_id AS work_id, count(*) AS n FROM cites
                            WHERE starts_with(referenced_id, 'REF:') GROUP BY referenced_id""")
        self._limit(RANGE_LIMIT)
        ranges = _id_ranges(self.con.execute("SELECT count(*) FROM label").fetchall()[0][0])

        def batches() -> Iterator[pa.RecordBatch]:
            for low, high in ranges:
                yield from self.con.sql(f"""
                    SELECT l.work_id, f.identity, f.raw, f.label_author AS first_author, f.year,
                           CASE WHEN f.unparsed THEN f.raw ELSE f.title END AS title, f.source AS venue, f.volume,
                           f.page, f.doi, f.pmid, coalesce(c.n, 0) AS citing
                    FROM firsts f JOIN (SELECT * FROM label WHERE work_id >= '{low}' AND work_id < '{high}') l
                         ON f.seq = l.seq
                    LEFT JOIN citing c ON c.work_id = l.work_id
                    ORDER BY l.work_id""").to_arrow_reader(BATCH)
        try:
            return write(batches())
        finally:
            self._limit()

    def entry_references(self, entries: list[int]) -> Iterator[tuple[int, str]]:
        """(entry, resolved reference) of the parsed references of `entries` (the agreement of databases)."""
        self._table("wanted", {"entry": pa.array(entries, pa.int64())})
        yield from self._rows(f"""SELECT o.entry, r.work_id FROM occurrences o SEMI JOIN wanted t ON o.entry = t.entry
                                   JOIN {self.join} WHERE o.parsed""")
