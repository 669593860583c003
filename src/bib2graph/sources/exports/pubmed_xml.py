"""PubMed XML (efetch `db=pubmed&retmode=xml`, and PubMed's "Save" as XML, and the annual baseline
files) as `Record`s: a PubmedArticleSet of PubmedArticle (and PubmedBookArticle) elements.

From MedlineCitation/Article: ArticleTitle, Abstract/AbstractText (a Label becomes "LABEL: text"),
AuthorList/Author (LastName, ForeName, Initials, CollectiveName, Identifier Source="ORCID",
AffiliationInfo/Affiliation; before 2014 an Article/Affiliation, the first author's), Journal (Title,
ISOAbbreviation, ISSN; MedlineJournalInfo/ISSNLinking first), JournalIssue (Volume, Issue, PubDate as
Year/Month/Day or MedlineDate), Pagination/MedlinePgn, ELocationID EIdType="doi", Language and
PublicationTypeList; MeshHeadingList's DescriptorNames and KeywordList's Keywords; from PubmedData the
ArticleIdList (doi, pmc) and the ReferenceList. Each Reference is its Citation text with the IDs its
ArticleIdList gives appended in the form `pubmed_refs.parse_pubmed_reference` reads back ("… doi: 10.1/x.
PMID: 123"), on the line of its Reference element.

The file is parsed by expat in chunks and each article dropped once read, so a baseline file of
30,000 articles is read in bounded memory; expat gives the line each article and reference starts on.
An article without a PMID is reported to `skips`; a document that is not well-formed XML is a
DataError naming the line.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Iterator
from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from ...errors import DataError
from ...ids import normalize_doi, normalize_pmid
from ...skips import Skips
from .languages import language_code
from .pubmed import affiliation_index, iso_date, is_retracted, pages, pick_issn, pubmed_type
from . import textfile
from .record import Author, CitedRef, Institution, Origin, Record

CHUNK = 1 << 16
ARTICLES = frozenset({"PubmedArticle", "PubmedBookArticle"})
_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


def read_pubmed_xml(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a PubMed XML file, one article at a time."""
    number = 0
    for element, line, ref_lines in _articles(path, name):
        number += 1
        origin = Origin(name, number, line, "pubmed-xml")
        record = _record(element, origin, ref_lines)
        if isinstance(record, str):
            skips.add(name, origin.where(), record)
        else:
            yield record


class _Builder:
    """Feeds expat's events to an ElementTree TreeBuilder, noting the line of every article and
    reference element, and hands each finished article over (dropped from its parent)."""

    def __init__(self) -> None:
        self.tree = TreeBuilder()
        self.stack: list[Element] = []
        self.done: list[tuple[Element, int, dict[int, int]]] = []
        self.lines: dict[int, int] = {}       # id(Reference element) → its line, within the open article
        self.start_line = 0
        self.root: str | None = None
        self.parser = expat.ParserCreate()
        self.parser.buffer_text = True
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.tree.data

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        element = self.tree.start(tag, attrs)
        if self.root is None:
            self.root = tag
        if tag in ARTICLES:
            self.start_line, self.lines = self.parser.CurrentLineNumber, {}
        elif tag == "Reference":
            self.lines[id(element)] = self.parser.CurrentLineNumber
        self.stack.append(element)

    def end(self, tag: str) -> None:
        element = self.tree.end(tag)
        self.stack.pop()
        if tag in ARTICLES:
            self.done.append((element, self.start_line, self.lines))
            if self.stack:
                self.stack[-1].remove(element)


def _articles(path: Path, name: str) -> Iterator[tuple[Element, int, dict[int, int]]]:
    """(article element, its line, its references' lines) of every article of the file, in order."""
    builder = _Builder()
    seen = 0
    with textfile.open_binary(Path(path), name) as stream:
        while True:
            chunk = stream.read(CHUNK)
            try:
                builder.parser.Parse(chunk, not chunk)
            except expat.ExpatError as exc:
                line = exc.lineno
                raise DataError(f"{name}: line {line} is not well-formed XML "
                                f"({expat.ErrorString(exc.code)}); not a readable PubMed XML file",
                                code="FILE_INVALID", details={"file": name, "line": line}) from None
            seen += len(builder.done)
            yield from builder.done
            builder.done = []
            if not chunk:
                break
    if not seen and builder.root not in ("PubmedArticleSet", "PubmedBookArticleSet"):
        raise DataError(f"{name}: not a PubMed XML file (its root element is {builder.root}, and it holds no "
                        "PubmedArticle)", code="FILE_INVALID", details={"file": name})


