"""Bibliographies of works, for reference managers: BibTeX, RIS and CSL-JSON (Zotero imports all three).

`entries` turns bundle tables (works + authorships) into `Entry`s in a chosen order, with tags and a
note; the writers are pure functions of the entries, so equal entries give equal text.

Choices a reader of the files relies on:

- Text stays UTF-8 (biblatex, Biber and Zotero read it; no ``{\\"u}``), so non-Latin names survive.
  BibTeX escapes only what LaTeX or a BibTeX parser would misread: ``\\ { } % & $ # _ ~`` and the
  ligatures ``--``, ``''``, ``````; ``^`` stays as it is (Zotero and pylatexenc keep it). A DOI is
  written as it is (biblatex reads `doi` verbatim) unless it holds one of those characters.
- Titles and abstracts are one line in BibTeX and RIS (every run of white space, newlines included,
  becomes one space): a blank line ends a BibTeX paragraph and RIS values are one line.
- The work ID travels in every format: BibTeX key = `bibtex_key(work_id)` (the ID itself when its
  characters are safe, others as ``+HH`` bytes, so `work_id_from_key` reverses it) and the fields
  ``bib2graph-id`` (always), ``openalex`` (OpenAlex IDs) and ``unique-id`` (WoS and Scopus IDs); RIS
  ``ID`` and ``AN``; CSL-JSON ``id``.
- Keywords are our tags (``b2g:cluster-3``), which Zotero turns into tags; the note holds the reading
  order (BibTeX ``note``, RIS ``N1``, CSL ``note``).
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..atomic import atomic_path
from ..textio import MARKUP_TAG, braces_pair, one_line
from ..tables import AUTHORSHIPS, WORKS, Bundle, conform, empty
from .common import native

OPENALEX_WORK = re.compile(r"^W\d+$")
UNIQUE_ID = re.compile(r"^(?:WOS:|2-s2\.0-)")   # written as `unique-id` too, as Web of Science does
_SAFE_KEY = re.compile(r"[A-Za-z0-9_:.\-/]")
_ESCAPED_KEY = re.compile(r"(?:\+[0-9A-F]{2})+")
_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "des", "la", "le",
                        "dos", "das", "do", "ter", "ten", "zu", "af", "al", "el", "bin", "ibn", "y"})
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&", "$": r"\$",
                   "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}"}
_BIBTEX_CHARS = str.maketrans(_BIBTEX_SPECIAL)   # one character each: a translation, not a regex per match
_LIGATURE = re.compile(r"(?<=[-`'?!])(?=[-`'])")   # between two characters TeX would join (-- '' `` ?`)
_AND = re.compile(r"\band\b", re.IGNORECASE)

#: OpenAlex work type → (BibTeX entry type, RIS TY, CSL type, the BibTeX field the venue goes in).
TYPES = {
    "article": ("article", "JOUR", "article-journal", "journal"),
    "review": ("article", "JOUR", "article-journal", "journal"),
    "letter": ("article", "JOUR", "article-journal", "journal"),
    "editorial": ("article", "JOUR", "article-journal", "journal"),
    "erratum": ("article", "JOUR", "article-journal", "journal"),
    "retraction": ("article", "JOUR", "article-journal", "journal"),
    "paratext": ("article", "JOUR", "article-journal", "journal"),
    "proceedings-article": ("inproceedings", "CPAPER", "paper-conference", "booktitle"),
    "book": ("book", "BOOK", "book", "series"),
    "book-chapter": ("incollection", "CHAP", "chapter", "booktitle"),
    "reference-entry": ("incollection", "CHAP", "entry", "booktitle"),
    "dissertation": ("phdthesis", "THES", "thesis", "school"),
    "report": ("techreport", "RPRT", "report", "institution"),
    "dataset": ("misc", "DATA", "dataset", "howpublished"),
    "preprint": ("misc", "UNPB", "article", "howpublished"),
    "standard": ("misc", "STAND", "standard", "howpublished"),
}
OTHER = ("misc", "GEN", "document", "howpublished")
#: Older OpenAlex records carry Crossref's types.
ALIASES = {"journal-article": "article", "journal-issue": "article", "posted-content": "preprint",
           "monograph": "book", "edited-book": "book", "reference-book": "book", "book-set": "book",
           "book-series": "book", "book-part": "book-chapter", "book-section": "book-chapter"}


def type_row(e: "Entry") -> tuple[str, str, str, str]:
    """The entry's (BibTeX type, RIS TY, CSL type, venue field)."""
    return kind_row(e.type, bool(e.venue))


