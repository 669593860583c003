"""Web of Science exports read into Records: counts, IDs and cited references as the files themselves
give them, the same works from plain text and both tab-delimited encodings, C1 author links, and
malformed input reported instead of crashing."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.exports.wos import read_wos, read_wos_tab

PLAIN = "wos/wos_plaintext.txt"
TABS = ("wos/wos_tab_delimited_win_utf8.txt", "wos/wos_tab_delimited_win_utf16.txt",
        "wos/scientopy-iot-gateway-wos.txt")
TAG = re.compile(r"^([A-Z][A-Z0-9])(?: |$)")


def _read(reader, path: Path, skips: Skips | None = None, **kwargs) -> list:
    skips = Skips() if skips is None else skips
    return list(reader(path, path.name, skips, **kwargs))


def _tab_table(path: Path) -> list[list[str]]:
    """Every row of a tab-delimited export that holds text, header first, read by the csv module alone."""
    encoding = "utf-16" if path.read_bytes()[:2] == b"\xff\xfe" else "utf-8-sig"
    with path.open(encoding=encoding, newline="") as stream:
        rows = csv.reader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [row for row in rows if any(cell.strip() for cell in row)]


def _tab_rows(path: Path) -> list[dict[str, str]]:
    """The data rows of a tab-delimited export by their header's names."""
    header, *rows = _tab_table(path)
    return [dict(zip(header, row)) for row in rows]


def _tagged_lines(path: Path) -> list[tuple[int, str | None, str]]:
    """(line number, tag the line belongs to, text) of every line of a plain-text export."""
    out, tag = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        match = TAG.match(line)
        if match:
            tag = match.group(1)
            out.append((number, tag, line[3:]))
        elif line.startswith("   "):
            out.append((number, tag, line[3:]))
    return out


def test_plain_text_gives_one_record_per_pt_er_block(shared_data):
    path = shared_data / PLAIN
    text = path.read_text(encoding="utf-8-sig")
    starts, ends = len(re.findall(r"^PT ", text, re.M)), len(re.findall(r"^ER\s*$", text, re.M))
    skips = Skips()
    records = _read(read_wos, path, skips)
    assert len(records) == starts == ends
    assert not skips.items
    assert [r.origin.line for r in records] == [n for n, line in enumerate(text.splitlines(), 1)
                                               if line.startswith("PT ")]
    assert [r.ids["wos"] for r in records] == re.findall(r"^UT (\S+)", text, re.M)


@pytest.mark.parametrize("name", TABS)
def test_tab_delimited_gives_one_record_per_row(shared_data, name):
    path = shared_data / name
    rows = _tab_rows(path)
    records = _read(read_wos_tab, path)
    assert len(records) == len(rows)
    assert [r.ids["wos"] for r in records] == [row["UT"].strip() for row in rows]
    assert [len(r.references) for r in records] == [len([c for c in row["CR"].split("; ") if c.strip()])
                                                    for row in rows]


def test_plain_and_both_tab_encodings_give_the_same_works(shared_data):
    plain = _read(read_wos, shared_data / PLAIN)
    tabs = [_read(read_wos_tab, shared_data / name) for name in TABS[:2]]

    def summary(records):
        return {r.ids["wos"]: (r.doi, r.title, r.year, r.type, r.venue, [(a.name, a.full_name) for a in r.authors],
                               len(r.references), [c.raw for c in r.references], r.author_keywords,
                               r.index_keywords, [(i.name, i.country) for i in r.institutions],
                               [a.affiliations for a in r.authors], r.cited_by_count)
                for r in records}

    assert len(summary(plain)) == 50
    assert summary(plain) == summary(tabs[0]) == summary(tabs[1])


def test_every_cr_line_of_the_plain_file_is_one_cited_reference(shared_data):
    path = shared_data / PLAIN
    cr_lines = {number: text.strip() for number, tag, text in _tagged_lines(path) if tag == "CR"}
    references = [ref for record in _read(read_wos, path) for ref in record.references]
    assert len(references) == len(cr_lines)
    assert {ref.line: ref.raw for ref in references} == cr_lines


