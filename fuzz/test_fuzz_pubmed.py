"""PubMed/MEDLINE text and PubMed XML built from the records of the real files in tests/data/pubmed plus
made-up fields and elements (records without PMID, odd DP/PG/IS/LID values, AD before any author, stray
continuation lines; articles without PMID, MedlineDate, CollectiveName, references with and without IDs,
unknown entities, nesting), with tricky text spliced in, line ends and encodings varied, bytes flipped and
files truncated: `ingest` of the file (reader, merge, reference parsing, tables) returns or raises a
B2GError with exit code 2..5 naming the file; `detect_format` returns a known format or None; never
another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged

from bib2graph.sources.exports.detect import FORMATS, detect_format

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pubmed"
MEDLINE_RECORDS = [block.strip("\n") + "\n" for name in ("pubmed_result2.txt", "mcda_pubmed.txt")
                   for block in re.split(r"\n\s*\n", (DATA / name).read_text(encoding="utf-8").replace("\r\n", "\n"))
                   if block.strip().startswith("PMID-")]
XML_ARTICLES = [m.group(0) for name in ("pubmed1.xml", "pubmed2.xml", "pubmed7.xml")
                for m in re.finditer(r"<PubmedArticle>.*?</PubmedArticle>", (DATA / name).read_text(encoding="utf-8"),
                                     re.S)]
XML_HEAD = ('<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January '
            '2019//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_190101.dtd">\n')

TAGS = st.sampled_from(["PMID", "TI", "AB", "FAU", "AU", "AD", "AUID", "CN", "MH", "OT", "DP", "LID", "AID",
                        "JT", "TA", "IS", "VI", "IP", "PG", "PT", "LA", "PMC", "BTI", "zz", "1A", "PMIDX"])
VALUES = st.sampled_from([
    "12345", "0", "abc", "", "99999999999999", "2019 Mar 15", "2019 Feb 30", "2019 Spring", "2018 Dec-2019 Jan",
    "123-9", "e0123", "R67-99", "9-1", "1-5, 9", "10.1/x [doi]", "S0140 [pii]", "[doi]", "10.1/x [DOI",
    "1234-5678 (Linking)", "1234-567X (Print)", "xxxx (Electronic)", "Retracted Publication", "Review",
    "Journal Article", "eng", "xx", "*Humans/*methods", "/", "*", "ORCID: 0000-0002-8887-4321",
    "Smith, John", "Smith J", "Univ X, Paris, France. a@b.fr", "Electronic address: a@b.c", "PMC1", "²³",
    "\udc80", ";", "(", "PMID: 1",
]) | st.text(max_size=20)
SEPARATORS = st.sampled_from(["  - ", " - ", "- ", "-", " -", "\t- ", "   - "])
MEDLINE_SNIPPETS = ["PMID- 1\n", "\n", "\n\n", "\r", "\r\n", "      ", "\t", "\x00", "\ufeff", "AD  - ",
                    "\u2028", "FAU - "]
XML_SNIPPETS = ["<", ">", "&", "&nbsp;", "&#0;", "]]>", "<PubmedArticle>", "</PubmedArticle>", "<PMID>",
                "</PMID>", "<![CDATA[x]]>", "\x00", "\ufeff", '"', "<!--", "-->", "<?x?>", "\n"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def medline_lines(draw) -> str:
    lines = [f"PMID- {draw(VALUES)}"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 4)) == 0:
            lines.append("      " + draw(VALUES))   # a continuation (or stray) line
        else:
            tag = draw(TAGS)
            lines.append(f"{tag:<4}{draw(SEPARATORS)}{draw(VALUES)}")
    return "\n".join(lines) + "\n"


@st.composite
def medline_files(draw) -> bytes:
    blocks = draw(st.lists(st.sampled_from(MEDLINE_RECORDS) | medline_lines(), min_size=1, max_size=4))
    text = draw(st.sampled_from(["", "\n"])) + draw(st.sampled_from(["\n", "\n\n", ""])).join(blocks)
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return damaged(draw, text, MEDLINE_SNIPPETS, ENCODINGS)


ELEMENTS = st.sampled_from([
    "<PMID>1</PMID>", "<PMID>abc</PMID>", "<PMID/>", "<ArticleTitle>T<i>x</i></ArticleTitle>",
    "<PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>", "<PubDate><Year>20x1</Year></PubDate>",
    "<PubDate><Year>2001</Year><Month>13</Month><Day>40</Day></PubDate>",
    "<AuthorList><Author><CollectiveName>Group</CollectiveName></Author><Author><ForeName>A</ForeName>"
    "</Author></AuthorList>", "<ISSN IssnType=\"Print\">1234-567X</ISSN>", "<ISSN>bad</ISSN>",
    "<ELocationID EIdType=\"doi\">10.1/x</ELocationID>", "<ELocationID EIdType=\"doi\"></ELocationID>",
    "<Pagination><MedlinePgn>123-9</MedlinePgn></Pagination>", "<PublicationType>Retracted Publication"
    "</PublicationType>", "<Language>xx</Language>",
    "<ReferenceList><Reference><Citation>Smith J. T. J X. 2001;1:2.</Citation><ArticleIdList><ArticleId "
    "IdType=\"pubmed\">9</ArticleId><ArticleId IdType=\"doi\">10.9/y</ArticleId></ArticleIdList></Reference>"
    "<Reference></Reference><Reference><Citation/></Reference></ReferenceList>",
    "<MeshHeadingList><MeshHeading><DescriptorName/></MeshHeading></MeshHeadingList>",
])


@st.composite
def made_up_article(draw) -> str:
    parts = "".join(draw(st.lists(ELEMENTS, max_size=5)))
    shape = draw(st.sampled_from([
        "<PubmedArticle><MedlineCitation>{p}<Article>{p}</Article></MedlineCitation><PubmedData>{p}</PubmedData>"
        "</PubmedArticle>",
        "<PubmedArticle>{p}</PubmedArticle>",
        "<PubmedBookArticle><BookDocument>{p}<Book>{p}</Book></BookDocument></PubmedBookArticle>",
        "<PubmedArticle><MedlineCitation>{p}<PubmedArticle>{p}</PubmedArticle></MedlineCitation></PubmedArticle>",
    ]))
    return shape.replace("{p}", parts)


@st.composite
def xml_files(draw) -> bytes:
    articles = draw(st.lists(st.sampled_from(XML_ARTICLES) | made_up_article(), min_size=1, max_size=3))
    root = draw(st.sampled_from(["PubmedArticleSet", "PubmedArticleSet", "Other"]))
    text = draw(st.sampled_from([XML_HEAD, ""])) + f"<{root}>\n" + "\n".join(articles) + f"\n</{root}>\n"
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return damaged(draw, text, XML_SNIPPETS, ENCODINGS)


def _check(bundle) -> None:
    if bundle is not None:
        assert bundle.works["pmid"].dropna().map(str.isdigit).all()
        assert bundle.works["doi"].dropna().str.startswith("10.").all()


@given(data=medline_files(), strict=st.booleans())
def test_pubmed_text_reads_or_fails_typed(scratch, ingested, data, strict):
    path = scratch / "pubmed.txt"
    path.write_bytes(data)
    _check(ingested(path, "fuzz.txt", "pubmed", strict))
    assert detect_format(path) in (*FORMATS, None)


@given(data=xml_files(), strict=st.booleans())
def test_pubmed_xml_reads_or_fails_typed(scratch, ingested, data, strict):
    path = scratch / "pubmed.xml"
    path.write_bytes(data)
    _check(ingested(path, "fuzz.txt", "pubmed-xml", strict))
    assert detect_format(path) in (*FORMATS, None)
