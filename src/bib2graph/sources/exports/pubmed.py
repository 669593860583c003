"""PubMed/MEDLINE tagged text ("Save" → Format: PubMed, the .nbib / .txt files PubMed and Ovid MEDLINE
write) as `Record`s.

Each record starts with a "PMID- " line and records are separated by blank lines. A field is a tag of
up to four capitals padded to four columns, "- " and its value ("TI  - Title"); continuation lines
start with six spaces and continue the value. Repeated tags are items: FAU/AU (authors, in byline
order: FAU the full "Surname, Given", AU the short "Surname GI"), AD (the affiliation of the author just
named; one before any author is the first author's, as in records before 2014), AUID (an author's
ORCID), CN (a collective author), MH (MeSH headings: "Sequence Alignment/*methods" is the descriptor
"Sequence Alignment"), OT (other terms: the authors' keywords), PT (publication types), IS (ISSNs:
the linking ISSN before the print one before the electronic one), LID/AID (article IDs: the one
marked "[doi]" is the DOI). DP "2019 Mar 15" gives the year and the date; "2019 Spring" or
"2018 Dec-2019 Jan" only the year.

Read a line at a time. A record without a usable PMID is reported to `skips` with its line; a file with
no record at all is a DataError. MEDLINE text carries no cited references.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Iterable, Iterator

from ...errors import DataError
from ...ids import normalize_doi, normalize_issn, normalize_pmid
from ...skips import Skips
from .affiliation import institution
from .languages import language_code
from .record import Author, Institution, Origin, Record
from .textfile import lines as text_lines
from .vocab import work_type

_TAG = re.compile(r"([A-Z][A-Z0-9]{0,3}) *-(?: (.*)|)$")
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_FULL_DATE = re.compile(r"^(\d{4}) ([A-Za-z]{3})[a-z]* (\d{1,2})$")
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)\b")
_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
_EMAIL = re.compile(r"\s*(?:Electronic address:\s*)?[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+\.?")
_PAGES = re.compile(r"^([A-Za-z]*)(\d+)([A-Za-z]*)\s*[-–]\s*([A-Za-z]*)(\d+)([A-Za-z]*)$")
_ISSN_KINDS = ("linking", "print", "electronic")
# PubMed publication types that decide a work's type over "Journal Article", most telling first.
_TYPE_ORDER = (("retraction of publication", "retraction"), ("published erratum", "erratum"),
               ("systematic review", "review"), ("review", "review"), ("editorial", "editorial"),
               ("letter", "letter"), ("preprint", "preprint"), ("journal article", "article"))


def read_pubmed(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The records of a PubMed/MEDLINE text export, one at a time."""
    seen = 0
    for number, (start, fields) in enumerate(_blocks(text_lines(path, name), name, skips), 1):
        seen += 1
        origin = Origin(name, number, start, "pubmed")
        record = _record(origin, fields)
        if isinstance(record, str):
            skips.add(name, origin.where(), record)
        else:
            yield record
    if not seen:
        raise DataError(f"{name}: not a PubMed/MEDLINE export (no record starts with PMID-)",
                        code="FILE_INVALID", details={"file": name})


Field = tuple[str, str]   # (tag, value with its continuation lines joined)


def _blocks(lines: Iterable[str], name: str, skips: Skips) -> Iterator[tuple[int, list[Field]]]:
    """(line of its first field, its fields) of every run of field lines between blank lines."""
    fields: list[list[str]] = []
    start = 0
    for lineno, line in enumerate(lines, 1):
        line = line.lstrip("\ufeff")
        if not line.strip():
            if fields:
                yield start, [(tag, " ".join(value.split())) for tag, value in fields]
                fields = []
            continue
        if line[:1] in (" ", "\t"):
            if fields:
                fields[-1][1] += " " + line.strip()
            else:
                skips.add(name, f"line {lineno}", "a continuation line outside a record; ignored")
            continue
        match = _TAG.match(line.rstrip())
        if not match:
            if not start:
                raise DataError(f"{name}: line {lineno} is not a MEDLINE field (a tag, \"- \" and its value); "
                                "not a PubMed/MEDLINE export", code="FILE_INVALID",
                                details={"file": name, "line": lineno})
            skips.add(name, f"line {lineno}", "neither a field tag nor a continuation line; ignored")
            continue
        if not fields:
            start = lineno
        elif match.group(1) == "PMID":   # no blank line between two records
            yield start, [(tag, " ".join(value.split())) for tag, value in fields]
            fields, start = [], lineno
        fields.append([match.group(1), match.group(2) or ""])
    if fields:
        yield start, [(tag, " ".join(value.split())) for tag, value in fields]