@pytest.mark.parametrize("name, reader", [(PLAIN, read_wos), (TABS[2], read_wos_tab)])
def test_bracketed_c1_addresses_link_the_authors_they_name(shared_data, name, reader):
    """Each bracket's names (full names, as in AF) are linked to that address and to no other one; a
    record whose addresses have no brackets links every author to every address."""
    records = _read(reader, shared_data / name)
    items_of = _c1_items(shared_data / name, reader is read_wos_tab)
    checked = unbracketed = 0
    for record, raw in zip(records, items_of, strict=True):
        if not any(item.startswith("[") for item in raw):
            everywhere = tuple(range(len(record.institutions)))
            assert all(author.affiliations == everywhere for author in record.authors)
            unbracketed += bool(raw)
            continue
        named: dict[str, set[str]] = {}
        for item in raw:
            names, address = item[1:].split("]", 1)
            named.setdefault(address.strip().rstrip("."), set()).update(n.strip() for n in names.split(";"))
        for author in record.authors:
            linked = {record.institutions[i].address for i in author.affiliations}
            assert linked == {address for address, names in named.items() if author.full_name in names}
            checked += 1
    assert checked > 50 and (unbracketed > 5 or reader is read_wos_tab)


def _c1_items(path: Path, tab: bool) -> list[list[str]]:
    """The C1 items of every record straight from the file (plain: its lines; tab: the row's cell)."""
    if tab:
        return [[part.strip() for part in re.split(r";\s+(?=\[)", row["C1"]) if part.strip()]
                for row in _tab_rows(path)]
    records: list[list[str]] = []
    for _, tag, text in _tagged_lines(path):
        if tag == "PT":
            records.append([])
        elif tag == "C1":
            records[-1].append(text.strip())
    return records


@pytest.mark.parametrize("name", [TABS[2], TABS[0]])
def test_orcids_go_to_the_author_of_that_name(shared_data, name):
    rows, records = _tab_rows(shared_data / name), _read(read_wos_tab, shared_data / name)
    checked = 0
    for row, record in zip(rows, records, strict=True):
        full_names = [n.strip() for n in row["AF"].split(";")]
        for entry in filter(None, (e.strip() for e in row["OI"].split(";"))):
            person, orcid = entry.rsplit("/", 1)
            if full_names.count(person) == 1:
                author = record.authors[full_names.index(person)]
                assert ("orcid", orcid) in author.ids
                checked += 1
    assert checked >= 5


def test_document_types_take_openalex_names(shared_data):
    plain = [(r.type, dt) for r, dt in zip(_read(read_wos, shared_data / PLAIN),
                                          _plain_values(shared_data / PLAIN, "DT"))]
    tab = [(r.type, row["DT"]) for r, row in zip(_read(read_wos_tab, shared_data / TABS[2]),
                                                  _tab_rows(shared_data / TABS[2]))]
    rows = [(t, dt.split(";")[0].strip()) for t, dt in plain + tab]
    assert {t for t, _ in rows} <= {"article", "review", "editorial", "letter", "book", "book-chapter",
                                    "erratum", "retraction", "other"}
    assert all(t == "article" for t, dt in rows if dt in ("Article", "Proceedings Paper"))
    assert all(t == "review" for t, dt in rows if dt == "Review")
    assert all(t == "editorial" for t, dt in rows if dt == "Editorial Material")
    assert {dt for _, dt in rows} >= {"Article", "Review"}


def test_a_record_without_a_document_type_is_typed_by_its_publication_type(tmp_path):
    """Minimal exports (a .ciw of a few fields) give PT but no DT: a journal's item is an article."""
    path = tmp_path / "min.ciw"
    path.write_text("FN Clarivate Analytics Web of Science\nVR 1.0\n"
                    "PT J\nAU Smith, J\nTI A journal item\nPY 2020\nUT WOS:000000000000001\nER\n\n"
                    "PT B\nAU Roe, R\nTI A book\nPY 2019\nUT WOS:000000000000002\nER\n\n"
                    "PT S\nAU Doe, D\nTI In a series\nPY 2018\nUT WOS:000000000000003\nER\n\nEF\n", encoding="utf-8")
    assert [r.type for r in _read(read_wos, path)] == ["article", "book", None]


def test_a_tab_delimited_export_resaved_with_commas_reads_the_same(shared_data, tmp_path):
    """A spreadsheet's "Save as CSV" of savedrecs.txt: commas and CSV quoting instead of tabs."""
    source = shared_data / TABS[2]
    resaved = tmp_path / "savedrecs.csv"
    with resaved.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(_tab_table(source))
    native, comma = _read(read_wos_tab, source), _read(read_wos_tab, resaved)
    assert len(comma) == len(native) > 10
    assert [(r.ids, r.doi, r.title, r.year, [a.name for a in r.authors], len(r.references)) for r in comma] == \
        [(r.ids, r.doi, r.title, r.year, [a.name for a in r.authors], len(r.references)) for r in native]


