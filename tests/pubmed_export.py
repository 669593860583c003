"""PubMed exports (MEDLINE text and efetch XML) written from OpenAlex Work objects, for tests that need
a PubMed file of works whose OpenAlex records they also hold (no real pair exists in the shared data).

Fields follow PubMed's documented formats (https://www.nlm.nih.gov/bsd/mms/medlineelements.html and
the PubMed DTD): PMID, TI, AB, FAU/AU, DP, LID with [doi], JT, IS, VI, IP, PG, MH. In the XML, each
referenced work the universe holds with a PMID becomes a ReferenceList Citation with its PubMed
ArticleId and no DOI, so that it can be resolved by its PMID alone.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from bib2graph.ids import normalize_doi, normalize_pmid, short_id
from bib2graph.sources.exports.names import split_name
from bib2graph.sources.records import abstract_from_index


def pmid_of(work) -> str | None:
    return normalize_pmid((work.get("ids") or {}).get("pmid"))


def _authors(work) -> list[tuple[str, str]]:
    out = []
    for authorship in work.get("authorships") or []:
        name = (authorship.get("author") or {}).get("display_name")
        if name:
            out.append(split_name(name))
    return out


def _venue(work) -> str:
    source = ((work.get("primary_location") or {}).get("source") or {}) or (work.get("host_venue") or {})
    return source.get("display_name") or ""


def _wrap(tag: str, value: str) -> list[str]:
    """One MEDLINE field, cut into continuation lines of six spaces as PubMed writes long fields."""
    words, lines, line = value.split(), [], f"{tag:<4}- "
    for word in words:
        if len(line) + len(word) > 80 and line.strip():
            lines.append(line.rstrip())
            line = "      "
        line += word + " "
    lines.append(line.rstrip())
    return lines


def medline(works, drop_doi=frozenset()) -> str:
    """MEDLINE text of the works that have a PMID; `drop_doi`: work IDs written without their DOI."""
    blocks = []
    for work in works:
        pmid = pmid_of(work)
        if pmid is None:
            continue
        lines = [f"PMID- {pmid}"]
        lines += _wrap("TI", work.get("title") or "")
        abstract = abstract_from_index(work.get("abstract_inverted_index"))
        if abstract:
            lines += _wrap("AB", abstract)
        for surname, given in _authors(work):
            lines.append(f"FAU - {surname}, {given}")
            lines.append(f"AU  - {surname} {''.join(p[0] for p in given.split() if p[:1].isalpha())}")
        if work.get("publication_year"):
            lines.append(f"DP  - {work['publication_year']}")
        doi = normalize_doi(work.get("doi"))
        if doi and short_id(work["id"]) not in drop_doi:
            lines.append(f"LID - {doi} [doi]")
        if _venue(work):
            lines.append(f"JT  - {_venue(work)}")
        for mesh in work.get("mesh") or []:
            lines.append(f"MH  - {'*' if mesh.get('is_major_topic') else ''}{mesh['descriptor_name']}")
        blocks.append("\n".join(lines))
    return "\n" + "\n\n".join(blocks) + "\n"


def efetch_xml(works, universe) -> str:
    """PubmedArticleSet XML of the works that have a PMID, each with a ReferenceList of the works it
    references that `universe` (work ID → work) holds with a PMID."""
    out = ['<?xml version="1.0" ?>', '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" '
           '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">', "<PubmedArticleSet>"]
    for work in works:
        pmid = pmid_of(work)
        if pmid is None:
            continue
        authors = "".join(f"<Author><LastName>{escape(s)}</LastName><ForeName>{escape(g)}</ForeName></Author>"
                          for s, g in _authors(work))
        doi = normalize_doi(work.get("doi"))
        refs = []
        for ref in work.get("referenced_works") or []:
            cited = universe.get(short_id(ref))
            if cited is not None and pmid_of(cited):
                refs.append(f"<Reference><Citation>{escape(cited.get('title') or '')}</Citation><ArticleIdList>"
                            f'<ArticleId IdType="pubmed">{pmid_of(cited)}</ArticleId></ArticleIdList></Reference>')
        out.append(
            f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{pmid}</PMID>'
            f"<Article><Journal><Title>{escape(_venue(work))}</Title><JournalIssue><PubDate>"
            f"<Year>{work.get('publication_year') or ''}</Year></PubDate></JournalIssue></Journal>"
            f"<ArticleTitle>{escape(work.get('title') or '')}</ArticleTitle>"
            f'<AuthorList CompleteYN="Y">{authors}</AuthorList></Article></MedlineCitation>'
            f'<PubmedData><ArticleIdList><ArticleId IdType="pubmed">{pmid}</ArticleId>'
            + (f'<ArticleId IdType="doi">{escape(doi)}</ArticleId>' if doi else "")
            + f"</ArticleIdList><ReferenceList>{''.join(refs)}</ReferenceList></PubmedData></PubmedArticle>")
    out.append("</PubmedArticleSet>")
    return "\n".join(out) + "\n"
