"""Bibliographies out and back: corpus → BibTeX / RIS / CSL-JSON → our readers gives the same works."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.export.bibliography import (Entry, bibtex_key, entries, network_entries, to_bibtex, to_csl_json,
                                           to_ris, work_id_from_key, write_bibliography)
from bib2graph.export.reading import reading_order
from bib2graph.networks import build
from bib2graph.networks.item_networks import item_rows
from bib2graph.skips import Skips
from bib2graph.sources.exports.bibtex import read_bibtex
from bib2graph.sources.exports.csl_json import read_csl_json
from bib2graph.sources.exports.ris import read_ris
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.ingest import ingest
from bib2graph.sources.records import bundle_from_works

DONNERS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "synergy" / "Donners_2021" / "works_1.zip"
READERS = {".bib": read_bibtex, ".ris": read_ris, ".csl.json": read_csl_json}


@pytest.fixture(scope="module")
def donners():
    return bundle_from_works(read_work_objects(DONNERS))


def _tokens(name: str) -> list[str]:
    """A name's words, whatever the order or comma: "Jason Owen-Smith" ~ "Owen-Smith, Jason"."""
    return sorted(w for w in re.split(r"[\s,]+", name) if w)


_MARKUP = re.compile(r"</?(?:i|b|sub|sup|scp)>")


def _one_line(text):
    return " ".join(text.split()) if isinstance(text, str) and text.strip() else None


def _expected(bundle) -> dict[str, dict]:
    """What each work should read back as, straight from the bundle tables."""
    names = bundle.authorships.dropna(subset=["author_name"]).sort_values(["work_id", "position"])
    authors = names.groupby("work_id")["author_name"].agg(list).to_dict()
    return {w.work_id: {"doi": w.doi if isinstance(w.doi, str) else None, "title": _one_line(w.title),
                        "year": None if pd.isna(w.year) else int(w.year),
                        "authors": [_tokens(a) for a in authors.get(w.work_id, [])]}
            for w in bundle.works.itertuples(index=False)}


def _round_trip(bundle, folder: Path) -> None:
    stem = folder / "bibliography"
    write_bibliography(entries(bundle), [f"{stem}{suffix}" for suffix in READERS])
    want = _expected(bundle)
    for suffix, reader in READERS.items():
        skips = Skips(strict=True)
        records = list(reader(Path(f"{stem}{suffix}"), f"bibliography{suffix}", skips))
        assert len(records) == len(want), suffix
        for record, work_id in zip(records, sorted(want)):   # written in ID order
            got = {"doi": record.doi, "title": _one_line(record.title), "year": record.year,
                   "authors": [_tokens(a.name) for a in record.authors]}
            assert work_id in record.ids.values(), (suffix, work_id, record.ids)
            wanted = want[work_id]
            if suffix == ".bib":    # BibTeX writes a title's markup as LaTeX (\textit{…}), read back as its text
                wanted = {**wanted, "title": _one_line(_MARKUP.sub("", wanted["title"] or "")) or None}
            assert got == wanted, (suffix, work_id)


@pytest.mark.long
def test_real_corpus_round_trips_through_all_three_formats(donners, tmp_path):
    assert len(donners.works) == 258 and donners.works["doi"].notna().sum() > 200
    _round_trip(donners, tmp_path)


@pytest.mark.long
def test_a_bibliography_read_as_a_source_gives_back_the_corpus(donners, tmp_path):
    """Through the source reader (format detected, records merged into works) too."""
    write_bibliography(entries(donners), [tmp_path / f"corpus{suffix}" for suffix in READERS])
    want = donners.works.set_index("work_id")
    for suffix in READERS:
        works = ingest([tmp_path / f"corpus{suffix}"], [f"corpus{suffix}"]).bundle.works.set_index("work_id")
        assert list(works.index) == list(want.index), suffix
        assert works["doi"].equals(want["doi"]) and works["year"].equals(want["year"]), suffix