def _plain_values(path: Path, wanted: str) -> list[str]:
    """The first line of field `wanted` in every record of a plain-text export, straight from the file."""
    values: list[str] = []
    for _, tag, text in _tagged_lines(path):
        if tag == "PT":
            values.append("")
        elif tag == wanted and not values[-1]:
            values[-1] = text.strip()
    return values


def test_c1_countries_follow_the_last_word_of_us_addresses(shared_data):
    institutions = [i for r in _read(read_wos, shared_data / PLAIN) for i in r.institutions]
    us = [i for i in institutions if i.address.split()[-1] == "USA"]
    assert us and all(i.country == "US" for i in us)
    assert all(i.name == i.address.split(",")[0] for i in institutions)


def _zoological_record_fields(path: Path) -> list[dict[str, list[str]]]:
    """AU and C1 of each record of a Zoological Record export, read independently: authors are AU's
    lines without their e-mail, an address starts at a C1 line "Author; " and runs to the next."""
    records, fields, tag = [], {}, None
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        match = TAG.match(line)
        if match:
            tag = match.group(1)
            if tag == "ER":
                records.append(fields)
                fields = {}
                continue
            fields.setdefault(tag, []).append(line[3:].strip())
        elif line.startswith("   ") and tag:
            fields[tag].append(line.strip())
    for found in records:
        found["AU"] = [re.sub(r"\s*\(\S+@\S+\)$", "", n) for n in found.get("AU", [])]
        addresses: list[str] = []
        for line in found.get("C1", []):
            if line.partition("; ")[0] in found["AU"]:
                addresses.append(line)
            else:
                addresses[-1] += " " + line
        found["C1"] = addresses
    return records


def test_zoological_record_addresses_wrap_and_name_their_author():
    """Zoological Record (a database of the Web of Science platform, synthesisr's zoorec.txt) writes
    "C1 Author; address" wrapped over lines and an e-mail after author names: one institution per
    address, linked to the author it names, and names without the e-mail (the fragments "USA", "Tremblay",
    "94956" were institutions)."""
    path = Path(__file__).parents[1] / "data" / "synthesisr" / "zoorec.txt"
    records = _read(read_wos, path)
    expected = _zoological_record_fields(path)
    assert len(records) == len(expected) == 134
    for record, fields in zip(records, expected, strict=True):
        assert [a.name for a in record.authors] == fields["AU"]
        addresses = [a.partition("; ")[2].rstrip(".") for a in fields["C1"]]
        assert [i.address for i in record.institutions] == list(dict.fromkeys(addresses))
        for address in fields["C1"]:
            person, _, place = address.rstrip(".").partition("; ")
            (author,) = [a for a in record.authors if a.name == person]
            assert place in [record.institutions[k].address for k in author.affiliations]
    assert not any("@" in a.name for r in records for a in r.authors)


def test_plain_text_without_header_bom_or_with_crlf_reads_the_same(shared_data, tmp_path):
    path = shared_data / PLAIN
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    lines = data[3:].split(b"\n")
    variants = {"no-bom.txt": data[3:], "crlf.txt": data.replace(b"\n", b"\r\n"),
                "no-header.txt": b"\n".join(line for line in lines if not line.startswith((b"FN ", b"VR ")))}
    expected = [(r.ids, r.title, r.authors, [c.raw for c in r.references]) for r in _read(read_wos, path)]
    for name, content in variants.items():
        (tmp_path / name).write_bytes(content)
        got = _read(read_wos, tmp_path / name)
        assert [(r.ids, r.title, r.authors, [c.raw for c in r.references]) for r in got] == expected, name


def test_on_record_counts_the_records_read(shared_data):
    seen: list[int] = []
    records = _read(read_wos_tab, shared_data / TABS[2], on_record=seen.append)
    assert seen == list(range(1, len(records) + 1))


def test_a_record_cut_off_before_er_is_reported_and_the_others_read(shared_data, tmp_path):
    text = (shared_data / PLAIN).read_text(encoding="utf-8-sig")
    cut = text[:text.index("\nER", text.index("\nER") + 1)]   # the second record loses its ER and all after
    path = tmp_path / "cut.txt"
    path.write_text(cut, encoding="utf-8")
    skips = Skips()
    records = _read(read_wos, path, skips)
    assert len(records) == 1
    assert len(skips.items) == 1 and "record 2" in skips.items[0].where and "ER" in skips.items[0].reason
    with pytest.raises(DataError):
        _read(read_wos, path, Skips(strict=True))


