"""Export readers on real files: every record of the shared Scopus, RIS and BibTeX files is read, with
fields checked against the raw text; Lens and OpenAlex CSV on files built from real headers and real
records; malformed records are skipped with file and place, never crash.

Counts and expected values come from the files themselves (the csv module, regexes over the raw
text), never from the readers."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import zipfile
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.exports.bibtex import read_bibtex
from bib2graph.sources.exports.lens import read_lens_csv
from bib2graph.sources.exports.openalex_csv import read_openalex_csv
from bib2graph.sources.exports.ris import read_ris
from bib2graph.sources.exports.scopus import read_scopus_csv

from ..conftest import SHARED_DATA

SCOPUS = sorted((SHARED_DATA / "scopus").glob("*.csv"))
SYNTHESISR = Path(__file__).parents[1] / "data" / "synthesisr"
BIBTEX = sorted((SHARED_DATA / "bibtex").glob("*.bib")) + sorted(SYNTHESISR.glob("*.bib"))
RIS = sorted((SHARED_DATA / "ris").glob("*.ris")) + sorted(SYNTHESISR.glob("*.ris"))
BIBX = SHARED_DATA / "scopus" / "bibx-scopus.csv"
OLD_SCOPUS = SHARED_DATA / "scopus" / "scientopy-iot-gateway-scopus.csv"
LITSTUDY = SHARED_DATA / "scopus" / "litstudy-scopus.csv"


def read(reader, path: Path, skips: Skips | None = None):
    skips = Skips() if skips is None else skips
    return list(reader(path, path.name, skips)), skips


def csv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        rows = [r for r in csv.reader(f) if any(c.strip() for c in r)]
    return rows[0], rows[1:]


def physical_lines(path: Path) -> list[str]:
    return re.split(r"\r\n|\r|\n", path.read_text(encoding="utf-8-sig"))


# ---------------------------------------------------------------------------------------------------
# Scopus CSV


@pytest.mark.parametrize("path", SCOPUS, ids=lambda p: p.name)
def test_every_scopus_row_is_a_record_starting_on_its_line(path):
    header, rows = csv_rows(path)
    records, skips = read(read_scopus_csv, path)
    assert len(records) == len(rows) and not skips.items
    lines = physical_lines(path)
    for record, row in zip(records, rows):
        assert header[-1] == "EID" and record.ids["scopus"] == row[-1]     # the last column in every layout
        assert lines[record.origin.line - 1].lstrip('"').startswith(row[0].split("\n")[0][:20])
        assert record.origin.format == "scopus-csv"


def test_scopus_fields_match_the_raw_row():
    with BIBX.open(encoding="utf-8-sig", newline="") as f:
        raw = list(csv.DictReader(f))
    records, _ = read(read_scopus_csv, BIBX)
    for record, row in zip(records, raw):
        assert record.title == row["Title"].strip()
        assert record.year == int(row["Year"])
        assert record.doi == (row["DOI"].strip().lower() or None)
        assert record.venue == (row["Source title"].strip() or None)
        assert record.venue_abbrev == (row["Abbreviated Source Title"].strip() or None)
        assert record.first_page == (row["Page start"].strip() or row["Art. No."].strip() or None)
        ids = [i.strip() for i in row["Author(s) ID"].split(";") if i.strip()]
        assert [dict(a.ids).get("scopus") for a in record.authors] == ids
        assert [a.name for a in record.authors] == [a.strip() for a in row["Authors"].split(";") if a.strip()]
        keywords = [k.strip() for k in row["Author Keywords"].split(";") if k.strip()]
        assert record.author_keywords == keywords


def test_scopus_authors_are_linked_to_the_affiliations_the_row_lists():
    with BIBX.open(encoding="utf-8-sig", newline="") as f:
        raw = list(csv.DictReader(f))
    records, _ = read(read_scopus_csv, BIBX)
    linked = 0
    for record, row in zip(records, raw):
        for author in record.authors:
            for index in author.affiliations:
                institution = record.institutions[index]
                assert institution.address in row["Affiliations"]
                assert institution.name in institution.address
                assert f"{author.name}, " in row["Authors with affiliations"]
                linked += 1
    assert linked >= sum(len(r.authors) for r in records) * 0.95
    gong = next(r for r in records if r.authors and r.authors[0].name == "Gong B.")
    # "Gong B., Hubei Key Laboratory …, Wuhan Institute of Technology, Wuhan, 430205, China, Fujian …"
    places = [gong.institutions[i] for i in gong.authors[0].affiliations]
    assert len(places) >= 2 and places[0].name == "Wuhan Institute of Technology" and places[0].country == "CN"


def test_old_scopus_layout_splits_comma_separated_authors_and_links_them():
    records, _ = read(read_scopus_csv, OLD_SCOPUS)
    amah = next(r for r in records if r.authors and r.authors[0].name == "Amah T.E.")
    assert amah.authors[-1].name == "Oliveira A., Jr."        # "…, Moreira W., Oliveira A., Jr."
    assert len(amah.authors) == 8
    smart = next(r for r in records if r.doi == "10.1016/j.future.2017.04.031")
    first = smart.institutions[smart.authors[0].affiliations[0]]
    assert (first.name, first.country) == ("Florida International University", "US")
    assert smart.type == "article" and smart.language == "en" and (smart.first_page, smart.last_page) == ("547", "557")


def test_a_byline_of_surname_comma_initials_keeps_each_author_whole():
    """tethne's Scopus export of 2015 writes "Wang, B., Seiler, J.R., Mei, C.": one author per entry of
    "Authors with affiliations" (its names read independently: the entry's first two comma parts), each
    linked to the institution of its entry, none named by initials alone."""
    path = Path(__file__).parents[1] / "data" / "tethne" / "scopus.csv"
    records, skips = read(read_scopus_csv, path)
    with path.open(encoding="utf-8-sig", newline="") as f:
        entries = [row["Authors with affiliations"].split("; ") for row in csv.DictReader(f)]
    assert len(records) == len(entries) == 20 and not skips.items
    for record, listed in zip(records, entries, strict=True):
        assert [a.name for a in record.authors] == [", ".join(e.split(", ")[:2]) for e in listed]
        for author, entry in zip(record.authors, listed):
            address = entry.split(", ", 2)[2:]        # none where the export gives none
            assert bool(author.affiliations) == bool(address)
            assert all(record.institutions[k].address in address[0] for k in author.affiliations)
    assert sum(len(r.authors) for r in records) == 90
    assert not any(re.fullmatch(r"[^\W\d_.-]{1,2}\.", i.name) for r in records for i in r.institutions)


def test_a_scopus_pubmed_id_of_na_is_no_pmid(tmp_path):
    """bibliometrix's Scopus sample writes "NA" where a work has no PubMed ID."""
    path = tmp_path / "scopus.csv"
    path.write_text("Authors,Title,Year,DOI,PubMed ID,EID\n"
                    "Smith J.,A,2020,10.1/a,NA,2-s2.0-1\nJones K.,B,2021,10.1/b,0041494690,2-s2.0-2\n", encoding="utf-8")
    records, _ = read(read_scopus_csv, path)
    assert [r.ids for r in records] == [{"scopus": "2-s2.0-1"}, {"scopus": "2-s2.0-2", "pmid": "41494690"}]


def test_rows_with_more_funding_texts_than_the_header_keep_their_columns():
    header, rows = csv_rows(LITSTUDY)
    longer = [i for i, r in enumerate(rows) if len(r) > len(header)]
    assert longer, "litstudy-scopus.csv has rows with an extra funding-text cell"
    records, skips = read(read_scopus_csv, LITSTUDY)
    assert not skips.items
    for i in longer:
        # counted from the end: EID, Source, Open Access, Publication Stage, Document Type, Abbreviated Source Title
        assert records[i].venue_abbrev == (rows[i][-6].strip() or None)
        assert records[i].ids["scopus"] == rows[i][-1]


def test_scopus_references_are_split_losslessly():
    records, _ = read(read_scopus_csv, BIBX)
    with BIBX.open(encoding="utf-8-sig", newline="") as f:
        cells = [row["References"] for row in csv.DictReader(f)]
    assert sum(len(r.references) for r in records) > 10_000
    for record, cell in zip(records, cells):
        assert "; ".join(ref.raw for ref in record.references) == cell.strip()
        assert len(record.references) <= cell.count("; ") + 1 if cell.strip() else not record.references
        assert all(ref.line == record.origin.line for ref in record.references)
    edited = [ref.raw for r in read(read_scopus_csv, LITSTUDY)[0] for ref in r.references
              if ref.raw.endswith("Eds.; Springer-Verlag: Berlin")]
    assert edited and all("Deuflhard, P.; Hermans, J." in e or "(" in e for e in edited)


@pytest.mark.parametrize("tail", ["Springer-Verlag: Berlin", "Kluwer Academic: Norwell, MA, USA",
                                  "Addison-Wesley: Reading, MA, USA", "Wiley: Upper Saddle River, NJ"])
def test_a_publisher_and_its_place_end_the_reference_before(tail):
    """pybibx's and bibx's Scopus exports: "…, 1st ed.; Kluwer Academic: Norwell, MA, USA" is one book."""
    from bib2graph.sources.exports.scopus_refs import split_references

    book = "Wu, Z., (2000) Coding and Iterative Detection, pp. 11-12. , 1st ed."
    other = "Smith, J., (2001) A study of X, Y, 3, pp. 1-2"
    assert split_references(f"{book}; {tail}; {other}") == [f"{book}; {tail}", other]
    assert split_references(f"{other}; {book}") == [other, book]


def test_malformed_scopus_rows_are_skipped_with_their_place(tmp_path):
    header, rows = csv_rows(BIBX)
    path = tmp_path / "cut.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_ALL)
        writer.writerows([header, rows[0], rows[1][:10], rows[2]])
    starts, consumed = [], 0            # the line each CSV row (header first) starts on, by the csv module
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        for _ in reader:
            starts.append(consumed + 1)
            consumed = reader.line_num
    records, skips = read(read_scopus_csv, path)
    assert [r.ids["scopus"] for r in records] == [rows[0][-1], rows[2][-1]]
    assert [(s.file, s.where) for s in skips.items] == [("cut.csv", f"record 2, line {starts[2]}")]
    with pytest.raises(DataError) as err:
        list(read_scopus_csv(path, "cut.csv", Skips(strict=True)))
    assert err.value.code == "RECORD_INVALID"


def test_empty_header_only_and_foreign_csv_files(tmp_path):
    empty, only_header, other = tmp_path / "empty.csv", tmp_path / "header.csv", tmp_path / "other.csv"
    empty.write_bytes(b"")
    only_header.write_text(BIBX.read_text(encoding="utf-8-sig").splitlines()[0] + "\n", encoding="utf-8-sig")
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    for path in (empty, only_header):
        records, skips = read(read_scopus_csv, path)
        assert records == [] and [s.where for s in skips.items] == [""]
    with pytest.raises(DataError) as err:
        read(read_scopus_csv, other)
    assert err.value.code == "FILE_INVALID"
    with pytest.raises(DataError) as err:
        read(read_scopus_csv, tmp_path / "missing.csv")
    assert err.value.code == "FILE_MISSING"


# ---------------------------------------------------------------------------------------------------
# RIS


@pytest.mark.parametrize("path", RIS, ids=lambda p: p.name)
def test_every_ris_block_is_a_record(path):
    text = path.read_text(encoding="utf-8-sig")
    blocks = re.split(r"(?:^|[\r\n])(?=TY  - )", text)[1:]
    records, skips = read(read_ris, path)
    assert len(records) == len(blocks) and not skips.items
    for record, block in zip(records, blocks):
        tags = re.findall(r"(?m)^(AU|A1|TI|T1|DO|L3|PY|Y1)  - (.*?)\r?$", block)
        assert [a.name for a in record.authors] == [v for t, v in tags if t in ("AU", "A1")]
        assert record.title == next(v for t, v in tags if t in ("TI", "T1"))
        dois = [re.sub(r"^https?://(dx\.)?doi\.org/", "", v.lower())
                for t, v in tags if v and (t == "DO" or t == "L3" and re.match(r"10\.\d+/", v))]
        assert record.doi == (dois[0] if dois else None)      # EBSCOhost writes the DOI in L3
        assert record.year == int(next(v for t, v in tags if t in ("PY", "Y1"))[:4])
        assert record.origin.format == "ris"


# From coreofscience/python-bibx (MIT), tests/test_scopus_ris.py: a real Scopus RIS record, cut to three
# of its references.
SCOPUS_RIS = """TY  - JOUR
TI  - FORC signatures and switching-field distributions of dipolar coupled nanowire-based hysterons
T2  - Journal of Applied Physics
J2  - J Appl Phys
VL  - 128
IS  - 9
PY  - 2020
DO  - 10.1063/5.0020407
AU  - Pierrot, A.
AU  - Béron, F.
AU  - Blon, T.
N1  - Export Date: 15 October 2020
M3  - Article
DB  - Scopus
C7  - 093903
N1  - References: Mayergoyz, I.D., (1986) Phys. Rev. Lett., 56, p. 1518;
Preisach, F., (1935) Z. Phys., 94, p. 277;
Roberts, A.P., Heslop, D., Zhao, X., Pike, C.R., (2014) Rev. Geophys., 52, pp. 557-602. , https://doi.org/10.1002/2014RG000462;
UR  - https://www.scopus.com/inward/record.uri?eid=2-s2.0-85091557653&doi=10.1063%2f5.0020407&partnerID=40&md5=1471f5e876fae65e040690b345036add
ER  -
"""


def test_scopus_ris_references_keep_their_lines(tmp_path):
    path = tmp_path / "scopus.ris"
    path.write_text(SCOPUS_RIS.replace("M3  - Article", "M3  - Review"), encoding="utf-8")
    (record,), skips = read(read_ris, path)
    assert record.type == "review"          # from M3: Scopus's TY is JOUR for every journal item
    lines = SCOPUS_RIS.splitlines()
    refs = [(n, line) for n, line in enumerate(lines, 1) if line.rstrip().endswith(";")]
    assert [(r.line, r.raw) for r in record.references] == [
        (n, line.removeprefix("N1  - References: ").rstrip(";")) for n, line in refs]
    assert record.origin.format == "scopus-ris" and record.ids == {"scopus": "2-s2.0-85091557653"}
    assert (record.venue, record.venue_abbrev, record.first_page) == ("Journal of Applied Physics", "J Appl Phys",
                                                                      "093903")
    assert not skips.items and record.cited_by_count is None
    path.write_text(SCOPUS_RIS.replace("N1  - Export Date", "N1  - Cited By :12\nN1  - Export Date"), encoding="utf-8")
    assert read(read_ris, path)[0][0].cited_by_count == 12      # revtools' Scopus RIS writes the count so


def test_malformed_ris_blocks_are_skipped_and_own_ids_read(tmp_path):
    path = tmp_path / "mixed.ris"
    path.write_text("TY  - JOUR\nTI  - Unfinished\n"            # no ER: skipped
                    "TY  - JOUR\nID  - W2741809807\nTI  - Kept\nPY  - 2017\nSP  - 12-34\nER  - \n"
                    "stray words\n", encoding="utf-8")
    records, skips = read(read_ris, path)
    assert [(r.title, r.ids, r.first_page, r.last_page) for r in records] == [
        ("Kept", {"ris": "W2741809807", "openalex": "W2741809807"}, "12", "34")]
    assert [s.where for s in skips.items] == ["line 1", "line 9"]
    (tmp_path / "no.ris").write_text("just text\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        read(read_ris, tmp_path / "no.ris")
    assert err.value.code == "FILE_INVALID"
    (tmp_path / "empty.ris").write_bytes(b"")
    assert read(read_ris, tmp_path / "empty.ris")[0] == []


# ---------------------------------------------------------------------------------------------------
# BibTeX

_ENTRY = re.compile(r"(?mi)^[ \t]*@(?!comment\b|string\b|preamble\b)[a-z]+[ \t]*[{(]")


@pytest.mark.parametrize("path", BIBTEX, ids=lambda p: p.name)
def test_every_bibtex_entry_is_a_record(path):
    text = path.read_text(encoding="utf-8-sig")
    records, skips = read(read_bibtex, path)
    assert len(records) == len(_ENTRY.findall(text)) and not skips.items
    lines = text.splitlines()
    assert all(_ENTRY.match(lines[r.origin.line - 1]) for r in records)
    dois = [re.sub(r"^https?://(dx\.)?doi\.org/", "", m.strip().lower())
            for m in re.findall(r"(?mi)^\s*doi\s*=\s*\{+([^{}]+)\}", text)]
    assert sorted(r.doi for r in records if r.doi) == sorted(dois)


def test_bibtex_fields_are_decoded_and_mapped():
    records, _ = read(read_bibtex, BIBTEX[0])
    first = records[0]        # @InBook{Abdelghani2016, … Author = {… and S{\`e}des, Florence}, Pages = {430--441}
    assert [a.name for a in first.authors][-1] == "Sèdes, Florence" and len(first.authors) == 4
    assert (first.first_page, first.last_page, first.type) == ("430", "441", "book-chapter")
    wos = next(r for r in records if r.ids.get("wos") == "WOS:000304905300012")   # Unique-id = {{ISI:…}}
    assert wos.year == 2012
    scopus = next(r for r in records if r.doi == "10.1109/isda.2015.7489212")
    assert scopus.ids["scopus"] == "2-s2.0-84978427902" and scopus.language == "en"
    assert "Smart Buildings" in scopus.author_keywords and "Smart grid" in scopus.index_keywords
    assert [i.country for i in scopus.institutions] == ["TN", "FR", "FR", "TN"]


def test_wos_bibtex_cited_references_keep_their_lines(tmp_path):
    wos = (SHARED_DATA / "wos" / "wos_plaintext.txt").read_text(encoding="utf-8-sig").split("\nER\n")[0]
    cited = re.search(r"\nCR (.*?)\n(?=[A-Z][A-Z0-9] )", wos, re.S).group(1).split("\n")
    refs = [c.strip() for c in cited]
    text = ("@article{ WOS:000220015600001,\nAuthor = {Owen-Smith, J and Powell, WW},\n"
            "Title = {{Knowledge networks as channels and conduits}},\nYear = {{2004}},\n"
            "Cited-References = {" + "\n   ".join(refs) + "},\nUnique-ID = {{WOS:000220015600001}},\n}\n"
            "@article{dup,\ntitle={a}}\n@article{dup,\ntitle={b}}\n")
    path = tmp_path / "wos.bib"
    path.write_text(text, encoding="utf-8")
    records, skips = read(read_bibtex, path)
    record = records[0]
    assert record.ids["wos"] == "WOS:000220015600001" and len(refs) > 10
    lines = text.splitlines()
    assert [r.raw for r in record.references] == refs
    assert all(lines[r.line - 1].strip().removeprefix("Cited-References = {").removesuffix("},") == r.raw
               for r in record.references)
    assert [r.title for r in records[1:]] == ["a", "b"] and not skips.items   # a key is no identity


def test_an_escaped_brace_a_line_break_split_is_read_whole(tmp_path):
    """Web of Science wraps its BibTeX lines at a width, once between the backslash and the brace of "\\}"
    (a formula in an abstract, seen in a real export): the entry is read whole, the next entry keeps its line,
    and an escaped backslash at a line's end ("\\\\", a LaTeX line break) is left as it is."""
    text = ("@article{ WOS:1,\nTitle = {A},\nAbstract = {VO2max\\$\\{\\dot\\{V\\}\\}\\_\\{\\{\\{O\\}\\\n"
            "   }\\}\\$, for 30 min},\nYear = {2024},\n}\n\n"
            "@article{ WOS:2,\nTitle = {B \\\\\n   {C}},\nYear = {2024},\n}\n")
    path = tmp_path / "wos.bib"
    path.write_text(text, encoding="utf-8")
    records, skips = read(read_bibtex, path)
    assert not skips.items and [r.title[:1] for r in records] == ["A", "B"]
    assert records[0].abstract.endswith(", for 30 min") and records[1].origin.line == 8


def test_entries_bibtexparser_sets_aside_are_read_as_bibtex_reads_them(tmp_path):
    """Scopus writes distinct works under one key (first author and year) and one `funding_details` per
    funder: every entry is a record, in file order, and a repeated field is read at its first value, as
    BibTeX reads it. Seeds from the same file are every entry too."""
    from bib2graph.sources.files import read_seed_entries

    real = BIBTEX[-1].read_text(encoding="utf-8")           # the synthesisr Scopus export
    first = real[real.index("@ARTICLE{Li2020"):real.index("@ARTICLE{Cao2020")]
    twin = (first.replace("10.1080/20964129.2020.1722034", "10.9999/another.work")
            .replace("title={", "title={Another work},\ntitle={", 1))
    path = tmp_path / "scopus.bib"
    path.write_text(real + "\n" + twin, encoding="utf-8")
    records, skips = read(read_bibtex, path)
    assert [r.doi for r in records] == ["10.1080/20964129.2020.1722034", "10.1080/20964129.2020.1749010",
                                        "10.1007/s11220-019-0265-8", "10.9999/another.work"]
    assert records[-1].title == "Another work" and records[0].title != "Another work"
    twin_line = real.count("\n") + 2
    assert records[-1].origin.line == twin_line and records[-1].origin.record == 4
    # funding_details repeated (the real first entry) is by design; a title repeated differently is said
    assert [(s.where, s.reason) for s in skips.items] == [
        (f"line {twin_line}", "BibTeX field(s) title repeated with different values; the first of each read")]
    seeds = read_seed_entries(path, "scopus.bib", Skips())
    assert [e.doi for e in seeds] == [r.doi for r in records]
    with pytest.raises(DataError, match=f"line {twin_line}"):
        read(read_bibtex, path, Skips(strict=True))


def test_entries_set_aside_are_parsed_as_the_entries_accepted(tmp_path):
    """An entry bibtexparser sets aside (a repeated field, a repeated key) gives the record it gives once
    accepted: its authors split, braces gone, `@string` macros resolved (pybibx's Scopus export: 36 of 263
    entries had read as one author "A and B and C")."""
    real = BIBTEX[-1].read_text(encoding="utf-8")           # the synthesisr Scopus export
    first = real[real.index("@ARTICLE{Li2020"):real.index("@ARTICLE{Cao2020")]
    repeat = first.index("funding_details=", first.index("funding_details=") + 1)
    accepted = first[:repeat] + first[first.index("\n", repeat) + 1:]     # the second funding_details gone
    macros = ('@string{jr = "Journal of {T}ests"}\n@article{k, author = {Smith, J. and {Research and Development}},'
              ' journal = jr, title = {{One}}}\n')
    twice = macros + '@article{k, author = "Brown, L. and Jones, K.", journal = jr, title = "Two"}\n'
    (tmp_path / "set-aside.bib").write_text(first + twice, encoding="utf-8")
    (tmp_path / "accepted.bib").write_text(accepted + twice.replace("{k,", "{k2,", 1).replace("{k,", "{k3,", 1),
                                           encoding="utf-8")
    aside, _ = read(read_bibtex, tmp_path / "set-aside.bib")
    kept, _ = read(read_bibtex, tmp_path / "accepted.bib")

    def fields(r):      # all but where it was: the accepted file is a line shorter
        found = dataclasses.asdict(r)
        del found["origin"]
        found["references"] = [c.raw for c in r.references]
        return found

    assert [fields(r) for r in aside] == [fields(r) for r in kept]
    assert len(aside[0].authors) == first[first.index("author={"):].split("},")[0].count(" and ") + 1
    assert [[a.name for a in r.authors] for r in aside[1:]] == [["Smith, J.", "Research and Development"],
                                                                ["Brown, L.", "Jones, K."]]
    assert [(r.venue, r.title) for r in aside[1:]] == [("Journal of Tests", "One"), ("Journal of Tests", "Two")]


def test_bibtex_openalex_field_and_empty_file(tmp_path):
    path = tmp_path / "own.bib"
    path.write_text("@article{W2741809807,\n  title = {The state of OA},\n  openalex = {W2741809807},\n}\n",
                    encoding="utf-8")
    (record,), _ = read(read_bibtex, path)
    assert record.ids == {"openalex": "W2741809807"}
    (tmp_path / "empty.bib").write_bytes(b"")
    records, skips = read(read_bibtex, tmp_path / "empty.bib")
    assert records == [] and [s.where for s in skips.items] == [""]


# ---------------------------------------------------------------------------------------------------
# Lens.org CSV: the header of a real Lens scholarly export (massimoaria/bibliometrix,
# tests/testthat/fixtures/lens_sample.csv), with two of its real records (abstracts and fields of
# study shortened).

LENS_HEADER = ('"Lens ID","Title","Date Published","Publication Year","Publication Type","Source Title","ISSNs",'
               '"Publisher","Source Country","Author/s","Abstract","Volume","Issue Number","Start Page","End Page",'
               '"Fields of Study","Keywords","MeSH Terms","Chemicals","Funding","Source URLs","External URL","PMID",'
               '"DOI","Microsoft Academic ID","PMCID","Citing Patents Count","References","Citing Works Count",'
               '"Is Open Access","Open Access License","Open Access Colour"')
LENS_ROWS = [
    '"000-367-630-842-001","Gaming for Healthcare: A Bibliometric Analysis in Business and Management",'
    '"2020-11-24",2020,"journal article","International Business Research","19139012; 19139004",'
    '"Canadian Center of Science and Education","","Filomena Izzo; Ida Camminatiello",'
    '"The purpose of this paper is to scrutinize and classify the literature.\n\nAn objective bibliometric '
    'analysis is conducted.","13","12","27","","Business; Health care; Game theory",'
    '"bibliometric analysis; gaming; game; healthcare","","","",'
    '"https://www.ccsenet.org/journal/index.php/ibr/article/download/0/0/44234/46595",'
    '"http://dx.doi.org/10.5539/ibr.v13n12p27",NA,"10.5539/ibr.v13n12p27","3108542076","",0,'
    '"004-819-527-814-707; 009-384-769-337-781; 012-303-879-017-245; 083-311-225-108-952; 095-718-491-314-556; '
    '117-031-178-616-22X; 126-594-535-567-290; 130-461-946-890-928; 140-679-184-307-082; 157-066-085-410-303",'
    '6,"true","cc-by","gold"',
    '"000-689-131-611-462","Thermal Comfort Applied in Hospital Environments: A Literature Review","2020-10-10",'
    '2020,"journal article","Applied Sciences","20763417","MDPI AG","",'
    '"Pedro Filipe da Conceição Pereira; Xavier Evandro Eduardo; Antonio Augusto de Paula",'
    '"The predicted mean vote (PMV) is the most widely used model.","10","20","7030","7030",'
    '"Thermal comfort; Psychology","thermal comfort; thermal conditions","","","","","",NA,'
    '"10.3390/app10207030","","",0,"",12,"true","cc-by","gold"',
]


def test_lens_csv_records(tmp_path):
    path = tmp_path / "lens.csv"
    path.write_text("\n".join([LENS_HEADER, *LENS_ROWS, '""' + LENS_ROWS[0][len('"000-367-630-842-001"'):]]) + "\n",
                    encoding="utf-8-sig")
    records, skips = read(read_lens_csv, path)
    gaming, thermal = records
    assert gaming.ids == {"lens": "000-367-630-842-001", "mag": "3108542076"}
    assert (gaming.doi, gaming.year, gaming.publication_date, gaming.type) == (
        "10.5539/ibr.v13n12p27", 2020, "2020-11-24", "article")
    assert [a.name for a in gaming.authors] == ["Filomena Izzo", "Ida Camminatiello"]
    assert [r.raw for r in gaming.references][:2] == ["004-819-527-814-707", "009-384-769-337-781"]
    assert len(gaming.references) == LENS_ROWS[0].count("; ", LENS_ROWS[0].index('"004-819')) + 1
    assert gaming.cited_by_count == 6 and gaming.author_keywords[0] == "bibliometric analysis"
    assert thermal.origin.line == 5            # the first record's abstract spans lines 2-4
    assert (thermal.first_page, thermal.last_page, thermal.references) == ("7030", "7030", [])
    assert [(s.where, s.reason) for s in skips.items] == [("record 3, line 6", "a row without a Lens ID; skipped")]


# ---------------------------------------------------------------------------------------------------
# OpenAlex CSV: the header of a real OpenAlex web export (massimoaria/bibliometrix,
# tests/testthat/fixtures/openalex_sample.csv), with two of its real records.

OPENALEX_HEADER = ('"id","abstract","authorships.author.display_name","authorships.author.id",'
                   '"authorships.author.orcid","authorships.countries","authorships.institutions.display_name",'
                   '"authorships.institutions.id","authorships.is_corresponding","best_oa_location.license",'
                   '"citation_normalized_percentile.value","cited_by_count","corresponding_institution_ids",'
                   '"display_name","doi","funders.display_name","fwci","ids.pmid","is_retracted","language",'
                   '"open_access.is_oa","open_access.oa_status","primary_location.source.display_name",'
                   '"primary_location.source.id","primary_location.source.issn_l","primary_location.source.type",'
                   '"primary_topic.display_name","publication_date","publication_year","type"')
OPENALEX_ROWS = [
    '"https://openalex.org/W2755950973","","Massimo Aria|Corrado Cuccurullo",'
    '"https://openalex.org/A5069892096|https://openalex.org/A5049136342",'
    '"https://orcid.org/0000-0002-8517-9411|https://orcid.org/0000-0002-7401-8575","IT|IT",'
    '"University of Naples Federico II|University of Campania ""Luigi Vanvitelli""",'
    '"https://openalex.org/I71267560|https://openalex.org/I197809005","True|False","",0.99961755,13235,'
    '"https://openalex.org/I71267560","bibliometrix : An R-tool for comprehensive science mapping analysis",'
    '"https://doi.org/10.1016/j.joi.2017.08.007","",116.9374,"","False","en","False","closed",'
    '"Journal of Informetrics","https://openalex.org/S205292342","1751-1577","journal","Data Analysis with R",'
    '"2017-09-12",2017,"article"',
    '"https://openalex.org/W3158457682","","Deepa Guleria|Gurvinder Kaur",'
    '"https://openalex.org/A5064659290|https://openalex.org/A5100634800",'
    '"https://orcid.org/0000-0003-4273-8428|https://orcid.org/0000-0002-6352-793X","IN|IN",'
    '"Government Medical College|Thapar Institute of Engineering & Technology|Government Medical College|'
    'Thapar Institute of Engineering & Technology",'
    '"https://openalex.org/I101786783|https://openalex.org/I162030827|https://openalex.org/I101786783|'
    'https://openalex.org/I162030827","True|False","",0.99952878,270,'
    '"https://openalex.org/I101786783|https://openalex.org/I162030827",'
    '"Bibliometric analysis of ecopreneurship using VOSviewer and RStudio Bibliometrix, 1989–2019",'
    '"https://doi.org/10.1108/lht-09-2020-0218","",52.2757,"","False","en","False","closed","Library Hi Tech",'
    '"https://openalex.org/S143568823","0737-8831","journal","Entrepreneurship Studies and Influences",'
    '"2021-04-28",2021,"article"',
]


def test_openalex_csv_records(tmp_path):
    path = tmp_path / "openalex.csv"
    path.write_text("\n".join([OPENALEX_HEADER, *OPENALEX_ROWS]) + "\n", encoding="utf-8")
    (aria, guleria), skips = read(read_openalex_csv, path)
    assert not skips.items
    assert (aria.ids, aria.doi, aria.year, aria.cited_by_count, aria.venue, aria.language) == (
        {"openalex": "W2755950973"}, "10.1016/j.joi.2017.08.007", 2017, 13235, "Journal of Informetrics", "en")
    assert aria.authors[0].ids == (("openalex", "A5069892096"), ("orcid", "0000-0002-8517-9411"))
    assert [(aria.institutions[a.affiliations[0]].name, aria.institutions[a.affiliations[0]].country)
            for a in aria.authors] == [("University of Naples Federico II", "IT"),
                                       ('University of Campania "Luigi Vanvitelli"', "IT")]
    # four institution values for two authors: which belongs to whom is unknown, so none is linked
    assert [i.name for i in guleria.institutions] == ["Government Medical College",
                                                      "Thapar Institute of Engineering & Technology"]
    assert all(a.affiliations == () for a in guleria.authors)


def test_openalex_csv_referenced_works_round_trip_real_works(tmp_path):
    """Rows written from real OpenAlex Work objects (SYNERGY) give back their IDs and cited works."""
    with zipfile.ZipFile(SHARED_DATA / "synergy" / "Sep_2021" / "works_1.zip") as archive:
        member = sorted(n for n in archive.namelist() if n.endswith(".json"))[0]
        works = json.loads(archive.read(member))[:5]
    path = tmp_path / "works.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "display_name", "publication_year", "doi", "authorships.author.display_name",
                         "referenced_works"])
        for w in works:
            writer.writerow([w["id"], w["display_name"], w["publication_year"], w["doi"] or "",
                             "|".join(a["author"]["display_name"] for a in w["authorships"]),
                             "|".join(w["referenced_works"])])
    records, _ = read(read_openalex_csv, path)
    assert [r.ids["openalex"] for r in records] == [w["id"].rsplit("/", 1)[1] for w in works]
    assert [[c.raw for c in r.references] for r in records] == [
        [x.rsplit("/", 1)[1] for x in w["referenced_works"]] for w in works]
    assert [len(r.authors) for r in records] == [len(w["authorships"]) for w in works]


