"""The corpus bibliography written column by column: the bytes of the per-entry writers
(`write_bibliography_chunks(table_entry_chunks(…))`, bibliography.py, whose docstring holds the rules),
made by Arrow kernels over a chunk of works at a time.

At a million works the per-entry writers spent six minutes building `Entry` objects and formatting
each field of each work in Python. Here each field is a few kernel calls over a chunk's column
(text_columns.py: one-line text, BibTeX escapes, JSON strings), the fields of an entry are joined row
by row into one string column, and that column's buffer goes to the file as it is. Python is left only
where a rule is not a string kernel, and then once per distinct value of the chunk, not per work:

- author names (`split_name`: particles, suffixes, commas): each distinct name of the chunk is split
  once and formatted by bibliography.py's own functions; the forms are taken back to the authorship
  rows by dictionary code and joined per work (a list array over the rows of each work);
- work types (`kind_row`) once per distinct type, CSL dates (`_issued`) once per distinct year and date;
- the few IDs whose BibTeX key needs ``+HH`` escapes, or that start with ``W`` without being ASCII
  OpenAlex IDs (Python's ``\\d`` and ``$`` are wider than RE2's): those IDs alone.

Entries carry no volumes, issues or pages (`entries_of` gives none), so neither does this writer. The
corpus bibliography has no keywords or notes either; a network's (`write_network_bibliography`) has its
cluster tags as keywords and its reading place as a note, in reading order, not by ID. The tables are the
corpus job's (key-sorted, written by `write_table`); each batch is sorted by its key again, as `conform`
sorted it for the per-entry writers.
"""

from __future__ import annotations

from contextlib import ExitStack
from functools import cached_property
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import atomic_path
from . import text_columns as tc
from .bibliography import (CHUNK_WORKS, OPENALEX_WORK, OTHER, TYPES, _bibtex_doi, _issued, bibtex_key, kind_row,
                           latex_markup)
from .name_columns import name_forms
from .text_columns import TEXT, cat, nonempty

WORK_COLUMNS = ["work_id", "type", "title", "year", "publication_date", "doi", "venue", "abstract"]
AUTHOR_COLUMNS = ["work_id", "position", "author_name"]
#: Every (BibTeX type, RIS TY, CSL type, venue field) row, so that a work's row is an index
_ROWS = list(dict.fromkeys([*TYPES.values(), OTHER]))
_SAFE_ID = r"^[A-Za-z0-9_:./-]*$"   # an ID that is its own BibTeX key
_JSON = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_MEMBER = "    "   # a CSL item's members: one level in the array (`_csl_chunk`), one in the item


# ----------------------------------------------------------------------------------------------------
# Reading: chunks of works with their authorships


def table_chunks(works_path, authorships_path, size: int = CHUNK_WORKS) -> Iterator[tuple[pa.Table, pa.Table]]:
    """(works, their authorships) `size` works at a time, with only the columns the bibliography uses:
    both files are read batch by batch, as `table_entry_chunks` reads them, so memory is one chunk's."""
    authors = _sorted_batches(authorships_path, AUTHOR_COLUMNS, ["work_id", "position"], size * 4)
    held = pa.table({c: pa.array([], pa.int64() if c == "position" else TEXT) for c in AUTHOR_COLUMNS})
    for works in _sorted_batches(works_path, WORK_COLUMNS, ["work_id"], size):
        last = works["work_id"][-1]
        while len(held) == 0 or pc.less_equal(held["work_id"][-1], last).as_py():
            more = next(authors, None)
            if more is None:
                break
            held = pa.concat_tables([held, more])
        mine = pc.sum(pc.less_equal(held["work_id"], last)).as_py() or 0
        yield works, held.slice(0, mine).combine_chunks()
        held = held.slice(mine)


def _sorted_batches(path, columns: list[str], key: list[str], size: int) -> Iterator[pa.Table]:
    """A Parquet file's `columns` `size` rows at a time, text as `TEXT` (a pool an older pandas wrote has
    plain strings), each batch sorted by `key`; nothing for an empty file. Without pre-buffering: the
    reader keeps every range it pre-buffered until it closes (12 MB more a batch, 1 GB at a million works)."""
    for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(batch_size=size, columns=columns):
        if batch.num_rows:
            yield _as_text(pa.Table.from_batches([batch]).sort_by([(k, "ascending") for k in key]).combine_chunks())


def _as_text(table: pa.Table) -> pa.Table:
    """`table` with its string columns as `TEXT`."""
    return table.cast(pa.schema([pa.field(f.name, TEXT if pa.types.is_string(f.type) else f.type)
                                 for f in table.schema]))


