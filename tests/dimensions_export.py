"""Dimensions publication exports (CSV) written from OpenAlex Work objects, for the tests and the fuzz
harness of the Dimensions reader. Real Dimensions exports carry Digital Science's notice that
"redistribution / external use of this work (or parts thereof) is prohibited without prior written
approval", so none is bundled; these files are written from the CC0 SYNERGY records instead
(/work/shared/data/synergy, read with tests/wos_export.py's `synergy_works`).

The layout follows the real exports of pdoehle/bibliometrics-for-librarians (commit 0a7e9df2, an
"Export full record" and an "Export for bibliometric mapping" of July 2020; see
tests/data/dimensions/NOTICE.md):

* UTF-8 without a byte-order mark, CRLF line ends, cells quoted only when they hold a comma, a quote
  (doubled) or a line break; some titles hold a line break and two spaces ("… or\\n  Publication …").
* The full record starts with the note "About the data: Exported on Jul 08, 2020. Criteria: …" as one
  quoted cell padded with empty cells to the header's width, then the 27 columns of `FULL_RECORD_2020`.
  `FULL_RECORD_2021` is the later layout (with "Abstract") as a public collation script of May 2021
  lists it; its columns whose cell format no real file showed (raw affiliations, standardised
  organisations and countries, GRID IDs, funders, print and online dates) are left empty.
* Multi-valued cells are "; "-separated: "Authors" as "Surname, Given; …", "Authors Affiliations" as
  "Surname, Given (Org; Org); Surname, Given ()" (empty parentheses for an author without one),
  "Corresponding Author" as "Surname, Given (Org)", "MeSH terms" as sorted descriptor names,
  "FOR (ANZSRC) Categories" as "code Name" ("1605 Policy and Administration"), "Open Access" as
  "All OA; Gold" or "Closed". "Publication Date" is "2020-06-30", "2020-07" or "2020"; "Pagination"
  "389-393" or an article number.
* The mapping export has the 14 columns of `MAPPING`: "Source title/Anthology title", the organisations
  and their countries as two aligned "; " lists naming no author, and "Cited references": each
  reference ten "|"-separated fields, "[Surname, Given; …]|[ur.… ; ; ]|source|year|volume|issue|
  pages|DOI|pub.…|times cited", "[]" for no authors, empty fields where a value is missing, references
  joined by ";" with no space.
* The real mapping file was saved again by a spreadsheet: no note line, the header padded with empty
  column names to over a thousand columns, and each "Cited references" cell over 32,767 characters cut
  there, its rest written unquoted on the following line(s), whose commas split it into cells and whose
  first cell is no Publication ID. `spreadsheet=True` writes that (with a `cell_limit` a test can
  lower, so that SYNERGY's shorter reference lists are cut too).

Made up, since OpenAlex lacks them: "Publication ID" (pub.<the OpenAlex number>), researcher IDs
(ur.0<the OpenAlex author number>.<2 digits>, for authors with an ORCID), FOR codes (two or four digits
from the OpenAlex concept number, level 0 and 1 concepts), Rank, and which references lose their DOI
(about a third, as older references do), picked by a hash so that the files are the same every run.
"""

from __future__ import annotations

import csv
import hashlib
import io

import pycountry

from bib2graph.ids import normalize_doi, normalize_pmid, short_id
from bib2graph.sources.exports.names import split_name
from bib2graph.sources.records import abstract_from_index

FULL_RECORD_2020 = (
    "Rank", "Publication ID", "DOI", "PMID", "PMCID", "Title", "Source title", "Anthology title", "MeSH terms",
    "Publication Date", "PubYear", "Volume", "Issue", "Pagination", "Open Access", "Publication Type", "Authors",
    "Corresponding Author", "Authors Affiliations", "Times cited", "Recent citations", "RCR", "FCR",
    "Source Linkout", "Dimensions URL", "FOR (ANZSRC) Categories", "Sustainable Development Goals")
