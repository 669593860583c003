"""Web of Science exports as `Record`s: plain text ("Other file formats" → Plain text) and tab-delimited.

Plain text is tagged: a two-letter field tag, a space and the value; continuation lines start with
three spaces. Records run from PT to ER, optionally after an FN/VR header, and the file ends with EF.
In the list fields (AU, AF, C1, CR …) every line is one item; in the others continuation lines
continue the text. The tab-delimited export has a header row of the same tags and one record a row,
list fields joined with "; " (UTF-8 or UTF-16 LE with a BOM, rows often ending in a stray tab).

Both are read a line at a time, so an export of any size is read in bounded memory. A record without
an accession number (UT) or cut off before its ER is reported to `skips`; a file that is no WoS
export at all is a DataError.

C1 addresses link authors when they start with a bracketed list of authors ("[Owen-Smith, J; Powell,
WW] Univ Michigan, Dept Sociol, Ann Arbor, MI 48104 USA."), named by their full (AF) or short (AU)
name. Addresses without brackets link every author when the record has no bracketed ones (as in
exports before 2008, or a single author); next to bracketed ones they link nobody.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from itertools import chain
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ... import textio
from ...errors import DataError
from ...ids import normalize_doi, normalize_issn
from ...skips import Skips
from . import textfile
from .countries import country_code
from .record import Author, CitedRef, Institution, Origin, Record
from .languages import language_code
from .names import ascii_text
from .vocab import work_type

OnRecord = Callable[[int], None]

# Fields whose plain-text lines are separate items; in the tab export they are joined with "; ".
LIST_TAGS = frozenset({"AU", "AF", "BA", "BF", "BE", "CA", "GP", "C1", "CR"})
_TAG = re.compile(r"[A-Z][A-Z0-9]")
_UT = re.compile(r"^(?:(WOS|ISI):)?(\d+)$", re.IGNORECASE)
_MONTHS = {m: i for i, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 1)}
_DAY_DATE = re.compile(r"^([A-Z]{3})\s+(\d{1,2})(?:\s+\d{4})?$", re.IGNORECASE)
_ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
_EMAIL_NOTE = re.compile(r"\s*\([^()\s]*@[^()\s]*\)\s*$")
_RETRACTED_TITLE = re.compile(r"^\s*retracted\s*:|\(retracted article\b", re.IGNORECASE)


def read_wos(path: Path, name: str, skips: Skips, on_record: OnRecord | None = None) -> Iterator[Record]:
    """The records of a WoS plain-text export, one at a time. `on_record`, when given, is called with
    the number of records read so far after each one (for a progress bar)."""
    count = seen = 0
    with textfile.open_binary(path, name) as stream:
        for block in _blocks(textio.lines(stream, name), name, skips):
            seen += 1
            origin = Origin(name, block.number, block.start, "wos")
            if not block.ended:
                skips.add(name, origin.where(), "cut off: no ER line ends it")
                continue
            fields = block.fields
            cited = [CitedRef(raw, line) for raw, line in zip(fields.get("CR", ()), block.cr_lines)]
            text = {tag: " ".join(values) for tag, values in fields.items() if tag not in LIST_TAGS}
            items = {tag: values for tag, values in fields.items() if tag in LIST_TAGS}
            record = _record(origin, text, items, cited, name, skips)
            if record is not None:
                count += 1
                if on_record:
                    on_record(count)
                yield record
    if not seen:
        raise DataError(f"{name}: not a Web of Science plain-text export (no record starts with PT)",
                        code="FILE_INVALID", details={"file": name})


def read_wos_tab(path: Path, name: str, skips: Skips, on_record: OnRecord | None = None) -> Iterator[Record]:
    """The records of a WoS tab-delimited export, one row at a time (or of one a spreadsheet re-saved
    with commas, quoted as CSV); `on_record` as in `read_wos`."""
    count = 0
    with textfile.open_binary(path, name) as raw:
        codec, bom = textio.detect(raw.read(4))
        raw.seek(bom)
        text = io.TextIOWrapper(raw, encoding=codec, newline="")
        _allow_long_cells()
        rows = None
        try:
            first = text.readline(1 << 20)   # the header row: a binary file has no line to wait for
            rows = (csv.reader(chain([first], text)) if _resaved_with_commas(first)
                    else csv.reader(chain([first], text), delimiter="\t", quoting=csv.QUOTE_NONE))
            header = [h.strip() for h in next(rows, [])]
            if "UT" not in header:
                raise DataError(f"{name}: not a Web of Science tab-delimited export (no UT column in the "
                                "header row)", code="FILE_INVALID", details={"file": name})
            for number, row in enumerate(rows, 1):
                line = rows.line_num
                if not any(cell.strip() for cell in row):
                    continue
                if misfit := _misfit(header, row):
                    skips.add(name, f"record {number}, line {line}", f"{misfit}; skipped")
                    continue
                cells = {tag: cell.strip() for tag, cell in zip(header, row) if tag and cell.strip()}
                items = {tag: _split_list(tag, cells[tag]) for tag in LIST_TAGS if tag in cells}
                cited = [CitedRef(raw_ref, line) for raw_ref in items.get("CR", ())]
                record = _record(Origin(name, number, line, "wos-tab"), cells, items, cited, name, skips)
                if record is not None:
                    count += 1
                    if on_record:
                        on_record(count)
                    yield record
        except UnicodeDecodeError as exc:
            line = rows.line_num + 1 if rows is not None else 1   # None: in the header row
            raise DataError(f"{name}: line {line} is not valid {codec.upper()} ({exc.reason}); "
                            "save the file as UTF-8", code="FILE_ENCODING",
                            details={"file": name, "line": line, "encoding": codec}) from None
        except csv.Error as exc:
            raise DataError(f"{name}: line {rows.line_num}: not a readable tab-delimited row ({exc})",
                            code="FILE_INVALID", details={"file": name, "line": rows.line_num}) from None


def _resaved_with_commas(header: str) -> bool:
    """Whether the header row is a tab-delimited export's re-saved as comma-separated values (a
    spreadsheet's "Save as CSV"): no tab, and UT among its comma-separated, possibly quoted, names."""
    return "\t" not in header and "UT" in (h.strip().strip('"') for h in header.rstrip("\r\n").split(","))


