"""The Dimensions CSV reader on exports written by tests/dimensions_export.py from the CC0 SYNERGY records
of one review (real Dimensions exports may not be redistributed; the layout follows real ones, see
tests/data/dimensions/NOTICE.md): what it reads equals a plain parse written here (the csv module, list
indexes by header name, regexes), the mapping export's cited references resolve among the file's works
as the OpenAlex `referenced_works` they were written from say, spreadsheet-cut rows are skipped with their
line, and strict mode makes that an error."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.ids import normalize_doi, short_id
from bib2graph.skips import Skips
from bib2graph.sources.exports.detect import detect_format
from bib2graph.sources.exports.dimensions import read_dimensions_csv
from bib2graph.sources.exports.dimensions_refs import parse_dimensions_reference, split_references
from bib2graph.sources.exports.references import parse_reference
from bib2graph.sources.ingest import ingest

from ..dimensions_export import FULL_RECORD_2021, full_record_csv, mapping_csv, pub_id
from ..wos_export import synergy_works

CUT_AT = 3000      # SYNERGY's reference lists are shorter than a spreadsheet's 32,767-character cells


@pytest.fixture(scope="module")
def export(shared_data, tmp_path_factory):
    """The review's works (one per DOI, as Dimensions holds them) written as a full record (with and
    without the note, and in the 2021 layout) and a mapping export of the works citing others among them
    (as exported, and as a spreadsheet saves it, cells cut)."""
    universe = synergy_works([shared_data / "synergy/Donners_2021/works_1.zip"])
    by_doi = {}
    for wid in sorted(universe):
        by_doi.setdefault(normalize_doi(universe[wid].get("doi")) or wid, universe[wid])
    works = sorted(by_doi.values(), key=lambda w: short_id(w["id"]))
    universe = {short_id(w["id"]): w for w in works}
    citing = [w for w in works if any(short_id(r) in universe for r in w.get("referenced_works") or [])]
    folder = tmp_path_factory.mktemp("dimensions")
    paths = {}
    for name, text in (("full", full_record_csv(works)), ("bare", full_record_csv(works, note=False)),
                       ("full2021", full_record_csv(works, columns=FULL_RECORD_2021))):
        paths[name] = folder / f"{name}.csv"
        paths[name].write_bytes(text.encode("utf-8"))
    text, cited = mapping_csv(citing, universe)
    cut, _ = mapping_csv(citing, universe, spreadsheet=True, cell_limit=CUT_AT)
    for name, text in (("network", text), ("cut", cut)):
        paths[name] = folder / f"{name}.csv"
        paths[name].write_bytes(text.encode("utf-8"))
    return {"paths": paths, "works": works, "universe": universe, "citing": citing, "cited": cited}


def _plain(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(header, [(physical line, cells)]) by the csv module alone; a first row starting "About the data"
    is the note, not the header."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        rows, before = [], 0
        for cells in reader:
            rows.append((before + 1, cells))
            before = reader.line_num
    if rows[0][1][0].startswith("About the data"):
        rows = rows[1:]
    return rows[0][1], rows[1:]


def _column(header: list[str], rows, name: str) -> list[str]:
    i = header.index(name)
    return [cells[i].strip() for _, cells in rows]


def _split(cell: str) -> list[str]:
    return [part.strip() for part in cell.split(";") if part.strip()]


def _read(path: Path, skips: Skips | None = None):
    return list(read_dimensions_csv(path, path.name, Skips() if skips is None else skips))


def test_full_record_export_equals_a_plain_parse(export):
    path = export["paths"]["full"]
    header, rows = _plain(path)
    records = _read(path)
    assert len(records) == len(rows) == len(export["works"]) > 200
    assert [r.ids["dimensions"] for r in records] == _column(header, rows, "Publication ID")
    assert [r.doi for r in records] == [d.lower() or None for d in _column(header, rows, "DOI")]
    assert [r.ids.get("pmid") for r in records] == [p or None for p in _column(header, rows, "PMID")]
    assert [r.ids.get("pmcid") for r in records] == [p or None for p in _column(header, rows, "PMCID")]
    assert sum(1 for r in records if r.ids.get("pmid")) > 100
    assert [r.year for r in records] == [int(y) for y in _column(header, rows, "PubYear")]
    assert [[a.name for a in r.authors] for r in records] == [_split(c) for c in _column(header, rows, "Authors")]
    assert [r.mesh for r in records] == [_split(c) for c in _column(header, rows, "MeSH terms")]
    assert sum(1 for r in records if r.mesh) > 50
    assert [r.index_keywords for r in records] == \
        [[re.sub(r"^\d+\s+", "", c) for c in _split(cell)] for cell in _column(header, rows, "FOR (ANZSRC) Categories")]
    assert [r.origin.line for r in records] == [line for line, _ in rows]   # multi-line cells counted
    assert rows[-1][0] > len(rows) + 2                                      # and there are some
    assert [r.title for r in records] == [t or None for t in _column(header, rows, "Title")]
    assert [r.venue for r in records] == [s or a or None for s, a in zip(_column(header, rows, "Source title"),
                                                                         _column(header, rows, "Anthology title"))]
    pages = [re.fullmatch(r"(\w+)-(\w+)", p) for p in _column(header, rows, "Pagination")]
    assert [(r.first_page, r.last_page) for r in records] == \
        [m.groups() if m else (p or None, None) for m, p in zip(pages, _column(header, rows, "Pagination"))]


def test_the_2021_layout_adds_the_abstract(export):
    path = export["paths"]["full2021"]
    header, rows = _plain(path)
    records = _read(path)
    assert detect_format(path) == "dimensions-csv"
    assert [r.abstract for r in records] == [a or None for a in _column(header, rows, "Abstract")]
    assert sum(1 for r in records if r.abstract) > 200
    assert [r.ids for r in records] == [r.ids for r in _read(export["paths"]["full"])]


def test_full_record_authors_carry_their_standardised_organisations(export):
    path = export["paths"]["full"]
    header, rows = _plain(path)
    records = _read(path)
    cells = _column(header, rows, "Authors Affiliations")
    for record, cell in zip(records, cells):
        # "Lu, Victor M (Mayo Clinic; University of Miami); …": the organisations of each author, in order
        expected = [list(dict.fromkeys(o.strip() for o in group.split("; ") if o.strip()))
                    for group in _outer_groups(cell)]
        got = [[record.institutions[i].name for i in a.affiliations] for a in record.authors]
        assert got == expected
    assert sum(1 for r in records for a in r.authors if len(a.affiliations) > 1) > 10


def _outer_groups(cell: str) -> list[str]:
    """The text of each outermost parenthesis ("Novartis (United States)" may stand inside one)."""
    groups, depth, start = [], 0, 0
    for i, ch in enumerate(cell):
        if ch == "(":
            depth += 1
            start = i + 1 if depth == 1 else start
        elif ch == ")":
            depth -= 1
            if depth == 0:
                groups.append(cell[start:i])
    return groups


def _mapping_checks(path: Path) -> list:
    """The mapping export's records equal a plain parse of the rows with a Dimensions ID; the records."""
    header, rows = _plain(path)
    records = _read(path)
    kept = [(line, cells) for line, cells in rows if re.fullmatch(r"pub\.\d+", cells[0])]
    assert len(records) == len(kept)
    assert [r.ids["dimensions"] for r in records] == [cells[0] for _, cells in kept]
    assert [r.doi for r in records] == [cells[1].lower() or None for _, cells in kept]
    assert [r.year for r in records] == [int(cells[4]) for _, cells in kept]
    assert [r.venue for r in records] == [cells[3] or None for _, cells in kept]
    assert [r.origin.line for r in records] == [line for line, _ in kept]
    assert [[i.name for i in r.institutions] for r in records] == [_split(cells[9]) for _, cells in kept]
    i = header.index("Cited references")
    # a reference is "[authors]|[ids]|source|year|volume|issue|pages|DOI|pub ID|times cited"; a cut one
    # (the end of a cell a spreadsheet stopped at its limit) has no closed DOI field and is dropped
    expected = [[ref for ref in re.split(r";(?=\[)", cells[i]) if ref.count("|") >= 8] for _, cells in kept]
    assert [[c.raw for c in r.references] for r in records] == expected
    assert sum(map(len, expected)) > 500
    dois = [[m.lower()] if (m := ref.split("|")[7]).startswith("10.") else []
            for refs in expected for ref in refs]
    parsed = [parse_reference(c.raw, "dimensions") for r in records for c in r.references]
    assert [[p.doi] if p.doi else [] for p in parsed] == dois
    assert 0 < sum(1 for d in dois if not d) < len(dois) / 2        # some written without their DOI
    assert all(c.line == r.origin.line for r in records for c in r.references)
    return records