FULL_RECORD_2021 = (
    "Rank", "Publication ID", "DOI", "PMID", "PMCID", "Title", "Abstract", "Acknowledgements", "Source title",
    "Anthology title", "MeSH terms", "Publication Date", "PubYear", "Volume", "Issue", "Pagination", "Open Access",
    "Publication Type", "Authors", "Authors (Raw Affiliation)", "Corresponding Author", "Authors Affiliations",
    "Research Organizations - standardized", "GRID IDs", "Country of Research organization", "Funder",
    "Times cited", "Recent citations", "RCR", "FCR", "Altmetric", "Source Linkout", "Dimensions URL",
    "FOR (ANZSRC) Categories", "Sustainable Development Goals", "Publication Date (print)",
    "Publication Date (online)", "Publication Date")
MAPPING = (
    "Publication ID", "DOI", "Title", "Source title/Anthology title", "PubYear", "Volume", "Issue", "Pagination",
    "Authors", "Authors Affiliations - Name of Research organization",
    "Authors Affiliations - Country of Research organization", "Dimensions URL", "Times cited", "Cited references")
CELL_LIMIT = 32_767      # a spreadsheet's longest cell
NOTE = ("About the data: Exported on Jan 15, 2024. Criteria: Text - 'hair AND \"cortisol\"' in title and "
        "abstract. Test data written by tests/dimensions_export.py from CC0 OpenAlex records (SYNERGY); "
        "not a Dimensions export.")
_OA = {"gold": "All OA; Gold", "green": "All OA; Green, Published", "hybrid": "All OA; Hybrid",
       "bronze": "All OA; Bronze"}
_TYPES = {"proceedings-article": "Proceeding", "book-chapter": "Chapter", "book": "Monograph",
          "posted-content": "Preprint", "preprint": "Preprint"}


def pub_id(work) -> str:
    """The made-up Dimensions ID of a work: "pub." and its OpenAlex number."""
    return f"pub.{int(short_id(work['id'])[1:])}"


def _pick(key: str, n: int) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % n


def _clean(text) -> str:
    return " ".join(str(text or "").split())


def _name(text) -> str:
    """A name for a "; "-separated cell: no ";" of its own, and parentheses only when they pair up (the
    affiliation cells use both as separators)."""
    text = _clean(str(text or "").replace(";", ","))
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    return text if depth == 0 else _clean(text.replace("(", " ").replace(")", " "))


def _venue(work) -> str:
    source = ((work.get("primary_location") or {}).get("source") or {}) or (work.get("host_venue") or {})
    return _clean(source.get("display_name"))


def _authors(work) -> list[tuple[str, list[str], dict]]:
    """("Surname, Given", organisations, authorship) of each named author."""
    out = []
    for authorship in work.get("authorships") or []:
        surname, given = split_name(_name((authorship.get("author") or {}).get("display_name")).replace("(", "")
                                    .replace(")", ""))
        if surname:
            orgs = [_name(i.get("display_name")).strip(" ,") for i in authorship.get("institutions") or []]
            out.append((f"{surname}, {given}" if given else surname, [o for o in dict.fromkeys(orgs) if o],
                        authorship))
    return out


def _pagination(work) -> str:
    biblio = work.get("biblio") or {}
    first, last = _clean(biblio.get("first_page")), _clean(biblio.get("last_page"))
    return f"{first}-{last}" if first and last and last != first else first


def _date(work) -> str:
    """"2020-06-30", "2020-06" or "2020", as Dimensions gives dates to the day, month or year."""
    date = work.get("publication_date") or str(work.get("publication_year") or "")
    return date[:(10, 7, 4)[_pick(short_id(work["id"]) + "date", 3)]] if len(date) == 10 else date


def _title(work) -> str:
    """The title; one in ten of the long ones broken as arXiv titles are ("…\\n  …")."""
    title = _clean(work.get("title") or work.get("display_name"))
    cut = title.rfind(" ", 0, 60)
    if len(title) > 60 and cut > 0 and _pick(short_id(work["id"]) + "title", 10) == 0:
        return title[:cut] + "\n  " + title[cut + 1:]
    return title


def _for(work) -> str:
    """Made-up "FOR (ANZSRC) Categories": level 0 and 1 concepts with two- and four-digit codes."""
    out = []
    for concept in work.get("concepts") or []:
        if concept.get("level") in (0, 1) and concept.get("display_name"):
            number = int(short_id(concept["id"])[1:])
            code = f"{number % 90 + 10}" if concept["level"] == 0 else f"{number % 9000 + 1000}"
            out.append(f"{code} {_clean(concept['display_name'])}")
    return "; ".join(dict.fromkeys(out))