def _hostile_works() -> list[dict]:
    many = [{"author": {"id": f"https://openalex.org/A{n}", "display_name": f"Given{n} Family{n}"}}
            for n in range(1, 401)]
    titles = ["{Unbalanced brace", "a } b {c} \\LaTeX \\ backslash", "100% & $5 #1 _x_ ~y ^2",
              "Ünïcödé Œuvre – 中文 ‘quoted’ “twice” ᴀ", "line one\nline two\r\n\tline three",
              "dashes -- and --- and ``quotes'' and ?` !`", "ER  - not an end\nTY  - JOUR", "@article{x, title={y}}"]
    people = ["Jason Owen-Smith", "Owen-Smith, J", "Jan van der Berg", "Martin Luther King Jr.", "Madonna",
              "José Ñúñez-García", "O'Brien, Seán", "李 小龍", "Research and Development Group", "King, Jr., Martin",
              "Smith, John and Sons"]
    works = []
    for n, title in enumerate(titles, 1):
        works.append({"id": f"https://openalex.org/W90{n}", "title": title, "publication_year": 1990 + n,
                      "publication_date": f"{1990 + n}-0{n}-1{n}", "type": "article",
                      "doi": f"https://doi.org/10.1000/b2g_{n}--%{n}~x#{{y}}" if n % 2 else f"10.1000/plain_{n}",
                      "primary_location": {"source": {"display_name": f"Journal & {title[:10]}"}},
                      "abstract_inverted_index": {"Abstract": [0], "with\nnewline": [1], "%": [2]},
                      "authorships": [{"author": {"display_name": people[(n + k) % len(people)]}}
                                      for k in range(3)]})
    works.append({"id": "https://openalex.org/W999", "title": "Four hundred authors", "publication_year": 2020,
                  "authorships": many})
    works.append({"id": "https://openalex.org/W998", "title": None, "publication_year": None, "authorships": []})
    return works


def test_hostile_values_round_trip(tmp_path):
    bundle = bundle_from_works(_hostile_works())
    assert len(bundle.works) == 10
    _round_trip(bundle, tmp_path)


def test_keys_are_reversible_and_files_deterministic(donners, tmp_path):
    for work_id in ("W2741809807", "WOS:000123456700001", "2-s2.0-85181234567", "lens 12{3}%é+x"):
        key = bibtex_key(work_id)
        assert re.fullmatch(r"[A-Za-z0-9_:.\-/+]+", key) and work_id_from_key(key) == work_id
    items = entries(donners)
    assert to_bibtex(items) == to_bibtex(entries(donners))
    assert re.findall(r"^@\w+\{([^,]+),", to_bibtex(items), re.M) == sorted(donners.works["work_id"])
    assert len(re.findall(r"^ER  - $", to_ris(items), re.M)) == len(donners.works)
    parsed = json.loads(to_csl_json(items))
    assert [i["id"] for i in parsed] == sorted(donners.works["work_id"])
    assert all(i["type"] in ("article-journal", "paper-conference", "chapter") for i in parsed)


def test_non_openalex_ids_round_trip(tmp_path):
    """IDs of works read from WoS, Scopus or Lens exports, or derived by bib2graph, travel too, so that a
    bibliography read back as a source gives each work the ID it had."""
    ids = ["WOS:000123456700001", "2-s2.0-85181234567", "020-146-482-991-04X", "REC:0A1B2C3D4E5F", "W77"]
    items = [Entry(work_id=wid, title=f"Work number {n} on networks", year=2000 + n, authors=("Ann Lee",))
             for n, wid in enumerate(ids)]
    for suffix, reader in READERS.items():
        path = tmp_path / f"b{suffix}"
        write_bibliography(items, [path])
        records = list(reader(path, path.name, Skips(strict=True)))
        assert [wid in r.ids.values() for wid, r in zip(ids, records)] == [True] * len(ids), (suffix, records)
        assert sorted(ingest([path], [path.name]).bundle.works["work_id"]) == sorted(ids), suffix