def _misfit(header: list[str], row: list[str]) -> str | None:
    """Why a tab-delimited row does not fit its header: fewer cells (the file or the row cut short), or
    text beyond the header's columns (a tab inside a cell shifts every column after it). Rows ending in
    one more, empty, cell are as Web of Science writes them."""
    if len(row) < len(header):
        return f"{len(row)} cells where the header has {len(header)}"
    if any(cell.strip() for cell in row[len(header):]):
        return f"text beyond the header's {len(header)} columns"
    return None


class _Block:
    """One PT…ER block: tag → its lines (first and continuation), and the line number of each CR line."""

    __slots__ = ("number", "start", "fields", "cr_lines", "ended")

    def __init__(self, number: int, start: int) -> None:
        self.number, self.start, self.ended = number, start, False
        self.fields: dict[str, list[str]] = {}
        self.cr_lines: list[int] = []


def _blocks(lines: Iterable[str], name: str, skips: Skips) -> Iterator[_Block]:
    """Every PT…ER block, `ended` False when the file stops or a new PT comes before its ER. Header
    (FN, VR) and end (EF) lines are passed over; other text outside a record is reported."""
    block: _Block | None = None
    values: list[str] | None = None    # the lines of the field being read
    is_cr = False
    number = 0
    for lineno, line in enumerate(lines, 1):
        if line[:1] in (" ", "\t"):
            value = line.strip()
            if value and values is not None:
                values.append(value)
                if is_cr:
                    block.cr_lines.append(lineno)
            continue
        line = line.rstrip().lstrip("\ufeff")   # a BOM: exports concatenated with `cat`
        if not line:
            continue
        tag = line[:2]
        if line[2:3] not in ("", " ") or not _TAG.fullmatch(tag):
            if not number:   # before any record: this is no plain-text export (a tab-delimited one?)
                raise DataError(f"{name}: line {lineno} is not a Web of Science field (a two-letter tag and "
                                "a space); not a WoS plain-text export", code="FILE_INVALID",
                                details={"file": name, "line": lineno})
            skips.add(name, f"line {lineno}", "neither a field tag nor a continuation line; ignored")
            continue
        if tag == "PT":
            if block is not None:
                yield block
            number += 1
            block = _Block(number, lineno)
        elif tag == "ER":
            if block is not None:
                block.ended = True
                yield block
            block = values = None
            continue
        elif block is None:
            if tag not in ("FN", "VR", "EF"):
                skips.add(name, f"line {lineno}", f"field {tag} outside a PT…ER record; ignored")
            values = None
            continue
        values = block.fields.setdefault(tag, [])
        is_cr = tag == "CR"
        value = line[3:].strip()
        if value:
            values.append(value)
            if is_cr:
                block.cr_lines.append(lineno)
    if block is not None:
        yield block


