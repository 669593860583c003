"""PubMed/MEDLINE text and PubMed XML read into Records, checked against the test's own plain reading of
the real files in tests/data/pubmed (Biopython's and pyBibX's; see its NOTICE.md): record counts, PMIDs,
DOIs, years, authors, MeSH, ISSNs, the ReferenceList's citations with their DOIs and PMIDs and the
lines they are on; detection by content; malformed records skipped with their line (strict: an error);
and both files through `ingest` into the bundle tables."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.exports.detect import detect_format
from bib2graph.sources.exports.pubmed import read_pubmed
from bib2graph.sources.exports.pubmed_refs import parse_pubmed_reference
from bib2graph.sources.exports.pubmed_xml import read_pubmed_xml
from bib2graph.sources.exports.references import identity_key, parse_reference
from bib2graph.sources.ingest import ingest

DATA = Path(__file__).resolve().parents[1] / "data" / "pubmed"
MEDLINE = ["pubmed_result1.txt", "pubmed_result2.txt", "mcda_pubmed.txt"]
XML = ["pubmed1.xml", "pubmed2.xml", "pubmed7.xml"]


# ------------------------------------------------------------------------------ the test's own readers

def _medline(path: Path) -> list[dict]:
    """Every record of a MEDLINE file as {"line": first line, tag: [values]}, by plain line splitting."""
    records, tag = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("PMID-"):
            records.append({"line": number})
        if not line.strip() or not records:
            continue
        if line.startswith("      "):
            records[-1][tag][-1] += " " + line.strip()
        else:
            tag, value = line[:4].strip(), line[6:].strip()
            records[-1].setdefault(tag, []).append(value)
            records[-1].setdefault("order", []).append((tag, value))
    return records


def _xml_articles(path: Path) -> list[ET.Element]:
    return ET.parse(path).getroot().findall("PubmedArticle")


def _flat(element: ET.Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


# -------------------------------------------------------------------------------------- MEDLINE text

@pytest.mark.parametrize("name", MEDLINE)
def test_medline_records_equal_a_plain_reading(name):
    path = DATA / name
    expected = _medline(path)
    skips = Skips()
    records = list(read_pubmed(path, name, skips))
    assert not skips.items
    assert len(records) == len(expected) == path.read_text(encoding="utf-8").count("\nPMID- ") + \
        path.read_text(encoding="utf-8").startswith("PMID- ")
    for record, raw in zip(records, expected):
        assert record.origin.line == raw["line"] and record.origin.format == "pubmed"
        assert record.ids["pmid"] == raw["PMID"][0]
        assert record.ids.get("pmcid") == (raw.get("PMC") or [None])[0]
        dois = [v[:-len(" [doi]")].lower() for v in raw.get("LID", []) + raw.get("AID", []) if v.endswith(" [doi]")]
        assert record.doi == (dois[0] if dois else None)
        assert record.year == int(raw["DP"][0][:4])
        people = [(tag, value) for tag, value in raw["order"] if tag in ("FAU", "AU", "CN")]
        assert [a.full_name for a in record.authors] == [v if t == "FAU" else None for t, v in people if t != "AU"]
        assert [a.name for a in record.authors] == [v for t, v in people if t != "FAU"]
        assert record.title == " ".join(raw["TI"][0].split())
        mesh = list(dict.fromkeys(h.split("/")[0].lstrip("*") for h in raw.get("MH", [])))
        assert record.mesh == mesh
        assert record.author_keywords == list(dict.fromkeys(raw.get("OT", [])))
        issns = dict(reversed([re.match(r"(\S+) \((\w+)\)", v).group(2, 1) for v in raw.get("IS", [])]))
        assert record.issn == issns.get("Linking") or issns.get("Print") or issns.get("Electronic")
        assert record.venue == raw["JT"][0] and record.venue_abbrev == raw["TA"][0]
        assert record.language == "en" and raw["LA"] == ["eng"]
        assert record.type == ("review" if "Review" in raw["PT"] else "article")


def test_medline_details_of_known_records():
    records = {r.ids["pmid"]: r for name in MEDLINE for r in read_pubmed(DATA / name, name, Skips())}
    scop = records["16403221"]          # AD before the authors (records before 2014): the first author's
    assert scop.institutions[0].country == "GB" and scop.authors[0].affiliations == (0,)
    assert "@" not in scop.institutions[0].address
    assert scop.mesh[:2] == ["Database Management Systems", "Databases, Protein"]
    assert scop.first_page == "10" and scop.last_page is None
    pritchard = records["16377612"]
    assert (pritchard.first_page, pritchard.last_page, pritchard.publication_date) == ("616", "617", "2006-03-01")
    mcda = records["36206242"]          # one AD per author, an AUID ORCID, e-locator pages, linking ISSN
    assert mcda.authors[1].ids == (("orcid", "0000-0002-8887-4321"),)
    assert mcda.authors[1].affiliations == (0, 1) and mcda.institutions[1].country == "PL"
    assert mcda.first_page == "e0268950" and mcda.issn == "1932-6203"


def test_medline_record_without_pmid_is_skipped_with_its_line_and_strict_raises(tmp_path):
    text = (DATA / "pubmed_result1.txt").read_text(encoding="utf-8")
    path = tmp_path / "export.txt"
    broken = "PMID- none\nTI  - A record with no PubMed ID.\n\nTI  - A stray block.\n"
    path.write_text(text.rstrip("\n") + "\n\n" + broken, encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    skips = Skips()
    records = list(read_pubmed(path, "export.txt", skips))
    assert [r.ids["pmid"] for r in records] == ["12230038"]
    assert [s.where for s in skips.items] == [f"record 2, line {lines.index('PMID- none') + 1}",
                                             f"record 3, line {lines.index('TI  - A stray block.') + 1}"]
    with pytest.raises(DataError) as raised:
        list(read_pubmed(path, "export.txt", Skips(strict=True)))
    assert raised.value.code == "RECORD_INVALID"


def test_a_file_that_is_no_medline_export_is_an_error(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Some notes\nabout nothing\n", encoding="utf-8")
    with pytest.raises(DataError) as raised:
        list(read_pubmed(path, "notes.txt", Skips()))
    assert raised.value.code == "FILE_INVALID" and "line 1" in raised.value.message


# ---------------------------------------------------------------------------------------- PubMed XML

@pytest.mark.parametrize("name", XML)
def test_xml_records_equal_a_plain_reading(name):
    path = DATA / name
    articles = _xml_articles(path)
    skips = Skips()
    records = list(read_pubmed_xml(path, name, skips))
    assert not skips.items
    assert len(records) == len(articles) == path.read_text(encoding="utf-8").count("<PubmedArticle>")
    for record, article in zip(records, articles):
        citation = article.find("MedlineCitation")
        assert record.ids["pmid"] == citation.findtext("PMID")
        ids = {e.get("IdType"): e.text for e in article.findall("PubmedData/ArticleIdList/ArticleId")}
        located = [e.text for e in citation.findall("Article/ELocationID") if e.get("EIdType") == "doi"]
        assert record.doi == (((located or [ids.get("doi")])[0] or "").lower() or None)
        assert record.ids.get("pmcid") == ids.get("pmc")
        assert record.year == int(citation.findtext("Article/Journal/JournalIssue/PubDate/Year"))
        people = citation.findall("Article/AuthorList/Author")
        assert [a.name for a in record.authors] == [
            f"{p.findtext('LastName')} {p.findtext('Initials')}" if p.find("LastName") is not None
            else p.findtext("CollectiveName") for p in people]
        assert record.mesh == [d.text for d in citation.findall("MeshHeadingList/MeshHeading/DescriptorName")]
        assert record.author_keywords == [k.text for k in citation.findall("KeywordList/Keyword")]
        issns = {e.get("IssnType"): e.text for e in citation.findall("Article/Journal/ISSN")}
        linking = citation.findtext("MedlineJournalInfo/ISSNLinking")
        assert record.issn == linking or issns.get("Print") or issns.get("Electronic")
        assert record.title == _flat(citation.find("Article/ArticleTitle"))
        assert record.venue == citation.findtext("Article/Journal/Title")
        assert record.origin.format == "pubmed-xml"


def test_xml_references_carry_their_ids_and_lines():
    path = DATA / "pubmed7.xml"
    lines = path.read_text(encoding="utf-8").splitlines()
    reference_lines = [n for n, line in enumerate(lines, 1) if line.strip() == "<Reference>"]
    references = _xml_articles(path)[0].findall("PubmedData/ReferenceList/Reference")
    record = next(read_pubmed_xml(path, path.name, Skips()))
    assert len(record.references) == len(references) == len(reference_lines) == 49
    assert [ref.line for ref in record.references] == reference_lines
    for ref, element in zip(record.references, references):
        assert ref.raw.startswith(element.findtext("Citation").strip().rstrip("."))
        ids = {e.get("IdType"): e.text for e in element.findall("ArticleIdList/ArticleId")}
        parsed = parse_reference(ref.raw, "pubmed")
        assert parsed.pmid == ids.get("pubmed") and parsed.doi == ((ids.get("doi") or "").lower() or None)
        assert identity_key(parsed).startswith("doi:" if ids.get("doi") else "pmid:")
    article_lines = [n for n, line in enumerate(lines, 1) if line.strip() == "<PubmedArticle>"]
    assert record.origin.line == article_lines[0]


def test_pubmed_citations_of_the_real_reference_list_parse():
    """Year, source, volume and first page of each real "Journal. YEAR Mon;VOL(ISSUE):PAGES" citation."""
    shape = re.compile(r"^(?P<source>.+?)\. (?P<year>\d{4})[^;]*;(?P<volume>[^(:]+)(?:\([^)]*\))?:(?P<page>[^-]+)")
    citations = [e.text for e in _xml_articles(DATA / "pubmed7.xml")[0].iter("Citation")]
    assert len(citations) == 49
    for text in citations:
        expected = shape.match(text)
        assert expected, text
        parsed = parse_pubmed_reference(text, " ".join(text.split()))
        assert (parsed.source, parsed.year, parsed.volume, parsed.page) == (
            expected["source"], int(expected["year"]), expected["volume"], expected["page"]), text
        assert parsed.first_author is None


@pytest.mark.parametrize(("text", "expected"), [
    ("Gems D, Partridge L. Genetics of longevity in model organisms: debates and paradigm shifts. Annu. Rev. "
     "Physiol. 2013;75:621–644. doi: 10.1146/annurev-physiol-030212-183712. PMID: 23190075",
     ("Gems D", 2013, "Annu. Rev. Physiol", "75", "621", "10.1146/annurev-physiol-030212-183712", "23190075")),
    ("Smith J, Jones K. Title of paper. J Appl Physiol. 2001;12(3):45-67. doi: 10.1/x. PMID: 123456",
     ("Smith J", 2001, "J Appl Physiol", "12", "45", "10.1/x", "123456")),
    ("McFaline-Figueroa JR, et al. Mitochondrial quality control. Aging Cell. 2011;10:885–895.",
     ("McFaline-Figueroa JR", 2011, "Aging Cell", "10", "885", None, None)),
    ("Rabinowitz JD, White E (2010) Autophagy and metabolism. Science 330: 1344–1348.",
     ("Rabinowitz JD", 2010, "Science", "330", "1344", None, None)),
    ("Altwegg, R. , Wheeler, M. , & Erni, B. (2008). Climate and the range dynamics of species. Biological "
     "Letters, 4, 581–584. 10.1098/rsbl.2008.0051",
     ("Altwegg R", 2008, "Biological Letters", "4", "581", "10.1098/rsbl.2008.0051", None)),
    ("Tunyasuvunakool K. Highly accurate protein structure prediction. Nature (2021).",
     ("Tunyasuvunakool K", 2021, "Nature", None, None, None, None)),
])
def test_vancouver_and_free_form_citations(text, expected):
    parsed = parse_pubmed_reference(text, text)
    assert (parsed.first_author, parsed.year, parsed.source, parsed.volume, parsed.page, parsed.doi,
            parsed.pmid) == expected


def test_xml_article_without_pmid_is_skipped_and_broken_xml_names_its_line(tmp_path):
    text = (DATA / "pubmed7.xml").read_text(encoding="utf-8")
    path = tmp_path / "efetch.xml"
    path.write_text(text.replace('<PMID Version="1">29963580</PMID>', "", 1), encoding="utf-8")
    skips = Skips()
    assert list(read_pubmed_xml(path, "efetch.xml", skips)) == []
    assert skips.items[0].where == "record 1, line 4" and "PMID" in skips.items[0].reason
    with pytest.raises(DataError):
        list(read_pubmed_xml(path, "efetch.xml", Skips(strict=True)))
    broken = text.replace("</ArticleTitle>", "</Title>", 1)
    path.write_text(broken, encoding="utf-8")
    line = next(n for n, row in enumerate(broken.splitlines(), 1) if "</Title>" in row and "ArticleTitle" in row)
    with pytest.raises(DataError) as raised:
        list(read_pubmed_xml(path, "efetch.xml", Skips()))
    assert raised.value.code == "FILE_INVALID" and f"line {line}" in raised.value.message


def test_book_article_is_read(tmp_path):
    path = tmp_path / "book.xml"
    path.write_text(
        "<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>20301295</PMID><ArticleIdList>"
        "<ArticleId IdType=\"bookaccession\">NBK1116</ArticleId></ArticleIdList><Book><BookTitle>GeneReviews"
        "</BookTitle><PubDate><Year>1993</Year></PubDate></Book><ArticleTitle>Alpha-Thalassemia</ArticleTitle>"
        "<AuthorList Type=\"authors\"><Author><LastName>Tamary</LastName><ForeName>Hannah</ForeName>"
        "<Initials>H</Initials></Author></AuthorList><Language>eng</Language></BookDocument>"
        "</PubmedBookArticle></PubmedArticleSet>", encoding="utf-8")
    [record] = read_pubmed_xml(path, "book.xml", Skips())
    assert (record.ids, record.title, record.venue, record.year, record.type) == (
        {"pmid": "20301295"}, "Alpha-Thalassemia", "GeneReviews", 1993, "book-chapter")
    assert record.authors[0].full_name == "Tamary, Hannah"


def test_an_article_level_affiliation_of_the_old_dtd_is_the_first_authors(tmp_path):
    """Before 2014 PubMed recorded one affiliation, under Article, for the first author."""
    path = tmp_path / "old.xml"
    path.write_text(
        "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>"
        "<Affiliation>Department of Pharmacy, University of Tennessee, Memphis, Tennessee 38163, USA</Affiliation>"
        "<AuthorList><Author><LastName>Liu</LastName><Initials>T</Initials></Author><Author><LastName>Ng</LastName>"
        "<Initials>K</Initials></Author></AuthorList></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>",
        encoding="utf-8")
    [record] = read_pubmed_xml(path, "old.xml", Skips())
    assert [a.affiliations for a in record.authors] == [(0,), ()]
    assert record.institutions[0].name == "University of Tennessee" and record.institutions[0].country == "US"


# ----------------------------------------------------------------------------- detection and ingest

@pytest.mark.parametrize("name", MEDLINE + XML)
def test_real_files_are_detected_by_content(name):
    assert detect_format(DATA / name) == ("pubmed-xml" if name.endswith(".xml") else "pubmed")


def test_both_formats_go_through_ingest():
    paths = [DATA / "pubmed_result2.txt", DATA / "mcda_pubmed.txt", DATA / "pubmed7.xml", DATA / "pubmed2.xml"]
    found = ingest(paths, [p.name for p in paths])
    works = found.bundle.works
    expected_pmids = [r["PMID"][0] for p in paths[:2] for r in _medline(p)] + \
        [a.findtext("MedlineCitation/PMID") for p in paths[2:] for a in _xml_articles(p)]
    assert sorted(works["pmid"]) == sorted(expected_pmids)
    by_pmid = works.set_index("pmid")
    assert by_pmid.loc["29963580", "doi"] == "10.1117/1.jmi.5.2.026002"
    assert by_pmid.loc["29963580", "issn"] == "2329-4302"
    terms = found.bundle.terms
    mesh = terms[terms["field"] == "mesh"]
    assert "database management systems" in set(mesh["term_id"]) or "Database Management Systems" in set(mesh["term"])
    authorships = found.bundle.authorships
    work = by_pmid.loc["16403221", "work_id"]
    assert list(authorships[authorships["work_id"] == work].sort_values("position")["author_name"].str.split(",").str[0]) \
        == ["Casbon", "Crooks", "Saqi"]
    citing = by_pmid.loc["29963580", "work_id"]
    assert (found.bundle.references["work_id"] == citing).sum() == 49
    assert found.counts["files"][2] == {"file": "pubmed7.xml", "records": 1, "duplicates": 0}