def test_network_bibliography_follows_reading_order_and_tags_clusters(donners):
    coupling = build("coupling", donners, {}, {"stability_runs": 1})
    order = reading_order("coupling", coupling.nodes)
    items = network_entries("coupling", coupling.nodes, donners)
    assert [e.work_id for e in items] == list(order["node_id"])
    for n, (entry, row) in enumerate(zip(items, order.itertuples(index=False)), 1):
        assert entry.keywords == (f"b2g:cluster-{row.cluster}",)
        assert entry.note.startswith(f"reading order {n};")
    ris = to_ris(items)
    assert ris.count("KW  - b2g:cluster-") == len(items)

    coauthors = build("coauthorship", donners, {}, {"stability_runs": 1})
    rows = item_rows("coauthorship", donners, {})[0]
    by_work = rows.merge(coauthors.nodes[["node_id", "cluster"]], left_on="item_id", right_on="node_id")
    items = network_entries("coauthorship", coauthors.nodes, donners, rows[["work_id", "item_id"]])
    assert {e.work_id for e in items} == set(by_work["work_id"])
    clusters = by_work.groupby("work_id")["cluster"].agg(lambda c: sorted(set(c))).to_dict()
    for entry in items:
        assert entry.keywords == tuple(f"b2g:cluster-{c}" for c in clusters[entry.work_id])


ZOTERO_CSL = """[
  {"id": "http://zotero.org/users/1/items/ABCD", "type": "article-journal",
   "title": "Rich club", "container-title": "Phys. Rev.", "page": "12–19", "volume": "4",
   "author": [{"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
              {"literal": "WHO Collaborative Group"}, {"family": "King", "given": "Martin", "suffix": "Jr."}],
   "issued": {"date-parts": [["2019", "3", "2"]]}, "DOI": "https://doi.org/10.1000/ABC", "language": "en-US",
   "keyword": "networks, b2g:cluster-2"},
  "not an item",
  {"id": "W12", "type": "book", "issued": {"raw": "circa 1999"}},
  {"type": "chapter"}
]
"""


def test_csl_json_reader_reads_zotero_items_and_reports_the_rest(tmp_path):
    path = tmp_path / "zotero.json"
    path.write_text(ZOTERO_CSL, encoding="utf-8")
    skips = Skips()
    first, second = read_csl_json(path, "zotero.json", skips)
    assert [s.where for s in skips.items] == ["record 2, line 8", "record 4, line 10"]
    assert first.ids == {"csl": "http://zotero.org/users/1/items/ABCD"} and first.doi == "10.1000/abc"
    assert [a.name for a in first.authors] == ["van der Berg, Jan", "WHO Collaborative Group", "King, Martin, Jr."]
    assert (first.year, first.publication_date, first.first_page, first.last_page) == (2019, "2019-03-02", "12", "19")
    assert (first.type, first.language, first.venue, first.volume) == ("article", "en", "Phys. Rev.", "4")
    assert first.author_keywords == ["networks", "b2g:cluster-2"] and first.origin.line == 2
    assert (second.ids, second.type, second.year, second.origin.line) == ({"openalex": "W12"}, "book", 1999, 9)


@pytest.mark.parametrize("text, line", [("[{\"id\": \"W1\"},\n{\"id\": }]", 2), ("{\"a\": 1} x", 1),
                                        ("[{\"id\": \"W1\"}", 1), ("", 1), ("[1 2]", 1), ("[]\n\n]", 3)])
def test_broken_csl_json_is_a_file_error_with_its_line(tmp_path, text, line):
    from bib2graph.errors import DataError

    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        list(read_csl_json(path, "bad.json", Skips()))
    assert info.value.code == "FILE_INVALID" and info.value.details["line"] == line