def _text(element: Element | None) -> str | None:
    """The element's text with its markup (<i>, <sup>, MathML) dropped and white space collapsed."""
    if element is None:
        return None
    return " ".join("".join(element.itertext()).split()) or None


def _record(article: Element, origin: Origin, ref_lines: dict[int, int]) -> Record | str:
    """The Record of one PubmedArticle or PubmedBookArticle, or why there is none."""
    book = article.tag == "PubmedBookArticle"
    citation = article.find("BookDocument" if book else "MedlineCitation")
    if citation is None:
        return f"a {article.tag} without {'BookDocument' if book else 'MedlineCitation'}"
    pmid = normalize_pmid(_text(citation.find("PMID")))
    if pmid is None:
        return f"a {article.tag} without a PMID"
    data = article.find("PubmedBookData" if book else "PubmedData")
    ids = _article_ids(citation.find("ArticleIdList") if book else None, data)
    fields = _book(citation) if book else _journal_article(citation)
    record_ids = {"pmid": pmid}
    if ids.get("pmc"):
        record_ids["pmcid"] = ids["pmc"]
    types = [t for t in (_text(e) for e in citation.iter("PublicationType")) if t]
    authors, institutions = _authors(citation)
    return Record(
        origin=origin, ids=record_ids, doi=fields.pop("doi", None) or normalize_doi(ids.get("doi")),
        type=fields.pop("type", None) or pubmed_type(types), is_retracted=is_retracted(types),
        language=language_code(_text(citation.find(".//Language"))), abstract=_abstract(citation.find(".//Abstract")),
        authors=authors, institutions=institutions,
        author_keywords=_unique(_text(k) for k in citation.iterfind("KeywordList/Keyword")),
        mesh=_unique(_text(d) for d in citation.iterfind("MeshHeadingList/MeshHeading/DescriptorName")),
        references=_references(data, ref_lines), **fields)


def _journal_article(citation: Element) -> dict:
    """The fields of a MedlineCitation's Article that a book has otherwise."""
    article = citation.find("Article")
    if article is None:
        return {}
    journal = article.find("Journal")
    issue = journal.find("JournalIssue") if journal is not None else None
    year, published = _pub_date(issue.find("PubDate") if issue is not None else None)
    issns = [(e.get("IssnType", "").lower(), e.text or "") for e in article.iterfind("Journal/ISSN")]
    issns += [("linking", e.text or "") for e in citation.iterfind("MedlineJournalInfo/ISSNLinking")]
    first, last = pages(_text(article.find("Pagination/MedlinePgn")))
    if first is None:
        first, last = _text(article.find("Pagination/StartPage")), _text(article.find("Pagination/EndPage"))
    doi = next((normalize_doi(_text(e)) for e in article.iterfind("ELocationID")
                if e.get("EIdType") == "doi" and normalize_doi(_text(e))), None)
    return {"title": _text(article.find("ArticleTitle")) or _text(article.find("VernacularTitle")),
            "year": year, "publication_date": published, "doi": doi,
            "venue": _text(article.find("Journal/Title")),
            "venue_abbrev": _text(article.find("Journal/ISOAbbreviation")) or
            _text(citation.find("MedlineJournalInfo/MedlineTA")),
            "issn": pick_issn(issns), "volume": _text(issue.find("Volume")) if issue is not None else None,
            "issue": _text(issue.find("Issue")) if issue is not None else None,
            "first_page": first, "last_page": last}


def _book(document: Element) -> dict:
    """The fields of a BookDocument: a chapter (ArticleTitle) of a book, or the book itself."""
    chapter = _text(document.find("ArticleTitle"))
    book_title = _text(document.find("Book/BookTitle"))
    year, published = _pub_date(document.find("Book/PubDate"))
    return {"title": chapter or book_title, "venue": book_title if chapter else None, "year": year,
            "publication_date": published, "type": "book-chapter" if chapter else "book"}


