"""RIS files (reference managers, IEEE Xplore, Scopus) as Records, one TY … ER block at a time.

The blocks are cut here, so that every record and every cited reference keeps its line; rispy reads
each block's tags. Scopus RIS writes its cited references as one `N1  - References: …` note whose
references follow one a line, each ending in ";":

    N1  - References: Mayergoyz, I.D., (1986) Phys. Rev. Lett., 56, p. 1518;
    Preisach, F., (1935) Z. Phys., 94, p. 277;

A record with such a note is read as format "scopus-ris". Other producers write each cited reference
as a `CR` tag of its own; a `CR` holding a copyright line (JSTOR, Ovid) is no reference and is left out.

Embase records, in both flavours, are read as format "embase-ris", known by their content (`DB  -
Embase…`, an embase.com link, or an Ovid link into an Embase segment, `D=emed…`/`D=oemezd`):
- Elsevier's embase.com writes the title in `T1` (`T2` is the title in its original language), the
  journal in `JF` and its abbreviation in `JO`, authors in `A1`, the Embase accession number in `U2`
  ("L2040010236"), the PMID of a record also in MEDLINE in `C5`, ISSNs in several `SN` (the print one
  last), Emtree index terms, drug and device names in `KW`, the document type in `M3`;
- Ovid writes the accession number in `ID`/`AN` (digits: the same number as Elsevier's, without "L"),
  the journal in `JF`/`JA`, the DOI as a URL in `DO`, and the link to the record in `L2`/`UR`.
Emtree terms go to `index_keywords` (major-topic stars dropped); neither flavour marks author keywords.

bib2graph's own RIS writes the work ID in `ID` and `AN`: an OpenAlex ID there ("W123") becomes the
record's `openalex` ID.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import parse_qs, unquote, urlparse

from ...errors import DataError
from ...ids import issns, normalize_doi, normalize_pmid
from ...skips import Skips
from . import textfile
from .languages import language_code
from .pubmed import mesh_descriptor
from .record import Author, CitedRef, Origin, Record
from .scopus_refs import split_references
from .vocab import work_type
from .work_ids import own_ids

Line = tuple[int, str]

_YEAR = re.compile(r"\b(\d{4})\b")
_DATE = re.compile(r"^(\d{4})[/-](\d{1,2})[/-](\d{1,2})")
_REFERENCES = "References:"
_COPYRIGHT = re.compile(r"^(?:copyright\b|\(c\)|©)", re.IGNORECASE)
_EMBASE_DB = re.compile(r"^embase\b", re.IGNORECASE)
_OVID_EMBASE = re.compile(r"ovid.*[?&]D=o?em[a-z]*\d*(?:&|$)", re.IGNORECASE)
_EMBASE_LINK = re.compile(r"embase\.com/.*[?&]id=(L\d{8,12})\b", re.IGNORECASE)
_EMBASE_ID = re.compile(r"^L\d{8,12}$")
_OVID_AN = re.compile(r"^\d{8,12}$")
_PMID_ID = re.compile(r"^PMID\s*:?\s*\d{1,9}$", re.IGNORECASE)
_CITED_BY = re.compile(r"cited by\s*:?\s*(\d+)\s*$", re.IGNORECASE)
_PUBMED_PROVIDERS = {"NLM", "PUBMED", "NCBI", "NATIONAL LIBRARY OF MEDICINE"}
_LINK_ACCESSION = re.compile(r"[?&]AN=(\d{1,9})(?:&|$)")
_PMCID = re.compile(r"PMC\d+")
#: one author in Vancouver style, surname then up to four capitals ("Griffiths RR"): Ovid CENTRAL
#: records put all of a work's authors on one line, "Vojtechovsky M, Hort V, Safratova V"
_VANCOUVER = re.compile(r"^[^\W\d_][\w'’.\- ]*\s[A-Z](?:-?[A-Z]){0,3}$")
#: a link to a work's PubMed page (Lens: "L2  - https://pubmed.ncbi.nlm.nih.gov/32789069/")
_PUBMED_LINK = re.compile(r"(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov/pubmed)/(\d{1,9})(?:[/?#]|$)",
                          re.IGNORECASE)
#: Dimensions writes a work's PubMed IDs as notes: "U1  - 35957633 [PMID]", "U2  - PMC9361011 [PMCID]"
_NOTED_ID = re.compile(r"^(\d{1,9}|PMC\d+)\s*\[(PMID|PMCID)\]$", re.IGNORECASE)
_MEDLINE_SEGMENTS = r"med[a-z]*|prem"      # Ovid MEDLINE and its in-process segments
_OVID_MEDLINE = re.compile(rf"ovid.*[?&]D=(?:{_MEDLINE_SEGMENTS})\d*(?:&|$)", re.IGNORECASE)
#: Ovid's segments whose keywords are MeSH headings: MEDLINE and CENTRAL
_OVID_MESH = re.compile(rf"ovid.*[?&]D=(?:{_MEDLINE_SEGMENTS}|cctr)\d*(?:&|$)", re.IGNORECASE)
_PRINT = re.compile(r"\bprint\b", re.IGNORECASE)
# How many lines of a file without any `TY  - ` line are read before it is called not RIS.
_STRAY_LIMIT = 1000


def read_ris(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a RIS file, streamed; blocks that cannot be read go to `skips`."""
    import rispy

    parser = rispy.RisParser(skip_unknown_tags=True)
    count = 0
    for number, (start, block) in enumerate(ris_blocks(textfile.lines(Path(path), name), name, skips), 1):
        fields = parse_block(parser, block, name, start, skips)
        if fields is None:
            continue
        count += 1
        yield _record(fields, block, Origin(name, number, start, "ris"))
    if not count:
        skips.add(name, "", "holds no RIS records")