def test_mapping_export_records_and_references_equal_a_plain_parse(export):
    records = _mapping_checks(export["paths"]["network"])
    assert len(records) == len(export["citing"])


def test_spreadsheet_saved_mapping_export_equals_a_plain_parse(export):
    records = _mapping_checks(export["paths"]["cut"])
    assert [r.ids["dimensions"] for r in records] == [pub_id(w) for w in export["citing"]]
    header, rows = _plain(export["paths"]["cut"])
    assert len(header) > 14 and not any(header[14:])                 # padded with unnamed columns
    i = header.index("Cited references")
    assert sum(1 for _, cells in rows if len(cells[i]) == CUT_AT) > 5   # cells cut at the limit


def test_spreadsheet_cut_rows_are_skipped_with_their_line_and_strict_mode_stops(export):
    path = export["paths"]["cut"]
    _, rows = _plain(path)
    cut = [(n, line) for n, (line, cells) in enumerate(rows, 1) if not re.fullmatch(r"pub\.\d+", cells[0])]
    assert len(cut) > 5
    skips = Skips()
    _read(path, skips)
    skipped = skips.as_rows()
    assert [r["where"] for r in skipped] == [f"record {n}, line {line}" for n, line in cut]
    assert all("is not a Dimensions ID" in r["reason"] for r in skipped)
    with pytest.raises(DataError, match=f"line {cut[0][1]}\\b"):
        _read(path, Skips(strict=True))