def test_scopus_bibtex_references_split_as_the_csv_cell(tmp_path):
    """A Scopus BibTeX `references` field holds the same "; "-joined list as the CSV cell."""
    csv_record = next(r for r in read(read_scopus_csv, BIBX)[0] if len(r.references) > 20)
    cell = "; ".join(ref.raw for ref in csv_record.references)
    path = tmp_path / "scopus.bib"
    path.write_text("@ARTICLE{x,\nauthor={Yao, Y.},\ntitle={A title},\nyear={2024},\n"
                    "references={" + cell.replace("&", "\\&").replace("%", "\\%") + "},\nsource={Scopus}\n}\n",
                    encoding="utf-8")
    (record,), _ = read(read_bibtex, path)
    assert len(record.references) == len(csv_record.references)
    assert {ref.line for ref in record.references} == {5}


def test_undecodable_bytes_name_their_line_and_utf16_is_read(tmp_path):
    bad_ris = tmp_path / "bad.ris"
    bad_ris.write_bytes(b"TY  - JOUR\nTI  - ok\nER  - \nTY  - JOUR\nTI  - bad \xff byte\nER  - \n")
    header = BIBX.read_bytes().split(b"\n", 1)[0]
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_bytes(header + b"\n" + b'"a","b"\n' + b'"bad \xff"\n')
    for reader, path, line in ((read_ris, bad_ris, 5), (read_scopus_csv, bad_csv, 3)):
        with pytest.raises(DataError) as err:
            read(reader, path)
        assert (err.value.code, err.value.details["line"]) == ("FILE_ENCODING", line)
    utf16 = tmp_path / "utf16.ris"
    utf16.write_bytes(SCOPUS_RIS.encode("utf-16"))          # with its BOM
    (record,), _ = read(read_ris, utf16)
    assert record.title.startswith("FORC signatures") and len(record.references) == 3