#: what Ovid writes between its RIS records, passed over without a word: each record's number ("12.")
#: and its "Link to the Ovid Full Text or citation: <URL>" line
_BETWEEN_RECORDS = re.compile(r"^\s*(?:\d+\.\s*|Link to the Ovid Full Text or citation:.*)$")


def ris_blocks(lines: Iterable[str], name: str, skips: Skips,
               keep: Callable[[str | None], bool] | None = None) -> Iterator[tuple[int, list[Line]]]:
    """(first line, numbered lines) of each TY … ER block; stray text (but `_BETWEEN_RECORDS`) and blocks
    without ER go to `skips`. A file whose first lines hold no `TY  - ` is not RIS (FILE_INVALID).
    `keep(tag)` drops the lines it rejects (continuation lines have the tag None)."""
    block: list[Line] | None = None
    stray: list[int] = []
    seen_ty = False
    start = 0
    for number, line in enumerate(lines, 1):
        tag = tag_of(line)
        if tag == "TY":
            if not seen_ty:
                seen_ty = True
                for where in stray:
                    skips.add(name, f"line {where}", "text outside a RIS record (TY … ER); ignored")
            if block is not None:
                skips.add(name, f"line {start}", f"RIS record without ER (a new one starts at line {number}); "
                          "skipped")
            block, start = [(number, line)], number
        elif block is None:
            if line.strip() and not _BETWEEN_RECORDS.match(line):
                if seen_ty:
                    skips.add(name, f"line {number}", "text outside a RIS record (TY … ER); ignored")
                else:
                    stray.append(number)
                    if len(stray) > _STRAY_LIMIT:
                        break
        elif tag == "ER":
            yield start, block + [(number, line)]
            block = None
        elif keep is None or keep(tag):
            block.append((number, line))
    if not seen_ty and stray:
        raise DataError(f"{name}: not a RIS file (no record starts with a `TY  - ` line)", code="FILE_INVALID",
                        details={"file": name})
    if block is not None:
        skips.add(name, f"line {start}", "RIS record without ER at the end of the file; skipped")


def tag_of(line: str) -> str | None:
    """The tag of a `XX  - value` line, None for a continuation line (rispy's rule)."""
    if line[2:5] == "  -" and line[:2].isupper() and line[:1].isalpha():
        return line[:2]
    return None


def parse_block(parser: Any, block: list[Line], name: str, line: int, skips: Skips) -> dict[str, Any] | None:
    """One block read by rispy; a block its internals trip over is skipped, not the file."""
    try:
        found = parser.parse_lines(iter([text for _, text in block]))
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        skips.add(name, f"line {line}", f"RIS record not read ({type(exc).__name__}: {exc}); skipped")
        return None
    if not found:
        skips.add(name, f"line {line}", "RIS record not read; skipped")
        return None
    return found[0]