def test_a_row_without_any_identifier_is_skipped_and_one_with_a_doi_is_kept(tmp_path):
    path = tmp_path / "dim.csv"
    path.write_text('"About the data: Exported on Jan 01, 2024. Criteria: x.",,,\n'
                    "Rank,Publication ID,DOI,Title,PubYear\n"
                    "1,,,No identifier,2020\n"
                    "2,,10.1000/XYZ,Only a DOI,2021\n", encoding="utf-8")
    skips = Skips()
    records = _read(path, skips)
    assert [(r.doi, r.ids, r.origin.line) for r in records] == [("10.1000/xyz", {}, 4)]
    assert [r["where"] for r in skips.as_rows()] == ["record 1, line 3"]


def test_detected_by_content_with_and_without_the_note(export):
    paths = export["paths"]
    assert paths["full"].read_bytes().startswith(b'"About the data: Exported on ')
    assert not paths["bare"].read_bytes().startswith(b'"About')
    assert not paths["cut"].read_bytes().startswith(b'"About')
    for name in ("full", "bare", "network", "cut"):
        assert detect_format(paths[name]) == "dimensions-csv", name
    with_note, without = _read(paths["full"]), _read(paths["bare"])
    assert [r.ids for r in without] == [r.ids for r in with_note]
    assert [r.origin.line for r in without] == [r.origin.line - 1 for r in with_note]


def test_undecodable_bytes_name_their_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"Publication ID,DOI,Title\npub.1,10.1/a,Fine\npub.2,10.1/b,Bad \xff byte\n")
    with pytest.raises(DataError, match="line 3") as error:
        _read(path)
    assert error.value.code == "FILE_ENCODING"