def ordered_chunks(works_path, authorships_path, order, size: int = CHUNK_WORKS) -> Iterator[Chunk]:
    """Chunks of the works `order` names (a frame of ``work_id``, ``tags``: lists of texts, and ``note``),
    in its order, `size` works at a time; IDs the works table lacks are left out, as `entries` leaves
    them. The tables are read whole (a network's works are at most the corpus)."""
    works = _as_text(pq.read_table(works_path, columns=WORK_COLUMNS, pre_buffer=False).combine_chunks())
    ids = pa.array(list(order["work_id"]), TEXT, from_pandas=True)
    rows = pc.index_in(ids, value_set=works["work_id"])
    present = pc.is_valid(rows)
    ids, works = ids.filter(present), works.take(rows.filter(present))
    keywords = pa.array(list(order["tags"]), pa.list_(TEXT), from_pandas=True).filter(present)
    notes = pa.array(list(order["note"]), TEXT, from_pandas=True).filter(present)
    authors = _as_text(pq.read_table(authorships_path, columns=AUTHOR_COLUMNS, pre_buffer=False).combine_chunks())
    place = pc.index_in(authors["work_id"], value_set=ids)
    authors = authors.append_column("place", place).filter(pc.is_valid(place))
    authors = authors.sort_by([("place", "ascending"), ("position", "ascending")])
    places = authors["place"].to_numpy()
    for start in range(0, len(ids), size):
        stop = min(start + size, len(ids))
        first, last = np.searchsorted(places, [start, stop], side="left")
        yield Chunk(works.slice(start, stop - start), authors.slice(first, last - first).drop_columns(["place"]),
                    keywords.slice(start, stop - start), notes.slice(start, stop - start))


# ----------------------------------------------------------------------------------------------------
# A chunk's columns, each made once for the formats that share it


class Chunk:
    """A chunk of works and their authorships as the columns the three formats write."""

    def __init__(self, works: pa.Table, authors: pa.Table, keywords: pa.Array | None = None,
                 notes: pa.Array | None = None):
        """`authors`: the authorships in the works' order (byline order within a work); `keywords` (a list
        of texts per work) and `notes` (a text per work), when given, are the entries' tags and notes."""
        self.n = works.num_rows
        self.raw = {name: works[name].combine_chunks() for name in WORK_COLUMNS}
        self.ids = self.raw["work_id"]
        self._lines: dict[str, pa.Array] = {}
        self._authors = authors
        self.keywords = pa.nulls(self.n, pa.list_(TEXT)) if keywords is None else keywords
        self.notes = pa.nulls(self.n, TEXT) if notes is None else notes

    def line(self, name: str) -> pa.Array:
        """A works column on one line (`one_line`), as BibTeX and RIS write text."""
        if name not in self._lines:
            self._lines[name] = tc.one_line(self.raw[name])
        return self._lines[name]

    def bibtex(self, name: str) -> pa.Array:
        """`_bibtex_value` of a works column (empty where the value is blank)."""
        return tc.bibtex(self.line(name))

    @cached_property
    def year(self) -> pa.Array:
        return pc.cast(self.raw["year"], TEXT)

    @cached_property
    def kind(self) -> pa.Array:
        """Each work's index in `_ROWS`: `kind_row` once per distinct type, with and without a venue
        (which makes an untyped work an article)."""
        encoded = pc.dictionary_encode(self.raw["type"])
        values = [*encoded.dictionary.to_pylist(), None]
        codes = pc.fill_null(encoded.indices, len(values) - 1)
        with_venue = pa.array([_ROWS.index(kind_row(t, True)) for t in values], pa.int32())
        without = pa.array([_ROWS.index(kind_row(t, False)) for t in values], pa.int32())
        has_venue = pc.fill_null(pc.greater(pc.utf8_length(self.raw["venue"]), 0), False)
        return pc.if_else(has_venue, pc.take(with_venue, codes), pc.take(without, codes))

    def row(self, column: int) -> pa.Array:
        """Column `column` of each work's `kind_row` (0 BibTeX type, 1 RIS TY, 2 CSL type, 3 venue field)."""
        return pc.take(pa.array([r[column] for r in _ROWS], TEXT), self.kind)

    @cached_property
    def _bylines(self) -> tuple[pa.Array, dict[str, pa.Array], pa.Array]:
        """The named authorships of the chunk's works in byline order, as codes into the chunk's distinct
        names; those names' forms (`name_forms`); and each work's first row among them (list offsets).
        Authorships of works outside the chunk are dropped, as `entries_of` never asks for them."""
        names = self._authors["author_name"].combine_chunks()
        work = pc.index_in(self._authors["work_id"].combine_chunks(), value_set=self.ids)
        keep = pc.and_(pc.is_valid(names), pc.is_valid(work))
        work = work.filter(keep).to_numpy(zero_copy_only=False)
        offsets = np.searchsorted(work, np.arange(self.n + 1), side="left").astype(np.int32)
        encoded = pc.dictionary_encode(names.filter(keep))
        return encoded.indices, name_forms(encoded.dictionary), pa.array(offsets)

    def authors(self, form: str, separator: str) -> pa.Array:
        """Each work's authors in `form` (a `name_forms` key) joined by `separator`; an empty string for
        a work with none."""
        codes, forms, offsets = self._bylines
        per_row = pc.take(forms[form], codes)
        return pc.binary_join(pa.ListArray.from_arrays(offsets, per_row), tc.text(separator))

    @cached_property
    def keyword_text(self) -> pa.Array:
        """Each work's keywords joined by ``, `` (empty for none), as BibTeX and CSL-JSON write them."""
        return pc.binary_join(self.keywords, tc.text(", "))

    @cached_property
    def note_line(self) -> pa.Array:
        return tc.one_line(self.notes)

    def ris_keywords(self) -> pa.Array:
        """Each work's ``KW  - keyword`` lines, one per keyword that is not blank on one line."""
        lines = pc.fill_null(_tag("KW", tc.one_line(self.keywords.values)), "")
        joined = pc.binary_join(pa.ListArray.from_arrays(self.keywords.offsets, lines), tc.text(""))
        return pc.if_else(pc.is_null(self.keywords), pa.scalar(None, TEXT), joined)