_TEXT = st.one_of(st.none(), st.text(max_size=40),
                  st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=20))   # every control character


@settings(max_examples=300, deadline=None)
@given(st.lists(st.builds(Entry, work_id=st.text(min_size=1, max_size=12), type=st.sampled_from([None, "article", "book"]),
                          title=_TEXT, authors=st.lists(st.text(max_size=20), max_size=3).map(tuple),
                          year=st.one_of(st.none(), st.integers(1000, 2100)), date=_TEXT, doi=_TEXT, venue=_TEXT,
                          pages=_TEXT, abstract=_TEXT, keywords=st.lists(st.text(max_size=10), max_size=3).map(tuple),
                          note=_TEXT), max_size=4))
def test_csl_json_has_the_bytes_of_the_standard_library_encoder(items):
    """orjson writes what ``json.dumps(ensure_ascii=False, sort_keys=True, indent=2)`` writes: control
    characters, quotes, backslashes, non-BMP text, nested authors and dates alike."""
    from bib2graph.export.bibliography import csl_item

    expected = json.dumps([csl_item(e) for e in items], ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    assert to_csl_json(items) == expected


def test_a_doi_goes_to_bibtex_verbatim_and_comes_back_the_same():
    """biblatex and the doi/url packages read `doi` verbatim: `\\_` or `\\textasciitilde{}` were printed as such
    and broke the link. Only braces that do not pair are escaped (they would end the field)."""
    from bib2graph.sources.exports.bibtex import verbatim_doi

    for doi in ("10.1162/jocn_a_01385", "10.1000/a_b%c{d}#e~f&g\"h", "10.1002/(sici)1097-4636(199706)35:4<509::aid>3.0.co;2-#"):
        written = re.search(r"doi = \{(.*)\},\n", to_bibtex([Entry(work_id="W1", doi=doi)])).group(1)
        assert written == doi and verbatim_doi(written) == doi
    assert "doi = {10.1/a\\}b\\{}," in to_bibtex([Entry(work_id="W1", doi="10.1/a}b{")])
    # as other exporters escape one: Mendeley's {\_}, JabRef's \_, \textasciitilde{}, a braced value
    assert [verbatim_doi(v) for v in ("10.1162/jocn{\\_}a\\_01385", "{10.1/x}", "10.1/a\\textasciitilde{}b")] == [
        "10.1162/jocn_a_01385", "10.1/x", "10.1/a~b"]


def test_a_titles_markup_is_latex_in_bibtex_and_what_no_text_means_is_left_out():
    entry = Entry(work_id="W1", title="<i>Thunbergia laurifolia</i>extract: c-<i>fos</i>, CO<sub>2</sub>, p < 0.05 "
                                      "<span class=\"x_y\">here</span>\x01 end\ufffe")
    bib = to_bibtex([entry])
    assert ("title = {\\textit{Thunbergia laurifolia}extract: c-\\textit{fos}, CO\\textsubscript{2}, p < 0.05 "
            "here end}") in bib
    assert "\x01" not in to_ris([entry]) and "\ufffe" not in to_ris([entry])


def test_a_doi_link_is_percent_encoded_where_a_url_needs_it():
    import pyarrow as pa

    from bib2graph.export.common import node_url, url_cells

    dois = ["10.1000/a_b%c{d}#e~f&g\"h", "10.1002/(sici)1097-4636(199706)35:4<509::aid-jbm11>3.0.co;2-9", "10.1/x"]
    assert [node_url("W1", d) for d in dois] == [
        "https://doi.org/10.1000/a_b%25c%7Bd%7D%23e~f&g%22h",
        "https://doi.org/10.1002/(sici)1097-4636(199706)35:4%3C509::aid-jbm11%3E3.0.co;2-9", "https://doi.org/10.1/x"]
    assert url_cells(pa.array(["W1", "W2", "W3"]), pa.array(dois)).to_pylist() == [node_url("W1", d) for d in dois]