def _split_list(tag: str, cell: str) -> list[str]:
    """The items of a tab-export list cell: "; "-separated, except inside a C1 bracket of authors."""
    if tag != "C1":
        return [p.strip() for p in cell.split("; ") if p.strip()]
    items, depth, current = [], 0, []
    for char in cell:
        depth += (char == "[") - (char == "]")
        if char == ";" and depth <= 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return [i.strip() for i in items if i.strip()]


def _record(origin: Origin, text: dict[str, str], items: dict[str, list[str]], cited: list[CitedRef],
            name: str, skips: Skips) -> Record | None:
    """One Record from the fields of a block or row. A record without its UT is keyed by its DOI or
    PMID (`entries.native_id`); None (reported) when it has none of the three."""
    ut = _wos_id(text.get("UT"))
    pmid = (text.get("PM") or "").strip()
    ids = {"wos": ut} if ut is not None else {}
    if pmid.isascii() and pmid.isdigit():
        ids["pmid"] = pmid
    if ut is None and "pmid" not in ids and normalize_doi(text.get("DI")) is None:
        skips.add(name, origin.where(), "no accession number (UT), DOI or PMID: cannot tell this record apart")
        return None
    year = _int(text.get("PY")) or _int(text.get("EY"))   # EY: the year of an early-access record
    title = text.get("TI") or None
    doc_type = text.get("DT") or ""
    names = _Names(_without_emails(items.get("AU", [])), _without_emails(items.get("AF", [])))
    addresses = items.get("C1", [])
    if origin.format == "wos":        # plain text: an address may wrap over lines
        addresses = _whole_addresses(addresses, names)
    institutions, links = _affiliations(addresses, names)
    return Record(
        origin=origin, ids=ids, doi=normalize_doi(text.get("DI")), title=title, year=year,
        publication_date=_full_date(text.get("PD"), year), type=_work_type(doc_type, text.get("PT")),
        language=language_code(text.get("LA")), venue=text.get("SO") or None,
        issn=normalize_issn(text.get("SN")) or normalize_issn(text.get("EI")),
        venue_abbrev=text.get("J9") or text.get("JI") or None, volume=text.get("VL") or None,
        issue=text.get("IS") or None, first_page=text.get("BP") or text.get("AR") or None,
        last_page=text.get("EP") or None,
        cited_by_count=_int(text.get("Z9")) if text.get("Z9") else _int(text.get("TC")),
        abstract=text.get("AB") or None, is_retracted=_retracted(title, doc_type),
        authors=_authors(names, text.get("OI"), text.get("RI"), links),
        institutions=institutions, author_keywords=_keywords(text.get("DE")),
        index_keywords=_keywords(text.get("ID")), references=cited)


def _wos_id(value: str | None) -> str | None:
    """"WOS:000…" for a Web of Science accession number in any of its forms; IDs of the other
    databases an "All Databases" export holds (MEDLINE:…, BCI:…) as given."""
    value = (value or "").strip()
    if not value:
        return None
    match = _UT.match(value)
    return f"WOS:{match.group(2)}" if match else value