def _record(f: dict[str, Any], block: list[Line], origin: Origin) -> Record:
    tags = tag_values(block)
    references = scopus_references(block)
    embase = not references and is_embase(tags)
    if references or _text(f.get("name_of_database")).lower() == "scopus":
        origin = Origin(origin.file, origin.record, origin.line, "scopus-ris")
    elif embase:
        origin = Origin(origin.file, origin.record, origin.line, "embase-ris")
    year, date = _year_and_date(f)
    first, last = _pages(f, origin.format == "scopus-ris")
    links = _links(tags)
    if embase or any("ovid.com" in v.lower() for v in links):
        # T2 is the title in its original language here (Embase, Ovid MEDLINE and CENTRAL), JF the journal
        venue = _first(f, "alternate_title3", "journal_name", "alternate_title2")
        abbrev = _first(f, "alternate_title2", "journal_name", "alternate_title1")
    else:
        venue = _first(f, "secondary_title", "alternate_title3", "journal_name", "alternate_title2")
        abbrev = _first(f, "alternate_title1", "alternate_title2")
    keywords = [k for k in (_text(k) for k in _list(f, "keywords")) if k]
    mesh = _mesh(keywords) if not embase and _ovid_mesh(tags, links) else []
    return Record(
        origin=origin, ids=_ids(f, tags, links, embase), doi=_doi(f, tags),
        title=_first(f, "title", "primary_title"),
        year=year, publication_date=date,
        type=_type(f, origin.format != "ris"),
        language=language_code(_text(f.get("language"))),
        venue=venue, venue_abbrev=abbrev if abbrev != venue else None,
        issn=choose_issn(tags.get("SN", []), print_last=embase),
        volume=_first(f, "volume"), issue=_first(f, "number"),
        first_page=first, last_page=last,
        cited_by_count=_cited_by(tags) if origin.format == "scopus-ris" else None,
        abstract=_first(f, "abstract", "notes_abstract"),
        authors=[Author(name=a) for a in _authors(_list(f, "authors") or _list(f, "first_authors"))],
        author_keywords=[] if embase or mesh else keywords,
        index_keywords=_emtree(keywords) if embase else [],
        mesh=mesh,
        references=references or cr_references(block),
    )


def _authors(values: list[str]) -> list[str]:
    """One name per author: a value listing several in Vancouver style (`_VANCOUVER`) is split at its
    commas; "Surname, Given" (one comma, no trailing capitals before it) stays one author."""
    names = []
    for value in (_text(v) for v in values):
        parts = [p.strip() for p in value.split(",")]
        if len(parts) > 1 and all(_VANCOUVER.match(p) for p in parts):
            names.extend(parts)
        elif value:
            names.append(value)
    return names


def _links(tags: dict[str, list[str]]) -> list[str]:
    """The record's links (`UR`, `L2`, `LK`): where producers say which database and record it is."""
    return [v for t in ("UR", "L2", "LK") for v in tags.get(t, [])]


def _ovid_mesh(tags: dict[str, list[str]], links: list[str]) -> bool:
    """A record of Ovid MEDLINE or CENTRAL (its link into such a segment, `_OVID_MESH`, or `DB` naming
    Ovid MEDLINE), whose keywords are MeSH headings."""
    return (any(_OVID_MESH.search(v) for v in links)
            or any("ovid medline" in v.lower() for v in tags.get("DB", [])))


def _mesh(keywords: list[str]) -> list[str]:
    """Ovid MEDLINE's and CENTRAL's keywords are MeSH headings ("*Psilocybin/pd [Pharmacology]"): their
    descriptors, as the PubMed readers keep them; empty when none looks like a heading (a star or a subheading)."""
    if not any(k.startswith("*") or "/" in k for k in keywords):
        return []
    return list(dict.fromkeys(d for d in (mesh_descriptor(k) for k in keywords) if d))


def _cited_by(tags: dict[str, list[str]]) -> int | None:
    """Scopus's citation count, a note "N1  - Cited By :5" (as its BibTeX's "Cited By 5")."""
    return next((int(m.group(1)) for v in tags.get("N1", []) if (m := _CITED_BY.match(v))), None)


def tag_values(block: list[Line]) -> dict[str, list[str]]:
    """Every value of every tag, in order (rispy keeps only the first of a repeated `SN` or `DB`)."""
    values: dict[str, list[str]] = {}
    for _, line in block:
        tag = tag_of(line)
        if tag is not None and (value := _text(line[6:])):
            values.setdefault(tag, []).append(value)
    return values


def is_embase(tags: dict[str, list[str]]) -> bool:
    """An Embase record of embase.com (`DB  - Embase`, an embase.com link) or of Ovid (`DB  - Embase`,
    an Ovid link into an Embase segment such as D=emed23 or D=oemezd)."""
    if any(_EMBASE_DB.match(v) for v in tags.get("DB", [])):
        return True
    links = [v for tag in ("UR", "L2", "LK", "M2") for v in tags.get(tag, [])]
    return any(_EMBASE_LINK.search(v) or _OVID_EMBASE.search(v) for v in links)