def kind_row(work_type: str | None, has_venue: bool) -> tuple[str, str, str, str]:
    """`type_row` of a work type: an untyped work with a venue is an article. (The column-wise writers
    ask it once per distinct type.)"""
    kind = ALIASES.get(work_type or "", work_type) or ("article" if has_venue else "")
    return TYPES.get(kind, OTHER)


@dataclass(frozen=True)
class Name:
    """A person's name split for bibliographies; `literal` alone for a one-word or corporate name."""

    family: str | None = None
    given: str | None = None
    suffix: str | None = None
    literal: str | None = None


@dataclass(frozen=True)
class Entry:
    """One work as the bibliography writers take it."""

    work_id: str
    type: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()        # display names in byline order
    year: int | None = None
    date: str | None = None               # ISO YYYY-MM-DD (or YYYY-MM)
    doi: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    abstract: str | None = None
    keywords: tuple[str, ...] = ()
    note: str | None = None
    extra: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------------
# From the bundle


def entries(corpus: Bundle, order: Iterable[str] | None = None, keywords: dict[str, list[str]] | None = None,
            notes: dict[str, str] | None = None) -> list[Entry]:
    """The corpus works as entries, in `order` (work IDs; default: by ID), with tags and notes by work ID.
    IDs in `order` that the corpus lacks are left out."""
    return entries_of(corpus.works, corpus.authorships, order, keywords, notes)


def entries_of(works: pd.DataFrame, authorships: pd.DataFrame, order: Iterable[str] | None = None,
               keywords: dict[str, list[str]] | None = None, notes: dict[str, str] | None = None) -> list[Entry]:
    """`entries` of a works table and its authorships, which need not be a whole bundle: the corpus job
    gives them a chunk of works at a time."""
    works = {row["work_id"]: row for row in works.to_dict("records")}
    ids = list(order) if order is not None else sorted(works)
    authors = _authors(authorships)
    keywords, notes = keywords or {}, notes or {}
    found = []
    for wid in ids:
        if wid not in works:
            continue
        row = {k: native(v) for k, v in works[wid].items()}
        found.append(Entry(work_id=wid, type=row.get("type"), title=row.get("title"), authors=authors.get(wid, ()),
                           year=row.get("year"), date=row.get("publication_date"), doi=row.get("doi"),
                           venue=row.get("venue"), abstract=row.get("abstract"),
                           keywords=tuple(keywords.get(wid, ())), note=notes.get(wid)))
    return found


#: Works per chunk of the corpus bibliography: 20k entries are some 100 MB of Python objects and text.
CHUNK_WORKS = 20_000


def table_entry_chunks(works_path, authorships_path, size: int = CHUNK_WORKS) -> Iterator[list[Entry]]:
    """The entries of a works table (a written, key-sorted Parquet file, so file order is `entries`'
    order by ID) and its authorships, `size` works at a time: both files are read batch by batch, each
    batch checked by its schema, so a million works never stand in memory as Python objects at once."""
    authors = _batches(authorships_path, AUTHORSHIPS, size * 4)
    held = empty(AUTHORSHIPS)
    for works in _batches(works_path, WORKS, size):
        last = works["work_id"].iloc[-1]
        while len(held) == 0 or held["work_id"].iloc[-1] <= last:
            more = next(authors, None)
            if more is None:
                break
            held = pd.concat([held, more], ignore_index=True)
        mine = held["work_id"] <= last
        yield entries_of(works, held[mine])
        held = held[~mine].reset_index(drop=True)


def _batches(path, schema, size: int) -> Iterator[pd.DataFrame]:
    """A Parquet table `size` rows at a time as checked pandas frames (the file's pandas metadata gives
    the same dtypes `read_table` gives); nothing for an empty table."""
    parquet = pq.ParquetFile(path)
    for batch in parquet.iter_batches(batch_size=size):
        if batch.num_rows:
            yield conform(pa.Table.from_batches([batch], schema=parquet.schema_arrow).to_pandas(), schema)