# ----------------------------------------------------------------------------------------------------
# The three formats, a chunk at a time: one string per entry, its separator in front


def _field(name, value: pa.Array) -> pa.Array:
    """BibTeX's ``  name = {value},`` line where the value is non-empty, else null."""
    return cat("  ", name, " = {", nonempty(value), "},\n")


def bibtex_entries(c: Chunk) -> pa.Array:
    """Each work's BibTeX entry after a newline (`to_bibtex` joins entries by one)."""
    ids, null = c.ids, pa.scalar(None, TEXT)
    key = tc.python(ids, pc.invert(pc.match_substring_regex(ids, _SAFE_ID)), bibtex_key)
    id_text = tc.bibtex(c.line("work_id"))
    ascii_openalex = pc.match_substring_regex(ids, r"^W[0-9]+$")
    odd = pc.and_(pc.starts_with(ids, "W"), pc.invert(ascii_openalex))
    checked = tc.python(ids, odd, lambda wid: wid if OPENALEX_WORK.match(wid) else None)
    openalex = pc.if_else(pc.or_(ascii_openalex, odd), checked, null)
    unique = pc.if_else(pc.or_(pc.starts_with(ids, "WOS:"), pc.starts_with(ids, "2-s2.0-")), id_text, null)
    doi = tc.python(c.line("doi"), pc.fill_null(pc.match_substring_regex(c.raw["doi"], r"[{}]"), False), _bibtex_doi)
    title = c.bibtex("title")
    title = tc.python(title, pc.fill_null(pc.match_substring(title, "<"), False), latex_markup)
    fields = [_field("author", c.authors("bibtex", " and ")), _field("title", title),
              _field(c.row(3), c.bibtex("venue")), _field("year", c.year), _field("doi", doi),
              _field("abstract", c.bibtex("abstract")), _field("keywords", tc.bibtex(tc.one_line(c.keyword_text))),
              _field("note", tc.bibtex(c.note_line)), _field("openalex", openalex),
              _field("unique-id", unique), _field("bib2graph-id", id_text)]
    return cat("\n@", c.row(0), "{", key, ",\n", *fields, "}\n", nulls="skip")


def _tag(tag: str, lines: pa.Array) -> pa.Array:
    """RIS's ``TAG  - value`` line where the value (on one line) is non-empty, else null."""
    return cat(f"{tag}  - ", nonempty(lines), "\n")


def ris_entries(c: Chunk) -> pa.Array:
    """Each work's RIS entry (`to_ris` concatenates them)."""
    date = cat(pc.replace_substring(nonempty(c.raw["publication_date"]), "-", "/"), "/")
    tags = [_tag("TY", c.row(1)), _tag("ID", c.line("work_id")), _tag("AN", c.line("work_id")),
            _tag("TI", c.line("title")), c.authors("ris", ""), _tag("PY", c.year), _tag("DA", tc.one_line(date)),
            _tag("T2", c.line("venue")), _tag("DO", c.line("doi")), _tag("AB", c.line("abstract")),
            c.ris_keywords(), _tag("N1", c.note_line)]
    return cat(*tags, "ER  - \n\n", nulls="skip")