def choose_issn(values: list[str], print_last: bool = False) -> str | None:
    """The source's ISSN among `SN` values: one labelled "(Print)" first; else the first, or with
    `print_last` (Embase, both flavours: electronic first, print last) the last."""
    labelled = [i for v in values if _PRINT.search(v) for i in issns(v)]
    found = [i for v in values for i in issns(v)]
    if labelled:
        return labelled[0]
    if found:
        return found[-1] if print_last else found[0]
    return None


def cr_references(block: list[Line]) -> list[CitedRef]:
    """References written one a `CR` tag (continuation lines joined), each with its line; copyright
    statements in `CR` are not references."""
    refs: list[list] = []
    inside = False
    for number, line in block:
        tag = tag_of(line)
        if tag is not None:
            inside = tag == "CR"
            if inside:
                refs.append([number, line[6:].strip()])
        elif inside and line.strip():
            refs[-1][1] = f"{refs[-1][1]} {line.strip()}".strip()
    return [CitedRef(text, number) for number, text in refs if text and not _COPYRIGHT.match(text)]


def _emtree(keywords: list[str]) -> list[str]:
    """Emtree terms without Ovid's major-topic star, each once (embase.com repeats device names)."""
    terms = (k.lstrip("*").strip() for k in keywords)
    return list(dict.fromkeys(t for t in terms if t))


def scopus_references(block: list[Line]) -> list[CitedRef]:
    """The references of a Scopus `N1  - References:` note, each with its line; a line holding
    several references ("a; b; c", as older exports write the whole note) is split as Scopus CSV
    cells are (`scopus_refs.split_references`)."""
    refs: list[CitedRef] = []
    inside = False
    for number, line in block:
        tag = tag_of(line)
        if tag is not None:
            value = line[6:].strip()
            inside = tag == "N1" and value.startswith(_REFERENCES)
            if not inside:
                continue
            line = value[len(_REFERENCES):]
        elif not inside:
            continue
        refs.extend(CitedRef(r.strip(), number) for r in split_references(line.strip().rstrip(";")))
    return refs


def _ids(f: dict[str, Any], tags: dict[str, list[str]], links: list[str], embase: bool) -> dict[str, str]:
    ids: dict[str, str] = {}
    own = _first(f, "id", "accession_number")
    if own:
        ids["ris"] = own
    # bib2graph's RIS and Web of Science's: the work ID by its shape (W…, WOS:…, REC:…), in `ID` or in `AN`
    # (Web of Science writes "ID  - 84", a label, beside "AN  - WOS:…")
    for value in dict.fromkeys(v for v in (_first(f, "id"), _first(f, "accession_number")) if v):
        for scheme, found in own_ids(value).items():
            ids.setdefault(scheme, found)
    for url in _list(f, "urls"):
        eid = parse_qs(urlparse(url).query).get("eid")
        if eid and "scopus" in url.lower():
            ids["scopus"] = eid[0]
    if embase:
        ids.update(_embase_ids(tags, own))
    # Ovid MEDLINE writes the PMID as the record's ID; some exports write "AN  - PMID:123"
    if own and (_PMID_ID.match(own) or not embase and own.isdigit() and any(_OVID_MEDLINE.search(v) for v in links)):
        if pmid := normalize_pmid(own):
            ids["pmid"] = pmid
    if not embase and "pmid" not in ids:
        ids.update(_pubmed_ids(f, tags, links))
    for value in (v for t in ("U1", "U2", "U3", "U4", "U5") for v in tags.get(t, [])):
        if m := _NOTED_ID.match(value.strip()):
            scheme = m.group(2).lower()
            found = normalize_pmid(m.group(1)) if scheme == "pmid" else m.group(1).upper()
            if found:
                ids.setdefault(scheme, found)
    linked = {normalize_pmid(m.group(1)) for v in links if (m := _PUBMED_LINK.search(v))} - {None}
    if "pmid" not in ids and len(linked) == 1:      # links to two PubMed records say nothing of which is this
        ids["pmid"] = linked.pop()
    return ids