def _recent(work) -> int:
    counts = sorted(work.get("counts_by_year") or [], key=lambda c: -c.get("year", 0))
    return sum(c.get("cited_by_count", 0) for c in counts[:2])


def full_record_cells(work, rank: int) -> dict[str, str]:
    """The cells of one work in an "Export full record", by column name."""
    wid, ids = pub_id(work), work.get("ids") or {}
    authors = _authors(work)
    source_type = (((work.get("primary_location") or {}).get("source") or {}).get("type") or "")
    anthology = source_type == "conference"
    biblio = work.get("biblio") or {}
    pmcid = _clean(ids.get("pmcid")).rsplit("/", 1)[-1]
    date = _date(work)
    return {
        "Rank": str(rank), "Publication ID": wid, "DOI": normalize_doi(work.get("doi")) or "",
        "PMID": normalize_pmid(ids.get("pmid")) or "", "PMCID": f"PMC{pmcid}" if pmcid else "",
        "Title": _title(work), "Abstract": abstract_from_index(work.get("abstract_inverted_index")) or "",
        "Source title": "" if anthology else _venue(work), "Anthology title": _venue(work) if anthology else "",
        "MeSH terms": "; ".join(sorted({_clean(m["descriptor_name"]) for m in work.get("mesh") or []})),
        "Publication Date": date, "PubYear": str(work.get("publication_year") or ""),
        "Volume": _clean(biblio.get("volume")), "Issue": _clean(biblio.get("issue")), "Pagination": _pagination(work),
        "Open Access": _OA.get((work.get("open_access") or {}).get("oa_status"), "Closed"),
        "Publication Type": _TYPES.get(work.get("type"), "Article"),
        "Authors": "; ".join(name for name, _, _ in authors),
        "Corresponding Author": "; ".join(f"{name} ({'; '.join(orgs)})" for name, orgs, a in authors
                                          if a.get("is_corresponding")),
        "Authors Affiliations": "; ".join(f"{name} ({'; '.join(orgs)})" for name, orgs, _ in authors),
        "Times cited": str(work.get("cited_by_count") or 0), "Recent citations": str(_recent(work)),
        "Source Linkout": _clean((work.get("best_oa_location") or {}).get("pdf_url")),
        "Dimensions URL": f"https://app.dimensions.ai/details/publication/{wid}", "FOR (ANZSRC) Categories": _for(work),
    }