def _authors(authorships: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Each work's author names in byline order (one pass over two lists: a pandas group per work costs
    far more than the names themselves)."""
    rows = authorships.dropna(subset=["author_name"]).sort_values(["work_id", "position"], kind="mergesort")
    byline: dict[str, list[str]] = {}
    for wid, name in zip(rows["work_id"].tolist(), rows["author_name"].tolist()):
        byline.setdefault(wid, []).append(name)
    return {wid: tuple(names) for wid, names in byline.items()}


# ----------------------------------------------------------------------------------------------------
# Names


def split_name(name: str) -> Name:
    """``Owen-Smith, J`` and ``Jason Owen-Smith`` alike: text before the first comma is the family name
    (``King, Jr., Martin``: a suffix between two commas); without a comma the last word is, with the
    lower-case particles before it (``van der``) and without a trailing ``Jr.``. One word alone is a
    literal name."""
    name = one_line(name)
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        if not family:
            return Name(literal=given or name)
        suffix, _, rest = given.partition(",")
        if rest and suffix.strip().lower() in _SUFFIXES:   # "King, Jr., Martin"
            return Name(family=family, given=rest.strip() or None, suffix=suffix.strip())
        return Name(family=family, given=given or None)
    words = name.split(" ")
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _SUFFIXES else None
    if len(words) == 1:
        return Name(literal=name)
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return Name(family=" ".join(words[start:]), given=" ".join(words[:start]), suffix=suffix)


# ----------------------------------------------------------------------------------------------------
# BibTeX


def bibtex_key(work_id: str) -> str:
    """The work ID as a BibTeX key: safe characters kept, every other byte as ``+HH`` (reversible)."""
    return "".join(c if _SAFE_KEY.match(c) else "".join(f"+{b:02X}" for b in c.encode("utf-8")) for c in work_id)


def work_id_from_key(key: str) -> str:
    """The work ID a `bibtex_key` was made from."""
    return _ESCAPED_KEY.sub(lambda m: bytes.fromhex(m.group(0).replace("+", "")).decode("utf-8"), key)


def bibtex_text(value: str) -> str:
    """One line of text as a BibTeX field value: specials escaped, TeX ligatures broken, UTF-8 kept."""
    text = one_line(value).translate(_BIBTEX_CHARS)
    return _LIGATURE.sub("{}", text)


def _bibtex_part(text: str) -> str:
    """A name part, braced when BibTeX would split it (a word `and`, a comma)."""
    escaped = bibtex_text(text)
    return f"{{{escaped}}}" if _AND.search(text) or "," in text else escaped


def bibtex_name(name: str) -> str:
    return bibtex_parts(split_name(name))


def bibtex_parts(parts: Name) -> str:
    """A split name as BibTeX's ``Family, Suffix, Given``; a literal braced whole."""
    if parts.literal is not None:
        return f"{{{bibtex_text(parts.literal)}}}"
    out = _bibtex_part(parts.family)
    if parts.suffix:
        out += f", {_bibtex_part(parts.suffix)}"
    return out + (f", {_bibtex_part(parts.given)}" if parts.given else "")


def to_bibtex(items: Iterable[Entry]) -> str:
    """BibTeX of the entries, one ``@type{key, field = {value}, …}`` each, in the given order."""
    return "\n".join(_bibtex_entry(e) for e in items)


def _bibtex_entry(e: Entry) -> str:
    kind, _ris, _csl, venue_field = type_row(e)
    fields = [
        ("author", " and ".join(bibtex_name(a) for a in e.authors) or None),
        ("title", latex_markup(_bibtex_value(e.title))),
        (venue_field, _bibtex_value(e.venue)),
        ("year", str(e.year) if e.year is not None else None),
        ("volume", _bibtex_value(e.volume)),
        ("number", _bibtex_value(e.issue)),
        ("pages", _bibtex_value(e.pages).replace("-{}-", "--") if e.pages else None),
        ("doi", _bibtex_doi(e.doi)),
        ("abstract", _bibtex_value(e.abstract)),
        ("keywords", _bibtex_value(", ".join(e.keywords))),
        ("note", _bibtex_value(e.note)),
        ("openalex", e.work_id if OPENALEX_WORK.match(e.work_id) else None),
        ("unique-id", bibtex_text(e.work_id) if UNIQUE_ID.match(e.work_id) else None),
        ("bib2graph-id", bibtex_text(e.work_id)),
    ]
    body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields if value)
    return f"@{kind}{{{bibtex_key(e.work_id)},\n{body}}}\n"


def _bibtex_doi(doi: str | None) -> str | None:
    """A DOI as it is: biblatex reads `doi` verbatim, and the doi and url packages print it so, specials
    and all (`\\_` or `\\textasciitilde{}` would be printed as such and break the link). Escaped only when
    its braces do not pair, which would end the BibTeX field."""
    if not doi:
        return None
    line = one_line(doi)
    return line if braces_pair(line) else bibtex_text(line)


#: inline markup sources put in titles (OpenAlex, Crossref's JATS) and the LaTeX command for each
_MARKUP = {"i": "textit", "em": "emph", "italic": "textit", "b": "textbf", "strong": "textbf", "bold": "textbf",
           "sub": "textsubscript", "sup": "textsuperscript", "sc": "textsc", "scp": "textsc", "u": "underline"}