def test_scopus_export_without_eid_column_takes_it_from_the_link(tmp_path):
    header, rows = csv_rows(OLD_SCOPUS)
    eid = header.index("EID")
    path = tmp_path / "no-eid.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([r[:eid] + r[eid + 1:] for r in [header, *rows[:20]]])
    records, _ = read(read_scopus_csv, path)
    assert [r.ids["scopus"] for r in records] == [r[eid] for r in rows[:20]]


def test_wos_bibtex_affiliations_link_the_authors_they_name():
    records, _ = read(read_bibtex, BIBTEX[0])
    # Affiliation = {{Yu, R (Reprint Author), Guangdong Univ Technol, …, Peoples R China. Yu, Rong; Xia,
    # Wenlong, Guangdong Univ Technol, …. Zhang, Yan, Univ Oslo, N-0316 Oslo, Norway. …. Yang, Kun, Univ
    # Essex, Sch Comp Sci \& Elect Engn, Colchester CO4 3SQ, Essex, England.}}
    yu = next(r for r in records if r.authors and r.authors[0].name == "Yu, Rong")
    places = {a.name: [(yu.institutions[i].name, yu.institutions[i].country) for i in a.affiliations]
              for a in yu.authors}
    assert places["Xia, Wenlong"] == [("Guangdong Univ Technol", "CN")]
    assert places["Zhang, Yan"] == [("Univ Oslo", "NO")]
    assert places["Yang, Kun"] == [("Univ Essex", "GB")]
    jara = next(r for r in records if r.ids.get("wos") == "WOS:000288757900012")
    assert [[jara.institutions[i].name for i in a.affiliations] for a in jara.authors] == [["Univ Murcia"]] * 3