def _row(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()


def _note(width: int) -> str:
    return _row([NOTE] + [""] * (width - 1))


def full_record_csv(works, *, note: bool = True, columns=FULL_RECORD_2020) -> str:
    """An "Export full record" of `works` (newest first, as Dimensions sorts them), with the "About the
    data" note line unless `note` is false."""
    ordered = sorted(works, key=lambda w: (w.get("publication_date") or "", short_id(w["id"])), reverse=True)
    ranks = {short_id(w["id"]): i + 1 for i, w in enumerate(sorted(ordered, key=lambda w: _pick(w["id"], 10**9)))}
    lines = [_note(len(columns))] if note else []
    lines.append(_row(list(columns)))
    for work in ordered:
        cells = full_record_cells(work, ranks[short_id(work["id"])])
        lines.append(_row([cells.get(c, "") for c in columns]))
    return "".join(lines)


# ------------------------------------------------------------------------------------------ mapping export

def _researcher_ids(work) -> str:
    ids = []
    for _, _, authorship in _authors(work):
        author = authorship.get("author") or {}
        number = int(short_id(author["id"])[1:]) if author.get("orcid") and author.get("id") else None
        ids.append(f"ur.0{number}.{number % 97:02d}" if number else "")
    return "[" + "; ".join(ids) + "]"


def cited_reference(cited, citing_id: str) -> tuple[str, bool]:
    """The "Cited references" entry of `cited` in the record of `citing_id`, and whether it carries the
    DOI (a third of the entries do not, picked per citing and cited work)."""
    biblio = cited.get("biblio") or {}
    doi = normalize_doi(cited.get("doi")) or ""
    if _pick(citing_id + cited["id"], 3) == 0:
        doi = ""
    fields = ["[" + "; ".join(name for name, _, _ in _authors(cited)) + "]", _researcher_ids(cited), _venue(cited),
              str(cited.get("publication_year") or ""), _clean(biblio.get("volume")), _clean(biblio.get("issue")),
              _pagination(cited), doi, pub_id(cited), str(cited.get("cited_by_count") or 0)]
    return "|".join(fields), bool(doi)


def mapping_cells(work, universe) -> tuple[dict[str, str], list[tuple[str, bool]]]:
    """The cells of one work in an "Export for bibliometric mapping", and the (cited work ID, written with
    its DOI) of each entry of its "Cited references", in order: the referenced works `universe` holds."""
    wid = short_id(work["id"])
    refs, cited = [], []
    for ref in sorted(short_id(r) for r in work.get("referenced_works") or []):
        if ref in universe and ref != wid:
            text, with_doi = cited_reference(universe[ref], wid)
            refs.append(text)
            cited.append((ref, with_doi))
    orgs: dict[str, str] = {}
    for _, _, authorship in _authors(work):
        for inst in authorship.get("institutions") or []:
            name = _name(inst.get("display_name")).strip(" ,")
            if name:
                country = pycountry.countries.get(alpha_2=inst.get("country_code") or "")
                orgs.setdefault(name, country.name if country else "")
    full = full_record_cells(work, 0)
    cells = {**full, "Source title/Anthology title": _venue(work),
             "Authors Affiliations - Name of Research organization": "; ".join(orgs),
             "Authors Affiliations - Country of Research organization": "; ".join(orgs.values()) if all(
                 orgs.values()) else "",
             "Cited references": ";".join(refs)}
    return cells, cited


def mapping_csv(works, universe, *, note: bool = True, spreadsheet: bool = False,
                cell_limit: int = CELL_LIMIT) -> tuple[str, dict[str, list[tuple[str, bool]]]]:
    """An "Export for bibliometric mapping" of `works` (in the order given) with the cited works
    `universe` (OpenAlex ID → work) holds, and per work the (cited work ID, written with DOI) of its
    entries. `spreadsheet`: as saved again by a spreadsheet (no note, padded header, cells over
    `cell_limit` characters cut and their rest on the following lines)."""
    rows, cited = [], {}
    for work in works:
        cells, cited[short_id(work["id"])] = mapping_cells(work, universe)
        rows.append([_clean(cells[c]) if c != "Title" else cells[c] for c in MAPPING])
    if not spreadsheet:
        return (_note(len(MAPPING)) if note else "") + "".join(_row(r) for r in [list(MAPPING)] + rows), cited
    return _spreadsheet(rows, cell_limit), cited


def _spreadsheet(rows: list[list[str]], limit: int) -> str:
    """Rows as a spreadsheet saves them: each cell cut at `limit` characters, its rest on lines of their
    own, unquoted; every line padded with empty cells to the widest."""
    lines: list[list[str] | str] = []
    for cells in rows:
        rest = []
        for i, cell in enumerate(cells):
            if len(cell) > limit:
                cells[i], cell = _cut(cell, limit)
                while cell:
                    chunk, cell = _cut(cell, limit) if len(cell) > limit else (cell, "")
                    rest.append(chunk.replace('"', "'"))
        lines.append(cells)
        lines += rest
    width = max(max(len(line.split(",")) if isinstance(line, str) else len(line) for line in lines), len(MAPPING))
    out = [_row(list(MAPPING) + [""] * (width - len(MAPPING)))]
    for line in lines:
        if isinstance(line, str):
            out.append(line + "," * (width - len(line.split(","))) + "\r\n")
        else:
            out.append(_row(line + [""] * (width - len(line))))
    return "".join(out)


def _cut(text: str, limit: int) -> tuple[str, str]:
    """`text` cut at about `limit` characters, so that the rest starts with neither a comma nor a space
    (its first cell, standing in "Publication ID", then holds text)."""
    cut = limit
    while cut > 1 and text[cut] in ", ":
        cut -= 1
    return text[:cut], text[cut:]