def _record(origin: Origin, fields: list[Field]) -> Record | str:
    """The Record of one block's fields, or why there is none."""
    if not fields or fields[0][0] != "PMID":
        return f"no PMID- line starts this record (it starts with {fields[0][0]}-)"
    pmid = normalize_pmid(fields[0][1])
    if pmid is None:
        return f"PMID- {fields[0][1][:40]!r} is not a PubMed ID"
    one: dict[str, str] = {}
    many: dict[str, list[str]] = {}
    for tag, value in fields:
        if value:
            one.setdefault(tag, value)
            many.setdefault(tag, []).append(value)
    types = many.get("PT", [])
    year, published = publication_date(one.get("DP"))
    first, last = pages(one.get("PG"))
    authors, institutions = _authors(fields)
    ids = {"pmid": pmid}
    if pmcid := one.get("PMC"):
        ids["pmcid"] = pmcid
    return Record(
        origin=origin, ids=ids, doi=_doi(many.get("LID", []) + many.get("AID", [])),
        title=one.get("TI") or one.get("BTI"), year=year, publication_date=published,
        type=pubmed_type(types), language=language_code(one.get("LA")), venue=one.get("JT"),
        venue_abbrev=one.get("TA"), issn=pick_issn(_issn_pairs(many.get("IS", []))), volume=one.get("VI"),
        issue=one.get("IP"), first_page=first, last_page=last, abstract=one.get("AB"),
        is_retracted=is_retracted(types), authors=authors, institutions=institutions,
        author_keywords=_unique(many.get("OT", [])), mesh=_unique(mesh_descriptor(h) for h in many.get("MH", [])))


def _authors(fields: list[Field]) -> tuple[list[Author], list[Institution]]:
    """Authors in byline order with their affiliations and ORCIDs, and the institutions they name."""
    people: list[dict] = []
    institutions: list[Institution] = []
    by_address: dict[str, int] = {}
    pending: list[int] = []   # AD lines before any author: the first author's
    for tag, value in fields:
        if tag == "FAU" or tag == "CN" or tag == "AU" and (not people or "short" in people[-1] or
                                                           people[-1].get("collective")):
            people.append({"collective": True} if tag == "CN" else {})
        if not value or tag not in ("FAU", "AU", "CN", "AD", "AUID"):
            continue
        if tag == "FAU":
            people[-1]["full"] = value
        elif tag == "AU":
            people[-1]["short"] = value
        elif tag == "CN":
            people[-1]["short"] = value
        elif tag == "AUID" and people and (orcid := _ORCID.search(value)):
            people[-1].setdefault("ids", []).append(("orcid", orcid.group(0)))
        elif tag == "AD":
            index = affiliation_index(value, institutions, by_address)
            if index is not None:
                (people[-1].setdefault("affiliations", []) if people else pending).append(index)
    if people and pending:
        people[0]["affiliations"] = pending + people[0].get("affiliations", [])
    authors = [Author(name=p.get("short") or p["full"], full_name=p.get("full"),
                      ids=tuple(dict.fromkeys(p.get("ids", ()))),
                      affiliations=tuple(dict.fromkeys(p.get("affiliations", ()))))
               for p in people if p.get("short") or p.get("full")]
    return authors, institutions


