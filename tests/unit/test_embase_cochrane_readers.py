"""Embase RIS (embase.com flavour real, Ovid flavour by its documented tags), Cochrane CENTRAL text,
RIS `CR` references and the ISSN every reader fills: expected values come from a plain parse of the
raw text written here (regexes over the lines), never from the readers."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.exports.cochrane import read_cochrane
from bib2graph.sources.exports.detect import detect_format
from bib2graph.sources.exports.readers import read_records
from bib2graph.sources.exports.ris import read_ris
from bib2graph.sources.ingest import ingest

from ..conftest import SHARED_DATA

DATA = Path(__file__).resolve().parents[1] / "data"
EMBASE = DATA / "embase" / "embase-elsevier.ris"
CENTRAL = DATA / "cochrane" / "central-constructed.txt"


# --- the test's own plain parses ------------------------------------------------------------------

def _ris_blocks(text: str) -> list[list[tuple[str, str]]]:
    blocks, current = [], None
    for line in text.splitlines():
        m = re.match(r"^([A-Z][A-Z0-9])  - ?(.*)$", line)
        if m and m.group(1) == "TY":
            current = []
        if current is not None and m:
            current.append((m.group(1), m.group(2).strip()))
        if m and m.group(1) == "ER":
            blocks.append(current)
            current = None
    return blocks


def _all(block, tag):
    return [v for t, v in block if t == tag]


def _cochrane_blocks(text: str) -> list[dict[str, list[str]]]:
    blocks = []
    for chunk in re.split(r"(?m)^Record #\d+ of \d+\s*$", text)[1:]:
        fields: dict[str, list[str]] = {}
        for m in re.finditer(r"(?m)^([A-Z]{2,3}): (.*)$", chunk):
            fields.setdefault(m.group(1), []).append(m.group(2).strip())
        blocks.append(fields)
    return blocks


# --- Embase RIS -----------------------------------------------------------------------------------

def test_embase_ris_equals_an_independent_parse():
    text = EMBASE.read_text(encoding="utf-8")
    blocks = _ris_blocks(text)
    skips = Skips()
    records = list(read_ris(EMBASE, "embase.ris", skips))
    assert len(records) == len(blocks) == text.count("\nER  - ") + text.startswith("ER  - ") == 3
    assert not skips.items
    for record, block in zip(records, blocks):
        assert record.origin.format == "embase-ris"
        assert record.doi == _all(block, "DO")[0].lower()
        assert record.year == int(_all(block, "Y1")[0][:4])
        assert [a.name for a in record.authors] == _all(block, "A1")
        assert record.title == _all(block, "T1")[0]
        assert record.venue == _all(block, "JF")[0] and record.venue_abbrev == _all(block, "JO")[0]
        assert record.ids["embase"] == _all(block, "U2")[0]
        assert record.ids.get("pmid") == (_all(block, "C5") or [None])[0]
        assert record.issn == _all(block, "SN")[-1]          # electronic first, print last
        assert record.index_keywords == list(dict.fromkeys(_all(block, "KW")))
        assert record.author_keywords == []
        assert record.volume == _all(block, "VL")[0]
    assert records[1].ids["pmid"] == "40755006" and "pmid" not in records[0].ids
    assert records[2].language == "zh" and (records[2].first_page, records[2].last_page) == ("1066", "1073")
    assert records[2].venue != _all(blocks[2], "T2")[0]     # T2 is the original-language title here


OVID_EMBASE = """1. 
TY  - JOUR
DB  - Embase
ID  - 621381829
T1  - Quality of life in patients with primary ciliary dyskinesia: A systematic review.
A1  - Behan, L.
A1  - Rubbo, B.
Y1  - 2018//
KW  - *Kartagener syndrome
KW  - adult
KW  - *quality of life
JF  - BMC Proceedings
JA  - BMC Proc.
VL  - 12
SN  - 1753-6561
DO  - http://dx.doi.org/10.1186/s12919-018-0099-8
L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=emexb&NEWS=N&AN=621381829
ER  - 