def test_a_reference_parsed_field_by_field():
    raw = ("[Okafor, Adaeze N.; Lindqvist, Per]|[ur.0123456789.01; ]|Journal of Made-up "
           "Studies|2017|13|2|389-393|10.1000/jms.2017.04.006|pub.1000000001|12")
    parsed = parse_dimensions_reference(raw, raw)
    assert (parsed.first_author, parsed.year, parsed.source, parsed.volume, parsed.page, parsed.doi) == \
        ("Okafor AN", 2017, "Journal of Made-up Studies", "13", "389", "10.1000/jms.2017.04.006")
    anonymous = parse_reference("[]|[]|Nature|2016|535|7613|466-466|10.1000/x466|pub.1000000002|23", "dimensions")
    assert (anonymous.first_author, anonymous.source, anonymous.page) == (None, "Nature", "466")
    book = parse_reference("[Kaplan, Robert B.]|[]|A Book of Tests|2001|||3-26|10.1515/x.3|pub.1|32",
                           "dimensions")
    assert (book.first_author, book.volume, book.page, book.doi) == ("Kaplan RB", None, "3", "10.1515/x.3")
    piped = parse_reference("[Li, Wei]|[]|A|B Journal|1999|4|1|7||pub.2|0", "dimensions")
    assert (piped.source, piped.year, piped.volume, piped.doi) == ("A|B Journal", 1999, "4", None)
    assert split_references("[A, B]|[]|X|2000|1|1|1||pub.1|0;[C, D; E, F]|[]|Y|2001|2|2|2||pub.2|0") == \
        ["[A, B]|[]|X|2000|1|1|1||pub.1|0", "[C, D; E, F]|[]|Y|2001|2|2|2||pub.2|0"]


def test_ingest_resolves_references_among_the_files_works(export):
    paths, universe = export["paths"], export["universe"]
    found = ingest([paths["network"], paths["full"]], ["network.csv", "full.csv"])
    works = found.bundle.works
    header, rows = _plain(paths["full"])
    pub_ids = set(_column(header, rows, "Publication ID"))
    assert set(works["work_id"]) == pub_ids                       # the mapping export's works are among them
    n = len(export["citing"])
    assert found.counts["files"] == [{"file": "network.csv", "records": n, "duplicates": 0},
                                     {"file": "full.csv", "records": len(rows), "duplicates": n}]
    # the references written are OpenAlex's referenced_works among the file's works
    written = {(short_id(w["id"]), c) for w in export["citing"] for c, _ in export["cited"][short_id(w["id"])]}
    assert written == {(short_id(w["id"]), short_id(r)) for w in export["citing"]
                       for r in w["referenced_works"] if short_id(r) in universe}
    # each resolves to its work: by DOI, or without one by first author, year, source, volume and page
    expected = {(pub_id(universe[a]), pub_id(universe[b])) for a, refs in export["cited"].items()
                for b, with_doi in refs if with_doi or _keyed(universe[b])}
    by_key = {(pub_id(universe[a]), pub_id(universe[b])) for a, refs in export["cited"].items()
              for b, with_doi in refs if not with_doi and _keyed(universe[b])}
    refs = found.bundle.references
    internal = refs[refs["referenced_id"].isin(pub_ids)]
    assert set(zip(internal["work_id"], internal["referenced_id"])) == expected
    assert len(expected) > 500 and len(by_key) > 100
    authorships = found.bundle.authorships
    assert len(authorships) == sum(len(_split(cell)) for cell in _column(header, rows, "Authors"))
    terms = found.bundle.terms
    assert set(terms.loc[terms["field"] == "mesh", "term_id"]) == \
        {m.casefold() for c in _column(header, rows, "MeSH terms") for m in _split(c)}
    pmids = dict(zip(_column(header, rows, "Publication ID"), _column(header, rows, "PMID")))
    assert {w: p for w, p in zip(works["work_id"], works["pmid"]) if isinstance(p, str)} == \
        {w: p for w, p in pmids.items() if p}


def _keyed(work) -> bool:
    """Whether a reference to `work` without its DOI still names it: a first author and a year."""
    return bool(work.get("authorships") and work.get("publication_year"))


def test_a_negative_count_is_no_count(tmp_path):
    """Found by the fuzz harness: "Times cited" -5 broke the works table's schema instead of reading as
    no count."""
    from bib2graph.sources.ingest import ingest

    header = "Publication ID,DOI,Title,PubYear,Authors,Times cited\n"
    path = tmp_path / "dimensions.csv"
    path.write_text(header + "pub.1,10.1/a,A title,2020,\"Smith, Jane\",-5\n", encoding="utf-8")
    works = ingest([path], ["dimensions.csv"], ["dimensions-csv"]).bundle.works
    assert works["cited_by_count"].isna().all() and len(works) == 1