def affiliation_index(address: str, institutions: list[Institution], by_address: dict[str, int]) -> int | None:
    """The index of the address's Institution in `institutions` (added when new); e-mail addresses
    at the end of the address are left out. None for an address that is only an e-mail address."""
    address = _EMAIL.sub("", address).strip(" .;,")
    if not address:
        return None
    if address not in by_address:
        by_address[address] = len(institutions)
        institutions.append(institution(address))
    return by_address[address]


def _doi(article_ids: list[str]) -> str | None:
    """The DOI among LID/AID values ("10.1/x [doi]"; "S0140-… [pii]" is not one)."""
    for value in article_ids:
        body, _, kind = value.rpartition("[")
        if kind.strip(" ]").lower() == "doi" and (doi := normalize_doi(body.strip())):
            return doi
    return None


def _issn_pairs(values: list[str]) -> list[tuple[str, str]]:
    """(kind, ISSN) of IS values ("1471-2105 (Electronic)")."""
    pairs = []
    for value in values:
        number, _, kind = value.partition("(")
        pairs.append((kind.strip(" )").lower(), number.strip()))
    return pairs


def pick_issn(pairs: list[tuple[str, str]]) -> str | None:
    """The journal's ISSN among (kind, value) pairs: linking, else print, else electronic, else any."""
    found = [(kind, issn) for kind, value in pairs if (issn := normalize_issn(value))]
    for wanted in _ISSN_KINDS:
        for kind, issn in found:
            if kind == wanted:
                return issn
    return found[0][1] if found else None


def publication_date(value: str | None) -> tuple[int | None, str | None]:
    """(year, ISO date or None) of a MEDLINE date: "2019 Mar 15" → (2019, "2019-03-15"); "2019 Spring",
    "2018 Dec-2019 Jan", "2006" → the year only."""
    value = " ".join((value or "").split())
    year = _YEAR.match(value)
    if not year:
        return None, None
    match = _FULL_DATE.match(value)
    return int(year.group(1)), iso_date(match.group(1), match.group(2), match.group(3)) if match else None


def iso_date(year: str | None, month: str | None, day: str | None) -> str | None:
    """ISO date of a year, a month (name or number) and a day, when they make one."""
    month = (month or "").strip()
    number = _MONTHS.get(month[:3].lower()) if month[:1].isalpha() else int(month) if month.isdigit() else None
    if not (year and year.isdigit() and number and day and day.strip().isdigit()):
        return None
    try:
        return date(int(year), number, int(day)).isoformat()
    except ValueError:
        return None


def pages(value: str | None) -> tuple[str | None, str | None]:
    """(first, last) page of a MEDLINE page range, its last page written short: "123-9" → ("123", "129"),
    "R67-99" → ("R67", "R99"), "e0123" → ("e0123", None); of several ranges ("1-5, 9") the first."""
    value = (value or "").split(",")[0].split(";")[0].strip()
    if not value:
        return None, None
    match = _PAGES.match(value)
    if not match:
        return value, None
    prefix, first, suffix, prefix2, last, suffix2 = match.groups()
    if len(last) < len(first):
        last = first[:len(first) - len(last)] + last
    return f"{prefix}{first}{suffix}", f"{prefix2 or prefix}{last}{suffix2}"


def pubmed_type(types: list[str]) -> str | None:
    """OpenAlex's work type for PubMed publication types ("Review" → review, "Journal Article" → article);
    other types ("Comparative Study") by `vocab.work_type`."""
    folded = {t.strip().lower() for t in types}
    for label, kind in _TYPE_ORDER:
        if label in folded:
            return kind
    return work_type(types[0]) if types else None


def is_retracted(types: list[str]) -> bool:
    return any(t.strip().lower() == "retracted publication" for t in types)


def mesh_descriptor(heading: str) -> str:
    """The descriptor of a MeSH heading without qualifiers and major-topic marks:
    "Information Storage and Retrieval/*methods" → "Information Storage and Retrieval"."""
    return heading.split("/")[0].strip().lstrip("*").strip()


def _unique(values: Iterable[str]) -> list[str]:
    return [v for v in dict.fromkeys(v.strip() for v in values) if v]