2. 
TY  - JOUR
ID  - 30439442
T1  - Mushroom poisoning: A proposed new clinical classification.
A1  - White, Julian
Y1  - 2018//
JF  - Toxicon
SN  - 1879-3150
SN  - 0041-0101
DO  - https://dx.doi.org/10.1016/j.toxicon.2018.11.007
L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=medp&NEWS=N&AN=30439442
ER  - 
"""


def test_ovid_embase_by_its_tags_and_ovid_medline_stays_plain_ris(tmp_path):
    path = tmp_path / "ovid.ris"
    path.write_text(OVID_EMBASE, encoding="utf-8")
    embase, medline = read_ris(path, "ovid.ris", Skips())
    assert embase.origin.format == "embase-ris"
    assert embase.ids["embase"] == "L621381829"
    assert embase.doi == "10.1186/s12919-018-0099-8"
    assert embase.index_keywords == ["Kartagener syndrome", "adult", "quality of life"]
    assert (embase.venue, embase.venue_abbrev, embase.year) == ("BMC Proceedings", "BMC Proc.", 2018)
    assert medline.origin.format == "ris" and "embase" not in medline.ids
    assert medline.issn == "1879-3150" and medline.doi == "10.1016/j.toxicon.2018.11.007"
    assert detect_format(path) == "ris"


def test_embase_ris_is_detected_as_ris_by_content(tmp_path):
    renamed = tmp_path / "export.txt"
    renamed.write_bytes(EMBASE.read_bytes())
    assert detect_format(renamed) == "ris"


def test_ris_cr_references_keep_their_lines_and_skip_copyright(tmp_path):
    path = tmp_path / "refs.ris"
    path.write_text("TY  - JOUR\nTI  - A paper with references\nPY  - 2020\nDO  - 10.1000/refs\n"
                    "CR  - Smith J, 2001, J TEST, V1, P1\nCR  - Lee K, 2005, NATURE, V435, P12,\n"
                    "  DOI 10.1038/nature0001\nCR  - Copyright (c) 2020 Publisher\nER  - \n", encoding="utf-8")
    (record,) = read_ris(path, "refs.ris", Skips())
    assert [(r.raw, r.line) for r in record.references] == [
        ("Smith J, 2001, J TEST, V1, P1", 5), ("Lee K, 2005, NATURE, V435, P12, DOI 10.1038/nature0001", 6)]
    found = ingest([path], ["refs.ris"])
    assert len(found.bundle.references) == 2


def test_malformed_embase_record_is_skipped_with_its_line_and_strict_raises(tmp_path):
    text = EMBASE.read_text(encoding="utf-8")
    broken = text.replace("ER  - \n\nTY  - JOUR\nM3  - Article\nY1  - 2025\nVL  - 57", "\nTY  - JOUR\nM3  - Article\n"
                          "Y1  - 2025\nVL  - 57", 1)
    path = tmp_path / "broken.ris"
    path.write_text(broken, encoding="utf-8")
    skips = Skips()
    assert len(list(read_ris(path, "broken.ris", skips))) == 2
    assert [s.where for s in skips.items] == ["line 1"]
    with pytest.raises(DataError):
        list(read_ris(path, "broken.ris", Skips(strict=True)))


# --- Cochrane CENTRAL -----------------------------------------------------------------------------

def test_cochrane_equals_an_independent_parse():
    text = CENTRAL.read_text(encoding="utf-8")
    blocks = _cochrane_blocks(text)
    skips = Skips()
    records = list(read_cochrane(CENTRAL, "central.txt", skips))
    assert len(records) == len(blocks) == len(re.findall(r"(?m)^ID: CN-\d+$", text)) == 3
    assert not skips.items
    for record, f in zip(records, blocks):
        assert record.origin.format == "cochrane"
        assert record.ids["cochrane"] == f["ID"][0]
        assert record.doi == (f.get("DOI") or [None])[0]
        assert record.year == int(f["YR"][0])
        pmids = re.findall(r"PUBMED (\d+)", " ".join(f.get("PM", []) + f.get("XR", [])))
        assert record.ids.get("pmid") == (pmids or [None])[0]
        assert [a.name for a in record.authors] == [a.strip() for v in f["AU"] for a in v.split(";")]
        assert record.title == f["TI"][0] and record.venue == f["SO"][0]
        assert record.issn == (f.get("SN") or [None])[0]
    assert records[0].abstract.endswith("RESULTS: None.")        # the continuation line is joined
    assert records[0].index_keywords[0] == "Exercise Therapy"    # the major-topic star dropped
    assert (records[0].first_page, records[0].last_page) == ("123", "130")


def test_cochrane_detected_by_content_and_without_count_lines(tmp_path):
    renamed = tmp_path / "citation-export.txt"
    renamed.write_bytes(CENTRAL.read_bytes())
    assert detect_format(renamed) == "cochrane"
    bare = tmp_path / "bare.txt"
    bare.write_text("ID: CN-09000001\nTI: One\nYR: 2019\n\nID: CN-09000002\nTI: Two\nYR: 2020\n", encoding="utf-8")
    assert detect_format(bare) == "cochrane"
    assert [r.ids["cochrane"] for r in read_cochrane(bare, "bare.txt", Skips())] == ["CN-09000001", "CN-09000002"]


def test_cochrane_record_without_id_is_skipped_with_its_line_and_strict_raises(tmp_path):
    path = tmp_path / "central.txt"
    path.write_text(CENTRAL.read_text(encoding="utf-8").replace("ID: CN-09000002\n", ""), encoding="utf-8")
    skips = Skips()
    assert [r.ids["cochrane"] for r in read_cochrane(path, "central.txt", skips)] == ["CN-09000001", "CN-09000003"]
    assert [s.where for s in skips.items] == ["line 23"]
    with pytest.raises(DataError):
        list(read_cochrane(path, "central.txt", Skips(strict=True)))


def test_cochrane_bad_bytes_and_other_files_are_typed_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Record #1 of 1\nID: CN-09000001\nTI: caf\xe9\n")
    with pytest.raises(DataError) as err:
        list(read_cochrane(bad, "bad.txt", Skips()))
    assert err.value.code == "FILE_ENCODING" and "line 3" in err.value.message
    other = tmp_path / "other.txt"
    other.write_text("just some text\nand more\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(read_cochrane(other, "other.txt", Skips()))
    assert err.value.code == "FILE_INVALID"


def test_embase_and_cochrane_ingest_end_to_end():
    found = ingest([EMBASE, CENTRAL], ["embase.ris", "central.txt"])
    works = found.bundle.works.set_index("work_id")
    assert {"L2040010236", "L2035585485", "L2040197510", "CN-09000001", "CN-09000002", "CN-09000003"} == set(works.index)
    assert works.loc["L2035585485", "pmid"] == "40755006"
    assert works.loc["L2035585485", "issn"] == "0785-3890"
    assert works.loc["CN-09000001", "doi"] == "10.5555/constructed.2019.0001"
    assert set(found.bundle.authorships["work_id"]) == set(works.index)
    terms = found.bundle.terms
    assert {"sarcoidosis", "knee joint"} <= set(terms["term_id"])
    assert set(terms["field"]) == {"index_keywords"}


# --- ISSN on the shared WoS and Scopus exports ------------------------------------------------------

def _issn(text: str | None) -> str | None:
    m = re.search(r"(\d{4})-?(\d{3}[\dX])", text or "")
    return f"{m.group(1)}-{m.group(2)}" if m else None


def test_wos_plain_text_issn_is_sn_else_ei():
    path = SHARED_DATA / "wos" / "wos_plaintext.txt"
    expected = []
    for block in re.split(r"(?m)^ER\s*$", path.read_text(encoding="utf-8-sig")):
        if not re.search(r"(?m)^UT ", block):
            continue
        sn = re.search(r"(?m)^SN (.*)$", block)
        ei = re.search(r"(?m)^EI (.*)$", block)
        expected.append(_issn(sn.group(1) if sn else None) or _issn(ei.group(1) if ei else None))
    records = list(read_records(path, "wos.txt", "wos", Skips()))
    assert [r.issn for r in records] == expected
    assert sum(e is not None for e in expected) > 40


def test_wos_tab_and_scopus_csv_issn_columns():
    wos = SHARED_DATA / "wos" / "scientopy-iot-gateway-wos.txt"
    with wos.open(encoding="utf-8-sig", newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))
    expected = [_issn(r.get("SN")) or _issn(r.get("EI")) for r in rows if r.get("UT")]
    assert [r.issn for r in read_records(wos, "wos.txt", "wos-tab", Skips())] == expected
    scopus = SHARED_DATA / "scopus" / "scientopy-iot-gateway-scopus.csv"
    with scopus.open(encoding="utf-8-sig", newline="") as stream:
        cells = [_issn(r["ISSN"]) for r in csv.DictReader(stream)]
    assert [r.issn for r in read_records(scopus, "scopus.csv", "scopus-csv", Skips())] == cells
    assert sum(c is not None for c in cells) > 400
