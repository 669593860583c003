"""The Dimensions CSV reader on real exports (tests/data/dimensions, see its NOTICE.md): what it reads
equals a plain parse written here (the csv module, list indexes by header name, regexes), the mapping
export's cited references resolve among the file's works, spreadsheet-cut rows are skipped with their
line, and strict mode makes that an error."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.exports.detect import detect_format
from bib2graph.sources.exports.dimensions import read_dimensions_csv
from bib2graph.sources.exports.dimensions_refs import parse_dimensions_reference, split_references
from bib2graph.sources.exports.references import parse_reference
from bib2graph.sources.ingest import ingest

DATA = Path(__file__).resolve().parents[1] / "data" / "dimensions"
FULL = DATA / "dimensions_full_record.csv"
NETWORK = DATA / "dimensions_network_selection.csv"


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


def _read(path: Path, skips: Skips | None = None):
    return list(read_dimensions_csv(path, path.name, Skips() if skips is None else skips))


def test_full_record_export_equals_a_plain_parse():
    header, rows = _plain(FULL)
    records = _read(FULL)
    assert len(records) == len(rows) == 327
    assert [r.ids["dimensions"] for r in records] == _column(header, rows, "Publication ID")
    assert [r.doi for r in records] == [d.lower() or None for d in _column(header, rows, "DOI")]
    assert [r.ids.get("pmid") for r in records] == [p or None for p in _column(header, rows, "PMID")]
    assert sum(1 for r in records if r.ids.get("pmid")) == 164
    assert [r.year for r in records] == [int(y) for y in _column(header, rows, "PubYear")]
    assert [[a.name for a in r.authors] for r in records] == \
        [[a.strip() for a in cell.split(";") if a.strip()] for cell in _column(header, rows, "Authors")]
    assert [r.mesh for r in records] == \
        [[m.strip() for m in cell.split(";") if m.strip()] for cell in _column(header, rows, "MeSH terms")]
    assert [r.origin.line for r in records] == [line for line, _ in rows]   # multi-line cells counted
    assert [r.title for r in records] == _column(header, rows, "Title")


def test_full_record_authors_carry_their_standardised_organisations():
    header, rows = _plain(FULL)
    records = _read(FULL)
    cells = _column(header, rows, "Authors Affiliations")
    for record, cell in zip(records, cells):
        # "Lu, Victor M (Mayo Clinic; University of Miami); …": the organisations of each author, in order
        # (an organisation named twice for one author, for two of its departments, is one affiliation)
        expected = [list(dict.fromkeys(o.strip() for o in group.split("; ") if o.strip()))
                    for group in _outer_groups(cell)]
        got = [[record.institutions[i].name for i in a.affiliations] for a in record.authors]
        assert got == expected
    lu = next(r for r in records if r.ids["dimensions"] == "pub.1128885532")
    assert [record.name for record in lu.institutions][:2] == ["Mayo Clinic", "University of Miami"]
    assert lu.authors[0].affiliations == (0, 1)


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


def test_mapping_export_records_and_references_equal_a_plain_parse():
    header, rows = _plain(NETWORK)
    skips = Skips()
    records = _read(NETWORK, skips)
    ids = _column(header, rows, "Publication ID")
    kept = [(line, cells) for (line, cells), pub in zip(rows, ids) if re.fullmatch(r"pub\.\d+", pub)]
    assert len(records) == len(kept) == 97 and len(rows) == 99
    assert [r.ids["dimensions"] for r in records] == [cells[0] for _, cells in kept]
    assert [r.doi for r in records] == [cells[1].lower() or None for _, cells in kept]
    assert [r.year for r in records] == [int(cells[4]) for _, cells in kept]
    assert [r.venue for r in records] == [cells[3] or None for _, cells in kept]
    i = header.index("Cited references")
    # a reference is "[authors]|[ids]|source|year|volume|issue|pages|DOI|pub ID|times cited"; a cut one
    # (the end of a cell a spreadsheet stopped at 32,767 characters) lacks its DOI field and is dropped
    expected = [[ref for ref in re.split(r";(?=\[)", cells[i]) if ref.count("|") >= 7] for _, cells in kept]
    assert [[c.raw for c in r.references] for r in records] == expected
    assert sum(len(r.references) for r in records) == sum(map(len, expected)) > 1000
    dois = [[m.lower() for m in re.findall(r"\|(10\.[^|]+)\|pub\.\d+\|\d*$", "|".join(ref.split("|")[:10]))]
            for refs in expected for ref in refs]
    parsed = [parse_reference(c.raw, "dimensions") for r in records for c in r.references]
    assert [[p.doi] if p.doi else [] for p in parsed] == dois
    assert all(c.line == r.origin.line for r in records for c in r.references)


def test_spreadsheet_cut_rows_are_skipped_with_their_line_and_strict_mode_stops():
    skips = Skips()
    _read(NETWORK, skips)
    rows = skips.as_rows()
    assert [r["where"] for r in rows] == ["record 24, line 25", "record 31, line 32"]
    assert all("is not a Dimensions ID" in r["reason"] for r in rows)
    with pytest.raises(DataError, match="line 25"):
        _read(NETWORK, Skips(strict=True))


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


def test_detected_by_content_with_and_without_the_note(tmp_path):
    assert detect_format(FULL) == "dimensions-csv"
    assert detect_format(NETWORK) == "dimensions-csv"
    lines = FULL.read_bytes().split(b"\n")
    assert lines[0].startswith(b'"About the data: Exported on Jul 08, 2020.')
    bare = tmp_path / "no_note.csv"
    bare.write_bytes(b"\n".join(lines[1:]))
    assert detect_format(bare) == "dimensions-csv"
    with_note, without = _read(FULL), _read(bare)
    assert [r.ids for r in without] == [r.ids for r in with_note]
    assert [r.origin.line for r in without] == [r.origin.line - 1 for r in with_note]


def test_undecodable_bytes_name_their_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"Publication ID,DOI,Title\npub.1,10.1/a,Fine\npub.2,10.1/b,Bad \xff byte\n")
    with pytest.raises(DataError, match="line 3") as error:
        _read(path)
    assert error.value.code == "FILE_ENCODING"


def test_a_reference_parsed_field_by_field():
    raw = ("[Irwin, Adriane N.; Rackham, Daniel]|[ur.0613340372.50; ]|Research in Social and Administrative "
           "Pharmacy|2017|13|2|389-393|10.1016/j.sapharm.2016.04.006|pub.1008893471|12")
    parsed = parse_dimensions_reference(raw, raw)
    assert (parsed.first_author, parsed.year, parsed.source, parsed.volume, parsed.page, parsed.doi) == \
        ("Irwin AN", 2017, "Research in Social and Administrative Pharmacy", "13", "389",
         "10.1016/j.sapharm.2016.04.006")
    anonymous = parse_reference("[]|[]|Nature|2016|535|7613|466-466|10.1038/535466a|pub.1009011827|23", "dimensions")
    assert (anonymous.first_author, anonymous.source, anonymous.page) == (None, "Nature", "466")
    book = parse_reference("[Kaplan, Robert B.]|[]|The Dominance of English|2001|||3-26|10.1515/x.3|pub.1|32",
                           "dimensions")
    assert (book.first_author, book.volume, book.page, book.doi) == ("Kaplan RB", None, "3", "10.1515/x.3")
    piped = parse_reference("[Li, Wei]|[]|A|B Journal|1999|4|1|7||pub.2|0", "dimensions")
    assert (piped.source, piped.year, piped.volume, piped.doi) == ("A|B Journal", 1999, "4", None)
    assert split_references("[A, B]|[]|X|2000|1|1|1||pub.1|0;[C, D; E, F]|[]|Y|2001|2|2|2||pub.2|0") == \
        ["[A, B]|[]|X|2000|1|1|1||pub.1|0", "[C, D; E, F]|[]|Y|2001|2|2|2||pub.2|0"]


def test_ingest_resolves_references_among_the_files_works():
    found = ingest([NETWORK, FULL], ["network.csv", "full.csv"])
    works = found.bundle.works
    header, rows = _plain(FULL)
    net_header, net_rows = _plain(NETWORK)
    pub_ids = set(_column(header, rows, "Publication ID"))
    assert set(works["work_id"]) == pub_ids                       # the mapping export's works are among them
    assert found.counts["files"] == [{"file": "network.csv", "records": 97, "duplicates": 0},
                                     {"file": "full.csv", "records": 327, "duplicates": 97}]
    by_doi = {d.lower(): p for d, p in zip(_column(header, rows, "DOI"), _column(header, rows, "Publication ID")) if d}
    i = net_header.index("Cited references")
    expected = set()
    for _, cells in net_rows:
        if re.fullmatch(r"pub\.\d+", cells[0]):
            for doi in re.findall(r"\|(10\.[^|]+)\|pub\.\d+\|\d*(?=;\[|$)", cells[i]):
                if doi.lower() in by_doi and by_doi[doi.lower()] != cells[0]:
                    expected.add((cells[0], by_doi[doi.lower()]))
    refs = found.bundle.references
    internal = refs[refs["referenced_id"].isin(pub_ids)]
    assert set(zip(internal["work_id"], internal["referenced_id"])) == expected
    assert len(expected) > 100
    authorships = found.bundle.authorships
    assert len(authorships) == sum(len([a for a in cell.split(";") if a.strip()])
                                   for cell in _column(header, rows, "Authors"))
    terms = found.bundle.terms
    assert set(terms.loc[terms["field"] == "mesh", "term_id"]) == \
        {m.strip().casefold() for c in _column(header, rows, "MeSH terms") for m in c.split(";") if m.strip()}
    assert (works.set_index("work_id").loc["pub.1128254697", "pmid"]) == "32503569"