_PAIRED_TAG = re.compile(r"<(i|em|italic|b|strong|bold|sub|sup|sc|scp|u)>([^<>]*)</\1>", re.IGNORECASE)


def latex_markup(text: str | None) -> str | None:
    """An escaped BibTeX title with its inline HTML/JATS markup as LaTeX (``<i>c-fos</i>`` →
    ``\\textit{c-fos}``, ``CO<sub>2</sub>`` → ``CO\\textsubscript{2}``) and other tags left out: LaTeX
    would print the tags. A ``<`` that opens no tag (``p < 0.05``) is kept."""
    if not text or "<" not in text:
        return text
    for _ in range(2):       # a tag inside another: the inner one first
        text = _PAIRED_TAG.sub(lambda m: f"\\{_MARKUP[m.group(1).lower()]}{{{m.group(2)}}}", text)
    return MARKUP_TAG.sub("", text)


def _bibtex_value(value) -> str | None:
    return bibtex_text(str(value)) if value is not None and str(value).strip() else None


# ----------------------------------------------------------------------------------------------------
# RIS


def ris_name(name: str) -> str:
    """``Family, Given[, Suffix]`` as RIS writes authors; a literal name as it is."""
    return ris_parts(split_name(name))


def ris_parts(parts: Name) -> str:
    """`ris_name` of a split name."""
    if parts.literal is not None:
        return parts.literal
    return ", ".join(p for p in (parts.family, parts.given, parts.suffix) if p)


def to_ris(items: Iterable[Entry]) -> str:
    """RIS of the entries: ``TY`` … ``ER`` blocks, one tag a line, values on one line."""
    return "".join(_ris_entry(e) for e in items)


def _ris_entry(e: Entry) -> str:
    _kind, ty, _csl, _field = type_row(e)
    tags = [("TY", ty), ("ID", e.work_id), ("AN", e.work_id), ("TI", e.title),
            *(("AU", ris_name(a)) for a in e.authors),
            ("PY", e.year), ("DA", _ris_date(e.date)), ("T2", e.venue), ("VL", e.volume), ("IS", e.issue),
            ("SP", e.pages), ("DO", e.doi), ("AB", e.abstract), *(("KW", k) for k in e.keywords), ("N1", e.note)]
    lines = [f"{tag}  - {one_line(value)}\n" for tag, value in tags if value is not None and one_line(value)]
    return "".join(lines) + "ER  - \n\n"


def _ris_date(date: str | None) -> str | None:
    """ISO ``YYYY-MM-DD`` as RIS's ``YYYY/MM/DD/``."""
    return date.replace("-", "/") + "/" if date else None


# ----------------------------------------------------------------------------------------------------
# CSL-JSON


def csl_name(name: str) -> dict[str, str]:
    return csl_parts(split_name(name))


def csl_parts(parts: Name) -> dict[str, str]:
    """A split name as a CSL name object: its non-empty parts, or ``literal``."""
    if parts.literal is not None:
        return {"literal": parts.literal}
    found = {"family": parts.family, "given": parts.given, "suffix": parts.suffix}
    return {k: v for k, v in found.items() if v}


def csl_item(e: Entry) -> dict:
    _kind, _ris, csl, _field = type_row(e)
    item = {"id": e.work_id, "type": csl, "title": e.title, "author": [csl_name(a) for a in e.authors] or None,
            "issued": _issued(e.year, e.date), "DOI": e.doi, "container-title": e.venue, "volume": e.volume,
            "issue": e.issue, "page": e.pages, "abstract": e.abstract,
            "keyword": ", ".join(e.keywords) or None, "note": e.note}
    return {k: v for k, v in item.items() if v is not None and v != ""}


def _issued(year: int | None, date: str | None) -> dict | None:
    """``{"date-parts": [[y, m, d]]}`` from the date when it agrees with the year, else ``[[y]]``."""
    if year is None:
        return None
    parts = [int(p) for p in (date or "").split("-") if p.isdecimal()]
    return {"date-parts": [parts if parts and parts[0] == year else [year]]}


def to_csl_json(items: Iterable[Entry]) -> str:
    """CSL-JSON: an array of items, keys sorted, UTF-8 kept, indented by two spaces."""
    items = list(items)
    return _csl_chunk(items, True) + "\n]\n" if items else "[]\n"