def _without(lines: list[str], tags: tuple[str, ...], record: int) -> list[str]:
    """The lines of a plain-text export with the `tags` lines (and their continuations) of one record
    (0-based) removed."""
    out, current, dropping = [], -1, False
    for line in lines:
        if line.startswith("PT "):
            current += 1
        if line[:2].strip() and line[2:3] == " ":
            dropping = current == record and line[:2] in tags
        elif not line.startswith("   "):
            dropping = False
        if not dropping:
            out.append(line)
    return out


def test_a_record_without_ut_is_keyed_by_its_doi(shared_data, tmp_path):
    from bib2graph.sources.exports.entries import native_id
    from bib2graph.ids import normalize_doi

    text = (shared_data / PLAIN).read_text(encoding="utf-8-sig")
    lines = text.split("\n")
    blocks = text.split("\nER")
    k = next(i for i, b in enumerate(blocks) if re.search(r"^DI ", b, re.M))   # a record with a DOI
    doi = normalize_doi(re.search(r"^DI (\S+)", blocks[k], re.M).group(1))
    path = tmp_path / "no-ut.txt"
    path.write_text("\n".join(_without(lines, ("UT",), k)), encoding="utf-8")
    skips = Skips()
    records = _read(read_wos, path, skips)
    assert len(records) == len(re.findall(r"^PT ", text, re.M)) and not skips.items   # none dropped
    kept = records[k]
    assert "wos" not in kept.ids and kept.doi == doi
    assert native_id(kept) == native_id(type(kept)(**{**kept.__dict__, "title": "another title"}))   # by its DOI


def test_a_record_without_ut_doi_or_pmid_is_reported_by_place(shared_data, tmp_path):
    lines = (shared_data / PLAIN).read_text(encoding="utf-8-sig").split("\n")
    path = tmp_path / "no-ut.txt"
    path.write_text("\n".join(_without(lines, ("UT", "DI", "PM"), 0)), encoding="utf-8")
    skips = Skips()
    records = _read(read_wos, path, skips)
    text = path.read_text(encoding="utf-8")
    assert len(records) == len(re.findall(r"^PT ", text, re.M)) - 1
    assert [s.where.split(",")[0] for s in skips.items] == ["record 1"]
    assert "UT" in skips.items[0].reason and "DOI" in skips.items[0].reason


@pytest.mark.parametrize("cut", ["in its first cells", "after its DI cell", "a tab inside its title"])
def test_a_tab_row_that_does_not_fit_its_header_is_reported(shared_data, tmp_path, cut):
    """The last row cut short (the file cut off: early, or after the DOI, where the row would still be a
    work by its DOI) or shifted by a tab in a cell: skipped and said, not read with its cells in the wrong
    columns. The other rows are every row the csv module finds."""
    path = shared_data / TABS[0]
    data = path.read_bytes()
    start = data.rstrip(b"\r\n").rfind(b"\n") + 1
    header = data[:data.index(b"\n")].decode("utf-8-sig").rstrip("\r").split("\t")
    last = data[start:].split(b"\t")
    if cut == "in its first cells":
        damaged = data[:start + 200]
    elif cut == "after its DI cell":
        damaged = data[:start] + b"\t".join(last[:header.index("DI") + 1])
    else:
        title = header.index("TI")
        damaged = data[:start] + b"\t".join(last[:title] + [last[title][:20] + b"\t" + last[title][20:]]
                                             + last[title + 1:])
    (tmp_path / "cut.txt").write_bytes(damaged)
    skips = Skips()
    records = _read(read_wos_tab, tmp_path / "cut.txt", skips)
    rows = _tab_rows(path)
    assert [r.ids["wos"] for r in records] == [row["UT"] for row in rows[:-1]]
    lines = data.count(b"\n", 0, start) + 1
    (skip,) = skips.items
    assert skip.where == f"record {len(rows)}, line {lines}" and skip.reason.endswith("; skipped")
    if cut == "a tab inside its title":
        assert skip.reason == f"text beyond the header's {len(header)} columns; skipped"
    else:
        assert f"cells where the header has {len(header)}" in skip.reason


@pytest.mark.parametrize("reader", [read_wos, read_wos_tab])
def test_binary_and_foreign_files_are_a_data_error(shared_data, tmp_path, reader):
    zipped = tmp_path / "works.txt"
    zipped.write_bytes((shared_data / "synergy" / "Sep_2021" / "works_1.zip").read_bytes())
    ris = shared_data / "ris" / "litstudy-ieee-example.ris"
    other_wos = shared_data / (TABS[0] if reader is read_wos else PLAIN)
    for path in (zipped, ris, other_wos, tmp_path / "missing.txt"):
        with pytest.raises(DataError) as info:
            _read(reader, path)
        assert info.value.code.startswith("FILE_")