def _pubmed_ids(f: dict[str, Any], tags: dict[str, list[str]], links: list[str]) -> dict[str, str]:
    """The PMID (and PMCID) of a PubMed record exported by a reference manager: EndNote writes the PMID
    in `AN` with "DP  - NLM" (and the PMCID in `C2`); Ovid MEDLINE without `ID`/`AN` gives it only as
    its link's `AN=` (`D=medp`)."""
    ids: dict[str, str] = {}
    accession = _first(f, "accession_number")
    if accession and accession.isdigit() and any(v.strip().upper() in _PUBMED_PROVIDERS for v in tags.get("DP", [])):
        pmid = normalize_pmid(accession)
    else:
        pmid = next((normalize_pmid(m.group(1)) for v in links if _OVID_MEDLINE.search(v)
                     and (m := _LINK_ACCESSION.search(v))), None)
    if pmid:
        ids["pmid"] = pmid
        if pmcid := next((v.strip() for v in tags.get("C2", []) if _PMCID.fullmatch(v.strip())), None):
            ids["pmcid"] = pmcid
    return ids


def _embase_ids(tags: dict[str, list[str]], own: str | None) -> dict[str, str]:
    """The Embase accession number (embase.com `U2` or link, Ovid's digits in `ID`/`AN` with its "L")
    and the PMID (embase.com `C5`) of an Embase record."""
    ids: dict[str, str] = {}
    links = (m.group(1) for v in tags.get("UR", []) + tags.get("L2", []) if (m := _EMBASE_LINK.search(v)))
    accession = next((v for v in tags.get("U2", []) if _EMBASE_ID.match(v)), None) or next(links, None)
    if accession is None and own and _OVID_AN.match(own):
        accession = f"L{own}"
    if accession:
        ids["embase"] = accession
    pmid = next((p for v in tags.get("C5", []) if (p := normalize_pmid(v))), None)
    if pmid:
        ids["pmid"] = pmid
    return ids


#: tags outside `DO` where producers write a DOI (EBSCOhost: `L3`, "related records" in the RIS
#: specification), read when `DO` has none; only a value that is a DOI counts
DOI_TAGS = ("L3", "DI")


def tagged_doi(tags: dict[str, list[str]]) -> str | None:
    """The first value of `DOI_TAGS` (`tag_values`' tags) that is a DOI."""
    return next((doi for tag in DOI_TAGS for value in tags.get(tag, []) if (doi := normalize_doi(value))), None)


def _doi(f: dict[str, Any], tags: dict[str, list[str]]) -> str | None:
    """`DO` (bare or as a URL), else a DOI in `DOI_TAGS`, else a doi.org URL's DOI in `UR` or `L2`
    (percent-escapes undone)."""
    doi = normalize_doi(_text(f.get("doi")))
    if doi:
        return doi
    if found := tagged_doi(tags):
        return found
    for url in _list(f, "urls") + tags.get("L2", []):
        if "doi.org/" in url.lower() and (found := normalize_doi(unquote(url.strip()))):
            return found
    return None


def _year_and_date(f: dict[str, Any]) -> tuple[int | None, str | None]:
    """The year of `PY`, `Y1` ("1 Jan.-Feb. 2019", "2019/01/15/") or `DA`; an ISO date when `DA` or
    `Y1` give year, month and day."""
    date = None
    for key in ("date", "publication_year", "year"):
        match = _DATE.match(_text(f.get(key)))
        if match:
            y, m, d = (int(g) for g in match.groups())
            if 1 <= m <= 12 and 1 <= d <= 31:
                date = f"{y:04d}-{m:02d}-{d:02d}"
                break
    for key in ("year", "publication_year", "date"):
        match = _YEAR.search(_text(f.get(key)))
        if match:
            return int(match.group(1)), date
    return None, date


def _type(f: dict[str, Any], typed: bool) -> str | None:
    """Scopus and Embase RIS write the document type ("Review", "Conference Paper", "Conference
    Abstract") in `M3`; `TY` says only JOUR."""
    found = work_type(_text(f.get("type_of_work"))) if typed else None
    return found if found not in (None, "other") else work_type(_text(f.get("type_of_reference")))


def _pages(f: dict[str, Any], scopus: bool) -> tuple[str | None, str | None]:
    """`SP`/`EP`; an `SP` of "12-34" is both; Scopus puts an article number in `C7`."""
    first, last = _first(f, "start_page"), _first(f, "end_page")
    if first and not last and re.fullmatch(r"\w+\s*[-–]+\s*\w+", first):
        first, last = (p.strip() for p in re.split(r"[-–]+", first, maxsplit=1))
    if not first and scopus:
        first = _first(f, "custom7")
    return first, last


def _first(f: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = f.get(key)
        value = value[0] if isinstance(value, list) and value else value
        if text := _text(value):
            return text
    return None


def _list(f: dict[str, Any], key: str) -> list[str]:
    value = f.get(key)
    values = value if isinstance(value, list) else [value] if value else []
    return [t for t in (_text(v) for v in values) if t]


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""
