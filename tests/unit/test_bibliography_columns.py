"""The column-wise corpus bibliography (export/bibliography_columns.py) writes the bytes of the per-entry
writers it replaced in the corpus job (`write_bibliography_chunks(table_entry_chunks(…))`): on real works,
on hostile ones, at every chunk boundary, and on drawn tables of nasty text (braces, backslashes, TeX
specials and ligatures, every kind of white space, control characters, non-BMP text, names with
particles, suffixes and commas, odd types, years and dates, IDs that need escaping). A network's
bibliography (`write_network_bibliography`: reading order, cluster tags, notes) likewise writes the bytes of
`write_bibliography(network_entries(…))`, on real networks and on drawn orders, tags and notes."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bib2graph.export.bibliography import (entries_of, network_entries, network_order, split_name,
                                           table_entry_chunks, write_bibliography, write_bibliography_chunks)
from bib2graph.export.bibliography_columns import write_corpus_bibliography, write_network_bibliography
from bib2graph.networks import build
from bib2graph.networks.item_networks import item_rows
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.tables import AUTHORSHIPS, WORKS, Bundle, read_table, write_table

from .test_bibliography import DONNERS, _hostile_works

SUFFIXES = (".bib", ".ris", ".csl.json")
#: drawn tables per run; `make fuzz` (B2G_FUZZ_EXAMPLES) draws more
EXAMPLES = min(int(os.environ.get("B2G_FUZZ_EXAMPLES", "40")), 2000)


def _both(folder: Path, size: int) -> dict[str, tuple[bytes, bytes]]:
    """The old and the new bibliography of the tables in `folder`, `size` works a chunk, per format."""
    works, authorships = folder / "works.parquet", folder / "authorships.parquet"
    old, new = ([folder / f"{name}{suffix}" for suffix in SUFFIXES] for name in ("old", "new"))
    count = write_bibliography_chunks(table_entry_chunks(works, authorships, size), old)
    assert write_corpus_bibliography(works, authorships, new, size) == count
    return {suffix: (o.read_bytes(), n.read_bytes()) for suffix, o, n in zip(SUFFIXES, old, new)}


def _assert_same(folder: Path, size: int) -> dict[str, bytes]:
    both = _both(folder, size)
    for suffix, (old, new) in both.items():
        assert new == old, f"{suffix} differs at chunks of {size}: {_first_difference(old, new)}"
    return {suffix: old for suffix, (old, _new) in both.items()}


def _assert_same_network(folder: Path, order: pd.DataFrame, size: int, entries: list) -> dict:
    """The network bibliography of `order` over the tables in `folder` both ways (`entries`: the per-entry
    writers' entries of it), per format: the same bytes."""
    works, authorships = folder / "works.parquet", folder / "authorships.parquet"
    old, new = ([folder / f"{name}{suffix}" for suffix in SUFFIXES] for name in ("net-old", "net-new"))
    write_bibliography(entries, old)
    assert write_network_bibliography(works, authorships, order, new, size) == len(entries)
    files = {}
    for suffix, o, n in zip(SUFFIXES, old, new):
        assert n.read_bytes() == o.read_bytes(), f"{suffix} differs: {_first_difference(o.read_bytes(), n.read_bytes())}"
        files[suffix] = o.read_bytes()
    return files


def _first_difference(old: bytes, new: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    return f"at byte {at}: old {old[max(0, at - 60):at + 60]!r}, new {new[max(0, at - 60):at + 60]!r}"


@pytest.fixture(scope="module")
def real_tables(tmp_path_factory):
    """The Donners review's 258 works and the hostile works as one corpus's tables."""
    folder = tmp_path_factory.mktemp("real")
    bundle_from_works([*read_work_objects(DONNERS), *_hostile_works()]).write(folder)
    return folder


@pytest.mark.parametrize("size", [37, 20_000])
def test_real_and_hostile_works_give_the_same_bytes(real_tables, size):
    files = _assert_same(real_tables, size)
    assert files[".bib"].count(b"\n@") == 258 + 10 - 1 and files[".ris"].count(b"ER  - \n") == 268
    assert b"\\textbackslash{}" in files[".bib"] and b"van der Berg" in files[".bib"]


@pytest.mark.parametrize("kind", ["coupling", "cocitation", "coauthorship", "keywords"])
def test_a_networks_bibliography_gives_the_per_entry_bytes(real_tables, kind):
    """Real networks of the real and hostile works: reading order, tags and notes as `network_entries` has
    them (co-citation nodes outside the corpus are left out), at chunks of 37 works and of all."""
    corpus = Bundle.read(real_tables)
    net = build(kind, corpus, {}, {"stability_runs": 1})
    items = None if kind in ("coupling", "cocitation") else item_rows(kind, corpus, {})[0][["work_id", "item_id"]]
    order = network_order(kind, net.nodes, items)
    entries = network_entries(kind, net.nodes, corpus, items)
    assert 0 < len(entries) <= len(order)
    for size in (37, 20_000):
        files = _assert_same_network(real_tables, order, size, entries)
    assert files[".ris"].count(b"KW  - b2g:cluster-") >= len(entries) and files[".bib"].count(b"  note = {") == len(entries)


def test_no_works_gives_the_empty_files(tmp_path):
    Bundle.empty().write(tmp_path)
    assert _assert_same(tmp_path, 3) == {".bib": b"", ".ris": b"", ".csl.json": b"[]\n"}


def test_authorships_without_their_work_are_left_out(tmp_path):
    """Authorship rows of IDs the works table lacks (before, between and after its works) name nobody."""
    bundle = bundle_from_works(_hostile_works())
    ids = sorted(bundle.works["work_id"])
    stray = pd.DataFrame({"work_id": ["A0", ids[2] + "x", "Z9"], "position": 0, "author_id": None,
                          "author_name": "Stray Person", "author_position": None})
    write_table(bundle.works, WORKS, tmp_path / "works.parquet")
    write_table(pd.concat([bundle.authorships, stray]), AUTHORSHIPS, tmp_path / "authorships.parquet")
    assert b"Stray" not in _assert_same(tmp_path, 4)[".ris"]


# ----------------------------------------------------------------------------------------------------
# Drawn tables

_SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"
_NASTY = st.sampled_from(["{", "}", "\\", "%", "&", "$", "#", "_", "~", "^", "--", "---", "''", "``", "?`", "!`",
                          '"', "and", "AND", ",", "\x00", "\x01", "\x7f", "é", "中文", "𝔘", "ER  - ", "@", "٣",
                          *_SPACES])
_TEXT = st.one_of(st.none(), st.just(""), st.text(max_size=30),
                  st.lists(st.one_of(_NASTY, st.text(alphabet="aZ09 -", max_size=4)), max_size=8).map("".join))
_WORD = st.sampled_from(["Jan", "van", "der", "de", "la", "Berg", "Jr.", "jr", "III", "iv", "Sr", "and", "Owen-Smith",
                         "J.", "Ñúñez", "李", "{x}", "50%", "O'Brien", "Madonna", "ſr", "İİ", "von", "y"])
_NAME = st.one_of(st.text(max_size=20), st.lists(_WORD, min_size=1, max_size=5).map(" ".join),
                  st.lists(st.one_of(_WORD, _WORD, _NASTY), min_size=0, max_size=5).map(" ".join),
                  st.tuples(st.lists(_WORD, max_size=3).map(" ".join), st.lists(_WORD, max_size=3).map(" ".join))
                  .map(", ".join))
_ID = st.one_of(st.from_regex(r"W[0-9]{1,12}", fullmatch=True), st.sampled_from(["W١٢", "W12\n", "W", "W1x", "w1"]),
                st.from_regex(r"(WOS:|2-s2\.0-)[0-9A-Z]{1,8}", fullmatch=True), st.text(min_size=1, max_size=10))
_TYPE = st.sampled_from([None, "", "article", "journal-article", "book", "book-part", "posted-content", "dissertation",
                         "dataset", "standard", "other", "Article", " article", "paratext"])
_DATE = st.one_of(st.none(), st.just(""), st.dates().map(str), st.from_regex(r"[0-9]{1,5}(-[0-9]{1,3}){0,3}", fullmatch=True),
                  st.sampled_from(["2019-03", "2019--02", "-2019", "٢٠١٩-٣", "2019-03-02x"]), st.text(max_size=12))
_YEAR = st.one_of(st.none(), st.integers(1000, 2100), st.integers(-5, 5))


@st.composite
def _tables(draw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A works table with its authorships (some works with none, some names missing)."""
    ids = draw(st.lists(_ID, min_size=1, max_size=8, unique=True))
    works = pd.DataFrame({
        "work_id": ids, "doi": [draw(_TEXT) for _ in ids], "pmid": None, "title": [draw(_TEXT) for _ in ids],
        "year": pd.array([draw(_YEAR) for _ in ids], dtype="Int64"),
        "publication_date": [draw(_DATE) for _ in ids], "type": [draw(_TYPE) for _ in ids], "language": None,
        "venue_id": None, "venue": [draw(_TEXT) for _ in ids], "issn": None, "cited_by_count": None,
        "n_references": 0, "is_retracted": False, "abstract": [draw(_TEXT) for _ in ids], "updated_date": None})
    rows = [(wid, position, draw(st.one_of(st.none(), _NAME)))
            for wid in ids for position in range(draw(st.integers(0, 6)))]
    authorships = pd.DataFrame(rows, columns=["work_id", "position", "author_name"]).assign(
        author_id=None, author_position=None)
    return works, authorships


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
@given(tables=_tables(), size=st.sampled_from([2, 20_000]))
def test_drawn_tables_give_the_same_bytes(tmp_path_factory, tables, size):
    folder = tmp_path_factory.mktemp("drawn")
    works, authorships = tables
    write_table(works, WORKS, folder / "works.parquet")
    write_table(authorships, AUTHORSHIPS, folder / "authorships.parquet")
    _assert_same(folder, size)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(names=st.lists(_NAME, max_size=20))
def test_name_forms_are_the_per_entry_writers_forms(names):
    """Each name's kernel forms are the per-entry functions' (many names a second: no files)."""
    from bib2graph.export.name_columns import PYTHON_FORMS, name_forms

    forms = name_forms(pa.array(names, pa.large_string()))
    for kind, function in PYTHON_FORMS.items():
        assert forms[kind].to_pylist() == [function(split_name(n)) for n in names], kind


def test_name_forms_reach_the_kernels_and_python_alike():
    """Both ways are taken: plain names by the kernels, the rest by Python, each with its own forms."""
    import pyarrow.compute as pc

    from bib2graph.export.name_columns import _PYTHON, name_forms
    from bib2graph.export.text_columns import one_line

    names = ["Jan van der Berg", "de la Cruz", "Madonna", "  ", "Ann  and\tBob Lee", "King, Jr., Martin",
             "Martin Luther King Jr.", "A van B van C", "Ñúñez García {50%}"]
    column = pa.array(names, pa.large_string())
    assert pc.match_substring_regex(one_line(column), _PYTHON).to_pylist() == [False] * 4 + [True] * 3 + [False] * 2
    forms = name_forms(column)
    assert forms["bibtex"].to_pylist() == ["van der Berg, Jan", "la Cruz, de", "{Madonna}", "{}", "Lee, {Ann and Bob}",
                                           "King, Jr., Martin", "King, Jr., Martin Luther", "van C, A van B",
                                           "\\{50\\%\\}, Ñúñez García"]
    assert forms["ris"][3].as_py() == "" and forms["ris"][0].as_py() == "AU  - van der Berg, Jan\n"
    assert '"suffix": "Jr."' in forms["csl"][5].as_py() and '"literal": "Madonna"' in forms["csl"][2].as_py()


_TAGS = st.lists(st.one_of(_NASTY, st.text(max_size=8), st.just("b2g:cluster-3")), max_size=4)


@pytest.mark.long
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
@given(tables=_tables(), data=st.data(), size=st.sampled_from([1, 3, 20_000]))
def test_drawn_network_orders_give_the_same_bytes(tmp_path_factory, tables, data, size):
    """Any order of some of the works and of IDs the corpus lacks, with drawn tags (blank ones, specials,
    none) and notes (none, blank, nasty)."""
    folder = tmp_path_factory.mktemp("drawn-network")
    works, authorships = tables
    write_table(works, WORKS, folder / "works.parquet")
    write_table(authorships, AUTHORSHIPS, folder / "authorships.parquet")
    ids = data.draw(st.lists(st.one_of(st.sampled_from(list(works["work_id"])), _ID), unique=True, max_size=10))
    tags, notes = [data.draw(_TAGS) for _ in ids], [data.draw(_TEXT) for _ in ids]
    entries = entries_of(read_table(folder / "works.parquet", WORKS),
                         read_table(folder / "authorships.parquet", AUTHORSHIPS), ids, dict(zip(ids, tags)),
                         dict(zip(ids, notes)))
    _assert_same_network(folder, pd.DataFrame({"work_id": ids, "tags": tags, "note": notes}), size, entries)