def _csl_item_text(e: Entry) -> str:
    """One item as ``json.dumps(…, ensure_ascii=False, sort_keys=True, indent=2)`` writes it, by orjson:
    with an indent the standard library encodes in Python, some 4× slower (tests/unit/test_bibliography.py
    holds the two to the same bytes)."""
    return orjson.dumps(csl_item(e), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode("utf-8")


def write_bibliography(items: list[Entry], paths: Iterable[str]) -> None:
    """Write each path (``….bib``, ``….ris``, ``….csl.json``) in the format its name ends with."""
    write_bibliography_chunks([items], paths)


def _csl_chunk(items: list[Entry], first: bool) -> str:
    """A chunk of the CSL-JSON array as `to_csl_json` writes it whole: each item indented one level,
    items joined by ``,\n`` (JSON strings escape their newlines, so re-indenting lines is safe)."""
    parts = ["  " + _csl_item_text(e).replace("\n", "\n  ") for e in items]
    return ("[\n" if first else ",\n") + ",\n".join(parts)


#: Per format: (text of a chunk given whether it is the first, text after the last, text of no entries).
CHUNKED = {
    ".bib": (lambda items, first: ("" if first else "\n") + to_bibtex(items), "", ""),
    ".ris": (lambda items, first: to_ris(items), "", ""),
    ".csl.json": (_csl_chunk, "\n]\n", "[]\n"),
}


def write_bibliography_chunks(chunks: Iterable[list[Entry]], paths: Iterable[str]) -> int:
    """`write_bibliography` of the chunks' entries in turn, byte for byte, holding one chunk at a time:
    the corpus bibliography of a million works. Each file is written to a temporary name and renamed
    only once all are complete. Returns the entries written."""
    paths = [Path(p) for p in paths]
    formats = [CHUNKED[next(s for s in CHUNKED if str(p).endswith(s))] for p in paths]
    written = 0
    with ExitStack() as stack:
        temps = [stack.enter_context(atomic_path(p)) for p in paths]
        streams = [stack.enter_context(open(t, "w", encoding="utf-8", newline="")) for t in temps]
        for items in chunks:
            if not items:
                continue
            for stream, (chunk, _end, _none) in zip(streams, formats):
                stream.write(chunk(items, written == 0))
            written += len(items)
        for stream, (_chunk, end, none) in zip(streams, formats):
            stream.write(end if written else none)
            stream.close()   # complete before the renames
    return written


# ----------------------------------------------------------------------------------------------------
# A network's bibliography


def cluster_tag(cluster) -> str:
    return f"b2g:cluster-{int(cluster)}"


def network_order(kind: str, nodes: pd.DataFrame, items: pd.DataFrame | None = None) -> pd.DataFrame:
    """The works of a network's bibliography in reading order: ``work_id``, ``tags`` (their clusters'
    tags) and ``note`` (their place).

    Paper networks: the works are the nodes, in `reading_order`. Item networks (authors, institutions,
    terms): `items` holds the network's ``(work_id, item_id)`` rows; a work comes at the reading position
    of its first-read item and is tagged with the clusters of all its items; works with no item in the
    network are left out. Nodes outside the corpus keep their place in the numbering (`entries` leaves
    them out)."""
    from .reading import PAPER_KINDS, reading_order

    ranked = reading_order(kind, nodes)
    if kind in PAPER_KINDS:
        clusters = ranked["cluster"].astype(int).tolist()
        return pd.DataFrame({
            "work_id": list(ranked["node_id"]),
            "tags": [[cluster_tag(c)] for c in clusters],
            "note": [f"reading order {n}; cluster {c}, rank {int(r)}"
                     for n, (c, r) in enumerate(zip(clusters, ranked["rank"]), 1)]})
    place = ranked[["node_id", "cluster"]].assign(position=range(len(ranked)))
    rows = items.drop_duplicates().merge(place, left_on="item_id", right_on="node_id")
    works = rows.groupby("work_id").agg(position=("position", "min"), clusters=("cluster", lambda c: sorted(set(c))))
    works = works.reset_index().sort_values(["position", "work_id"], kind="mergesort")
    return pd.DataFrame({"work_id": list(works["work_id"]),
                         "tags": [[cluster_tag(c) for c in clusters] for clusters in works["clusters"]],
                         "note": [f"reading order {n}" for n in range(1, len(works) + 1)]})


def network_entries(kind: str, nodes: pd.DataFrame, corpus: Bundle, items: pd.DataFrame | None = None) -> list[Entry]:
    """The corpus works of a network in reading order (`network_order`), tagged with their clusters, the
    note naming their place: the per-entry form of the network job's bibliography
    (`bibliography_columns.write_network_bibliography` writes the same bytes by columns)."""
    order = network_order(kind, nodes, items)
    return entries(corpus, order["work_id"], dict(zip(order["work_id"], order["tags"])),
                   dict(zip(order["work_id"], order["note"])))