def _int(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isascii() and value.isdigit() else None


def _full_date(pd: str | None, year: int | None) -> str | None:
    """ISO date when PD names month and day ("JAN 15"); WoS gives only a month or season otherwise."""
    match = _DAY_DATE.match((pd or "").strip())
    if not match or year is None or match.group(1).upper() not in _MONTHS:
        return None
    try:
        return date(year, _MONTHS[match.group(1).upper()], int(match.group(2))).isoformat()
    except ValueError:
        return None


#: OpenAlex's type by the publication type (PT) of a record without a document type (DT): a journal's or a
#: conference's item is an article, a book a book (S, a series, and P, a patent, say nothing of the item)
_BY_PUBLICATION_TYPE = {"J": "article", "C": "article", "B": "book"}


def _work_type(doc_type: str, publication_type: str | None = None) -> str | None:
    """OpenAlex's type for a WoS document type; "Article; Proceedings Paper" is typed by its first part;
    without one, by the publication type (`_BY_PUBLICATION_TYPE`)."""
    if not doc_type.strip():
        return _BY_PUBLICATION_TYPE.get((publication_type or "").strip().upper())
    return work_type(doc_type.split(";")[0])


def _retracted(title: str | None, doc_type: str) -> bool:
    """WoS marks retracted papers with the type "Retracted Publication" and titles "RETRACTED: …" or
    "… (Retracted article …)"; a retraction notice itself (type Retraction) is not retracted."""
    types = {p.strip().casefold() for p in doc_type.split(";")}
    return "retracted publication" in types or bool(title and _RETRACTED_TITLE.search(title))


def _keywords(value: str | None) -> list[str]:
    return [k.strip() for k in (value or "").split(";") if k.strip()]


def name_key(name: str) -> str:
    """A person's name without case, accents, spaces and punctuation: "Owen-Smith, Jason" → "owensmith,jason"."""
    surname, _, given = ascii_text(name).casefold().partition(",")
    return _NOT_LETTER.sub("", surname) + "," + _NOT_LETTER.sub("", given)


def initials_key(name: str) -> str:
    """Surname and initials, the form AU gives: "Uluagac, A. Selcuk" and "Uluagac, AS" → "uluagac,as"."""
    surname, _, given = ascii_text(name).partition(",")
    letters = [token if token.isupper() and len(token) <= 4 else token[0]   # "WW", "AS": initials run together
               for token in _GIVEN_PARTS.split(given.strip()) if token]
    return _NOT_LETTER.sub("", surname.casefold()) + "," + "".join(letters).casefold()


_NOT_LETTER = re.compile(r"[^a-z]")
_GIVEN_PARTS = re.compile(r"[\s.\-]+")


class _Names:
    """Finds authors by a name as C1 brackets, OI and RI write it: as AF or AU write it, else by full
    name, initials or first initial. Keys are made only when a name is not found as written: most
    records need none."""

    def __init__(self, short: list[str], full: list[str]) -> None:
        self.short, self.full = short, full
        self._as_written: dict[str, list[int]] | None = None
        self._keys: tuple[dict[str, set[int]], ...] | None = None

    def find(self, name: str) -> list[int]:
        """The authors `name` names; by first initial only when that leaves one author ("Coleman,
        David" in OI is "Coleman, David J." in AF)."""
        if self._as_written is None:
            self._as_written = {}
            for index, form in self._forms():
                found = self._as_written.setdefault(form, [])
                if index not in found:
                    found.append(index)
        if name in self._as_written:
            return self._as_written[name]
        if self._keys is None:
            self._keys = ({}, {}, {})
            for index, form in self._forms():
                for keys, key in zip(self._keys, _name_keys(form)):
                    keys.setdefault(key, set()).add(index)
        exact, initials, first = (keys.get(key, set()) for keys, key in zip(self._keys, _name_keys(name)))
        return sorted(exact or initials or (first if len(first) == 1 else ()))

    def _forms(self) -> Iterator[tuple[int, str]]:
        """(author index, name) for every AF then AU name, full names first."""
        for names in (self.full, self.short):
            for index, form in enumerate(names):
                if form.strip():
                    yield index, form


def _name_keys(name: str) -> tuple[str, str, str]:
    if not name.strip():
        return ("",) * 3
    initials = initials_key(name)
    return name_key(name), initials, initials[:initials.index(",") + 2]


def _affiliations(lines: list[str], names: _Names) -> tuple[list[Institution], dict[int, list[int]]]:
    """Institutions of the C1 addresses, and author index → institution indexes."""
    institutions: list[Institution] = []
    by_address: dict[str, int] = {}
    links: dict[int, list[int]] = {}
    split = [_split_address(line, names) for line in lines]
    bracketed = any(authors is not None for authors, _ in split)
    n_authors = max(len(names.short), len(names.full))
    for authors, address in split:
        address = address.rstrip(". ").strip()
        if not address:
            continue
        if address not in by_address:
            by_address[address] = len(institutions)
            institutions.append(Institution(name=address.split(",")[0].strip(), address=address,
                                            country=country_code(address)))
        index = by_address[address]
        if authors is None:
            linked = [] if bracketed else list(range(n_authors))
        else:
            linked = [i for author in authors for i in names.find(author)]
        for author in linked:
            if index not in links.setdefault(author, []):
                links[author].append(index)
    return institutions, links


def _without_emails(names: list[str]) -> list[str]:
    """Author names without the e-mail address some databases of the Web of Science platform write
    after them (Zoological Record: "Stillman, Andrew N. (andrew.stillman@uconn.edu)")."""
    return [_EMAIL_NOTE.sub("", name) if "@" in name else name for name in names]


def _whole_addresses(lines: list[str], names: _Names) -> list[str]:
    """Plain-text C1 lines, one address each. The Core Collection writes one address a line (each
    ending with a period, or opening a bracket of authors); other databases of the platform (Zoological
    Record) write "Author; address" wrapped over lines, where a line opens an address only when it
    starts with an author's name and "; " (a line may end with an abbreviation's period: "Succ.")."""
    named = any(_named_author(line, names) for line in lines)
    addresses: list[str] = []
    for line in lines:
        opens = line.startswith("[") or (_named_author(line, names) if named
                                          else not addresses or addresses[-1].rstrip().endswith("."))
        if opens:
            addresses.append(line)
        else:
            addresses[-1] = f"{addresses[-1].rstrip()} {line.strip()}"
    return addresses


def _named_author(line: str, names: _Names) -> bool:
    """Whether a C1 item starts "Name; " with the name of one of the record's authors."""
    if line.startswith("["):
        return False
    person, separator, _ = line.partition("; ")
    return bool(separator) and bool(names.find(person.strip()))


def _split_address(line: str, names: _Names) -> tuple[list[str] | None, str]:
    """(the bracketed author names or None, the address) of one C1 item; an item "Name; address"
    (Zoological Record) names its author as a bracket does."""
    if not line.startswith("["):
        if _named_author(line, names):
            person, _, rest = line.partition("; ")
            return [person.strip()], rest.strip()
        return None, line.strip()
    close = line.find("]")
    if close < 0:
        return None, line.strip()
    return [n.strip() for n in line[1:close].split(";") if n.strip()], line[close + 1:].strip()


def _authors(names: _Names, orcids: str | None, researcher_ids: str | None,
             links: dict[int, list[int]]) -> list[Author]:
    """Authors in byline order: AU and AF pair up by position; OI and RI IDs go to the author whose
    name they carry, when exactly one does."""
    short, full = names.short, names.full
    ids: dict[int, list[tuple[str, str]]] = {}
    for scheme, value in (("orcid", orcids), ("researcherid", researcher_ids)):
        for entry in (value or "").split(";"):
            person, _, identifier = (part.strip() for part in entry.rpartition("/"))
            if not person or not identifier or scheme == "orcid" and not _ORCID.fullmatch(identifier):
                continue
            found = names.find(person)
            if len(found) == 1 and (scheme, identifier) not in ids.get(found[0], []):
                ids.setdefault(found[0], []).append((scheme, identifier))
    authors = []
    for index in range(max(len(short), len(full))):
        name = short[index] if index < len(short) else full[index]
        full_name = full[index] if index < len(full) else None
        authors.append(Author(name=name, full_name=full_name, ids=tuple(ids.get(index, ())),
                              affiliations=tuple(links.get(index, ()))))
    return authors


def _allow_long_cells() -> None:
    """A CR cell of a review with a thousand references is longer than csv's default 128 KiB limit."""
    if csv.field_size_limit() < 2**30:
        csv.field_size_limit(2**30)