def _indented(value, pad: str) -> str:
    """orjson's indented JSON of `value` with every line after the first indented by `pad` more."""
    return orjson.dumps(value, option=_JSON).decode("utf-8").replace("\n", "\n" + pad)


def _member(key: str, json: pa.Array) -> pa.Array:
    """A CSL item's ``"key": value`` line (the value JSON already) where the value is non-null, else null."""
    return cat(f'{_MEMBER}"{key}": ', json)


def _string_member(key: str, values: pa.Array) -> pa.Array:
    """`_member` of a text column: left out when null or empty, as `csl_item` leaves it out."""
    return _member(key, tc.json_string(nonempty(values)))


def _issued_text(key: str) -> str:
    """The JSON of `_issued` of a ``year|date`` key, as it stands in an item."""
    year, date = key.split("|", 1)
    return _indented(_issued(int(year), date), _MEMBER)


def csl_items(c: Chunk) -> pa.Array:
    """Each work's CSL-JSON item after ``,\\n`` (`_csl_chunk` joins items by it), keys sorted as orjson
    sorts them; no item has a page, volume or issue."""
    names = c.authors("csl", ",\n")
    authors = cat("[\n", nonempty(names), f"\n{_MEMBER}]")
    issued = tc.per_distinct(cat(c.year, "|", pc.fill_null(c.raw["publication_date"], "")), _issued_text)
    members = [_string_member("DOI", c.raw["doi"]), _string_member("abstract", c.raw["abstract"]),
               _member("author", authors), _string_member("container-title", c.raw["venue"]),
               _string_member("id", c.ids), _member("issued", issued), _string_member("keyword", c.keyword_text),
               _string_member("note", c.notes), _string_member("title", c.raw["title"]),
               _string_member("type", c.row(2))]
    return cat(",\n  {\n", cat(*members, nulls="skip", separator=",\n"), "\n  }")


# ----------------------------------------------------------------------------------------------------
# Writing


#: Per format: (a chunk's entries, bytes of the first entry's separator the file does not start with,
#: text before the first entry, text after the last, text of no entries), as `CHUNKED` writes them.
FORMATS = {
    ".bib": (bibtex_entries, 1, "", "", ""),
    ".ris": (ris_entries, 0, "", "", ""),
    ".csl.json": (csl_items, 2, "[\n", "\n]\n", "[]\n"),
}


def _write(stream, texts: pa.Array, skip: int) -> None:
    """The strings' bytes one after another, straight from Arrow's buffer (less `skip` bytes at the start)."""
    assert texts.null_count == 0 and texts.type == TEXT
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[texts.offset:texts.offset + len(texts) + 1]
    stream.write(memoryview(texts.buffers()[2])[int(offsets[0]) + skip:int(offsets[-1])])


def write_corpus_bibliography(works_path, authorships_path, paths: Iterable, size: int = CHUNK_WORKS) -> int:
    """The bibliography of a works table and its authorships (Parquet files as the corpus job writes
    them) in each path's format (``.bib``, ``.ris``, ``.csl.json``): the bytes of
    `write_bibliography_chunks(table_entry_chunks(works_path, authorships_path), paths)`, `size` works at
    a time. Each file is written to a temporary name and renamed once all are complete. Returns the
    entries written."""
    return write_chunks((Chunk(works, authors) for works, authors in table_chunks(works_path, authorships_path, size)),
                        paths)


def write_network_bibliography(works_path, authorships_path, order, paths: Iterable, size: int = CHUNK_WORKS) -> int:
    """A network's bibliography (`ordered_chunks` of `order`, as `network_order` gives it): the bytes of
    `write_bibliography(entries(corpus, order, tags, notes), paths)`."""
    return write_chunks(ordered_chunks(works_path, authorships_path, order, size), paths)


def write_chunks(chunks: Iterable[Chunk], paths: Iterable) -> int:
    """The chunks' entries in each path's format, one chunk at a time, each file written to a temporary
    name and renamed once all are complete. Returns the entries written."""
    paths = [Path(p) for p in paths]
    formats = [FORMATS[next(s for s in FORMATS if str(p).endswith(s))] for p in paths]
    written = 0
    with ExitStack() as stack:
        temps = [stack.enter_context(atomic_path(p)) for p in paths]
        streams = [stack.enter_context(open(t, "wb")) for t in temps]
        for chunk in chunks:
            if not chunk.n:
                continue
            for stream, (entries, skip, start, _end, _none) in zip(streams, formats):
                if not written:
                    stream.write(start.encode("utf-8"))
                _write(stream, entries(chunk), 0 if written else skip)
            written += chunk.n
        for stream, (_entries, _skip, _start, end, none) in zip(streams, formats):
            stream.write((end if written else none).encode("utf-8"))
            stream.close()   # complete before the renames
    return written