@pytest.mark.parametrize("reader, path", [(read_scopus_csv, LITSTUDY), (read_ris, RIS[0]), (read_bibtex, BIBTEX[0])],
                         ids=["scopus", "ris", "bibtex"])
def test_files_cut_anywhere_are_skipped_or_refused_never_crash(tmp_path, reader, path):
    data = path.read_bytes()[:60_000]
    for cut in (7, 1_001, 17_777, 33_333, 59_999):
        part = tmp_path / f"cut{path.suffix}"
        part.write_bytes(data[:cut])
        try:
            records, skips = read(reader, part)
        except DataError as exc:
            assert exc.code in ("FILE_INVALID", "FILE_ENCODING")
            continue
        assert all(r.origin.line >= 1 for r in records) and (records or skips.items)


@pytest.mark.parametrize("reader, header, rows", [(read_lens_csv, LENS_HEADER, LENS_ROWS),
                                                  (read_openalex_csv, OPENALEX_HEADER, OPENALEX_ROWS)],
                         ids=["lens", "openalex-csv"])
def test_a_row_cut_short_is_skipped_with_its_line(tmp_path, reader, header, rows):
    """A file cut off inside its last row still parses as CSV, with fewer cells than the header (any of
    them may be a cell of another column): the row is skipped and said with its line, not read."""
    cells = next(csv.reader([rows[1]]))
    kept = cells[:len(cells) // 3]
    path = tmp_path / "cut.csv"
    path.write_text("\n".join([header, rows[0], ",".join(f'"{c}"' for c in kept)]) + "\n", encoding="utf-8")
    records, skips = read(reader, path)
    assert len(records) == 1 and records[0].origin.line == 2
    header_cells = len(next(csv.reader([header])))
    line = 3 + rows[0].count("\n")
    assert [(s.where, s.reason) for s in skips.items] == [
        (f"record 2, line {line}", f"{len(kept)} cells where the header has {header_cells}; skipped")]
    with pytest.raises(DataError, match=f"line {line}"):
        read(reader, path, Skips(strict=True))


def test_a_doi_in_l3_seeds_as_it_imports(tmp_path):
    """EBSCOhost writes the DOI in `L3`: a seed file gives the same DOIs the import reads (an `L3` that
    is no DOI, as the RIS specification's "related records", is none)."""
    from bib2graph.sources.files import read_seed_entries

    other = tmp_path / "related.ris"
    other.write_text("TY  - JOUR\nTI  - A title\nL3  - http://example.org/related/12\nER  - \n", encoding="utf-8")
    assert read(read_ris, other)[0][0].doi is None and read_seed_entries(other)[0].doi is None
    path = SYNTHESISR / "ASP_ris_example.ris"
    records, _ = read(read_ris, path)
    seeds = read_seed_entries(path, path.name, Skips(strict=True))
    assert [e.doi for e in seeds] == [r.doi for r in records] == [
        "10.1016/j.agee.2016.06.041", None, None, "10.11975/j.issn.1002-6819.2016.21.005"]


def test_lens_references_link_the_works_of_the_files(tmp_path):
    """A Lens reference is the cited work's Lens ID: one naming a record of the files links to that work,
    the others are cited works of their own (not unparsed text)."""
    from bib2graph.sources.ingest import ingest

    header = next(csv.reader([LENS_HEADER]))
    rows = [next(csv.reader([r])) for r in LENS_ROWS]
    citing = rows[1][:]
    citing[header.index("References")] = rows[0][header.index("Lens ID")]
    path = tmp_path / "lens.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows([header, rows[0], citing])
    found = ingest([path], ["lens.csv"])
    works = found.bundle.works.set_index("doi")["work_id"]
    refs = found.bundle.references
    cited_by_thermal = refs[refs.work_id == works["10.3390/app10207030"]]["referenced_id"].tolist()
    assert cited_by_thermal == [works["10.5539/ibr.v13n12p27"]]
    gaming = refs[refs.work_id == works["10.5539/ibr.v13n12p27"]]
    assert len(gaming) == LENS_ROWS[0].count("; ", LENS_ROWS[0].index('"004-819')) + 1
    assert found.counts["references"]["unparsed"] == 0


def test_a_seed_entry_naming_no_work_is_unresolved_not_fatal(tmp_path):
    """`openalex = {see notes}` in a BibTeX seed file, or an author's ID in an OpenAlex JSON one, went to
    OpenAlex as a work ID: the whole seed phase stopped (OPENALEX_BAD_ID) naming neither file nor entry.
    Such an entry has no work ID; its DOI or title may still name the work, else it is listed unresolved."""
    from bib2graph.sources.files import read_seed_entries

    bib = tmp_path / "s.bib"
    bib.write_text("@article{good, title={A}, openalex={https://openalex.org/w12}}\n"
                   "@article{bad, title={B}, openalex={see notes}, doi={10.1/b}}\n"
                   "@article{author, title={C}, openalex={A5}}\n", encoding="utf-8")
    assert [(e.key, e.work_id, e.doi) for e in read_seed_entries(bib, "s.bib", Skips())] == [
        ("good", "W12", None), ("bad", None, "10.1/b"), ("author", None, None)]
    objects = tmp_path / "s.json"
    objects.write_text('[{"id": "https://openalex.org/W7", "title": "x"}, {"id": "https://openalex.org/A9"}]',
                       encoding="utf-8")
    skips = Skips()
    assert [e.work_id for e in read_seed_entries(objects, "s.json", skips)] == ["W7"]
    assert [(s.where, s.reason) for s in skips.items] == [   # no work: reported with its place, not read
        ("record 2", "a work without a usable `id` (an OpenAlex work ID, W…), not 'https://openalex.org/A9'; "
                     "skipped (a file of other records: declare its format in source.formats)")]


def test_lens_null_given_names_are_left_out(tmp_path):
    """Lens writes "null" for a missing given (or family) name: it is no name and no initial N."""
    path = tmp_path / "lens.csv"
    path.write_text('"Lens ID","Title","Author/s","Publication Year"\n'
                    '"000-000-000-000-001","Maps","null Tobler; Waldo R. Tobler; null null",1970\n', encoding="utf-8")
    (record,), _ = read(read_lens_csv, path)
    assert [a.name for a in record.authors] == ["Tobler", "Waldo R. Tobler"]


OVID = """1. 
TY  - JOUR
ID  - CN-00000001
A1  - Novak M, Kovar K-A, van der Berg JA
A1  - Smith, John
T1  - A trial
T2  - Eine Studie
JA  - Psychopharmacology
KW  - *Psilocybin/pd [Pharmacology]
KW  - Humans
KW  - Pupil/de [Drug Effects]
KW  - *Psilocybin/tu [Therapeutic Use]
L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=cctr&NEWS=N&AN=CN-00000001
ER  - 

2. 
TY  - JOUR
ID  - 12345678
A1  - Doe, Jane
T1  - A MEDLINE record
KW  - *Depression/dt [Drug Therapy]
L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=med4&NEWS=N&AN=12345678
ER  - 

TY  - JOUR
AU  - Roe, R
T1  - A Dimensions record
KW  - depression/therapy
U1  - 35957633 [PMID]
U2  - PMC9361011 [PMCID]
ER  - 

TY  - JOUR
AU  - Lee, K
T1  - A Lens record
L2  - https://pubmed.ncbi.nlm.nih.gov/32789069/
L2  - https://www.ncbi.nlm.nih.gov/pubmed/32789069
ER  - 
"""


def test_ovid_author_lines_keywords_and_noted_pubmed_ids(tmp_path):
    path = tmp_path / "ovid.ris"
    path.write_text(OVID, encoding="utf-8")
    (central, medline, dimensions, lens), _ = read(read_ris, path)
    # a Vancouver-style line is one author each; "Surname, Given" stays one
    assert len(central.authors) == 4 and central.authors[1].name.replace(",", "").split() == ["Kovar", "K-A"]
    assert [a.name.replace(",", "").split()[0] for a in central.authors] == ["Novak", "Kovar", "van", "Smith"]
    # Ovid MEDLINE and CENTRAL keywords are MeSH headings: descriptors, once each, not author keywords
    assert central.mesh == ["Psilocybin", "Humans", "Pupil"] and central.author_keywords == []
    assert medline.mesh == ["Depression"] and medline.ids["pmid"] == "12345678"
    # elsewhere a keyword with a slash is an author keyword; Dimensions notes its PubMed IDs
    assert central.venue == "Psychopharmacology"          # Ovid's T2 is the title in its original language
    assert dimensions.mesh == [] and dimensions.author_keywords == ["depression/therapy"]
    assert (dimensions.ids["pmid"], dimensions.ids["pmcid"]) == ("35957633", "PMC9361011")
    assert lens.ids["pmid"] == "32789069"                    # from its links to its PubMed page