def _pub_date(element: Element | None) -> tuple[int | None, str | None]:
    """(year, ISO date) of a PubDate: Year/Month/Day, or a MedlineDate ("1998 Dec-1999 Jan")."""
    if element is None:
        return None, None
    year = _text(element.find("Year"))
    if year is None:
        found = _YEAR.search(_text(element.find("MedlineDate")) or "")
        return (int(found.group(1)), None) if found else (None, None)
    if not (year.isascii() and year.isdigit()):
        return None, None
    return int(year), iso_date(year, _text(element.find("Month")), _text(element.find("Day")))


def _article_ids(*lists: Element | None) -> dict[str, str]:
    """IdType → ID of an article's own ArticleIdList (not its references')."""
    ids: dict[str, str] = {}
    for element in lists:
        if element is None:
            continue
        id_list = element if element.tag == "ArticleIdList" else element.find("ArticleIdList")
        for item in id_list.iterfind("ArticleId") if id_list is not None else ():
            if (value := _text(item)) and item.get("IdType"):
                ids.setdefault(item.get("IdType"), value)
    return ids


def _abstract(element: Element | None) -> str | None:
    """The abstract's parts, each after its label ("BACKGROUND: …"), joined."""
    if element is None:
        return None
    parts = []
    for part in element.iterfind("AbstractText"):
        text = _text(part)
        if text:
            label = part.get("Label")
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts) or None


def _authors(citation: Element) -> tuple[list[Author], list[Institution]]:
    """The authors (not editors) in byline order, their ORCIDs and affiliations, and the institutions."""
    authors: list[Author] = []
    institutions: list[Institution] = []
    by_address: dict[str, int] = {}
    for author_list in citation.iter("AuthorList"):
        if author_list.get("Type", "authors") != "authors":
            continue
        for person in author_list.iterfind("Author"):
            if person.get("ValidYN") == "N":
                continue
            last, fore = _text(person.find("LastName")), _text(person.find("ForeName"))
            initials, suffix = _text(person.find("Initials")), _text(person.find("Suffix"))
            collective = _text(person.find("CollectiveName"))
            if last:
                name = " ".join(p for p in (last, initials or "", suffix or "") if p)
                full = f"{last}, {fore}" if fore else None
            elif collective:
                name, full = collective, None
            else:
                continue
            orcids = [m.group(0) for e in person.iterfind("Identifier")
                      if e.get("Source", "").upper() == "ORCID" and (m := _ORCID.search(_text(e) or ""))]
            links = []
            for affiliation in person.iterfind("AffiliationInfo/Affiliation"):
                index = affiliation_index(_text(affiliation) or "", institutions, by_address)
                if index is not None:
                    links.append(index)
            authors.append(Author(name=name, full_name=full, ids=tuple(("orcid", o) for o in dict.fromkeys(orcids)),
                                  affiliations=tuple(dict.fromkeys(links))))
        break   # a book's chapter authors come first; later lists are the book's
    old = _text(citation.find("Article/Affiliation"))   # before 2014 (no AffiliationInfo): the first author's
    if old and authors and not any(a.affiliations for a in authors):
        index = affiliation_index(old, institutions, by_address)
        if index is not None:
            authors[0] = dataclasses.replace(authors[0], affiliations=(index,))
    return authors, institutions


def _references(data: Element | None, lines: dict[int, int]) -> list[CitedRef]:
    """Each Reference of the ReferenceList(s) as its Citation with its DOI and PMID appended."""
    if data is None:
        return []
    refs = []
    for reference in data.iter("Reference"):
        citation = _text(reference.find("Citation")) or ""
        ids = _article_ids(reference)
        raw = citation_with_ids(citation, ids.get("doi"), ids.get("pubmed"))
        if raw:
            refs.append(CitedRef(raw, lines.get(id(reference))))
    return refs


def citation_with_ids(citation: str, doi: str | None, pmid: str | None) -> str:
    """A reference's citation text with its DOI and PMID appended when the text does not give them:
    "Cell. 2005;120:437-47" + "15734677" → "Cell. 2005;120:437-47. PMID: 15734677"."""
    text = citation.strip()
    doi, pmid = normalize_doi(doi), normalize_pmid(pmid)
    if doi and doi not in text.lower():
        text = f"{text.rstrip(' .')}. doi: {doi}" if text else f"doi: {doi}"
    if pmid and not re.search(rf"(?i)\bpmid:?\s*0*{pmid}\b", text):
        text = f"{text.rstrip(' .')}. PMID: {pmid}" if text else f"PMID: {pmid}"
    return text


def _unique(values) -> list[str]:
    return [v for v in dict.fromkeys(values) if v]
