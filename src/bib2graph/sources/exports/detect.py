"""Which kind of bibliographic file a path holds, from its first bytes rather than its name.

Databases name their exports "savedrecs.txt", "scopus.csv" or "export.ris" whatever they hold, and
people rename them; the first 64 KiB tell the formats apart. Only OpenAlex works files are known by
their suffix (.jsonl, .json.gz, .zip …), as `sources.files` reads them; a .json file is CSL-JSON
when its first object looks like a CSL item and nothing in it like an OpenAlex work.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from pathlib import Path

from .. import files
from ... import textio
from ...errors import DataError
from .readers import FORMATS


#: FORMATS: readers.py's, the one list of formats
__all__ = ["FORMATS", "detect_format", "file_format", "is_blank"]

SAMPLE_BYTES = 64 * 1024
_RIS_START = re.compile(r"^TY {1,2}- ?\S", re.MULTILINE)
_BIBTEX_ENTRY = re.compile(r"^\s*@[A-Za-z]+\s*[{(]", re.MULTILINE)
_OPENALEX_MARKS = re.compile(r'"id"\s*:\s*"https?://openalex\.org/W|"publication_year"\s*:|"authorships"\s*:')
_CSL_KEYS = {"title", "author", "issued", "container-title", "editor"}
_CSL_MARKS = re.compile(r'"(?:container-title|date-parts|DOI|issued)"\s*:')
_NEXT_ITEM = re.compile(r"\s*,\s*(?=\{)")
_PUBMED_XML = re.compile(r"<(?:!DOCTYPE\s+)?Pubmed(?:Book)?Article(?:Set)?\b")
_MEDLINE_PMID = re.compile(r"^PMID- *\d", re.MULTILINE)
_MEDLINE_TAG = re.compile(r"^(?:TI|FAU|AU|DP|AB)  - ", re.MULTILINE)
_COCHRANE = re.compile(r"^(?:Record #\d+ of \d+\s*$|ID: CN-\d+)", re.MULTILINE)


def detect_format(path: str | Path) -> str | None:
    """One of FORMATS for the file at `path`, or None when it is none of them."""
    path = Path(path)
    text = _sample(path)
    lowered = path.name.lower()
    if lowered.endswith(files.WORK_SUFFIXES) and not lowered.endswith(".json"):
        return "openalex-json"
    if lowered.endswith(".json"):
        return "csl-json" if _is_csl(text) else "openalex-json"
    return _from_text(text)


def file_format(path: Path, name: str, declared: str | None = None) -> str:
    """The declared format, else the one the content shows; a file of no known format is an error
    that lists the formats and how to declare one."""
    if declared:
        return declared
    found = detect_format(path)
    if found is None:
        raise DataError(f"{name}: not a format bib2graph reads (OpenAlex JSON, Web of Science plain text or "
                        "tab-delimited, Scopus CSV, PubMed/MEDLINE text or XML, Cochrane CENTRAL text, Dimensions CSV, "
                        "Lens CSV, OpenAlex CSV, RIS (Embase too), BibTeX, CSL-JSON); if it is one "
                        f"of them, declare it in the spec: source.formats: {{{json.dumps(name)}: <format>}}, "
                        f"<format> one of {', '.join(FORMATS)}",
                        code="FILE_INVALID", details={"file": name, "formats": list(FORMATS)})
    return found


def is_blank(path: str | Path) -> bool:
    """Whether the file holds nothing but white space (a byte-order mark at most): no records, whatever
    its format, rather than a file of no known format."""
    try:
        size = Path(path).stat().st_size
    except OSError:          # missing or unreadable: `file_format` says which
        return False
    return size <= SAMPLE_BYTES and not _sample(Path(path)).replace("\ufeff", "").strip()


def _sample(path: Path) -> str:
    """The start of the file as text (BOM-detected encoding, bad bytes replaced: this only looks)."""
    try:
        with path.open("rb") as stream:
            data = stream.read(SAMPLE_BYTES)
    except FileNotFoundError:
        raise DataError(f"{path} does not exist", code="FILE_MISSING", details={"file": str(path)}) from None
    except OSError as exc:
        raise DataError(f"{path} cannot be read ({exc.strerror or exc})", code="FILE_UNREADABLE",
                        details={"file": str(path)}) from None
    codec, bom = textio.detect(data)
    return codecs.getincrementaldecoder(codec)(errors="replace").decode(data[bom:], final=False)


def _from_text(text: str) -> str | None:
    body = text.lstrip()
    first = body.split("\n", 1)[0].rstrip("\r")
    if body.startswith("<") and _PUBMED_XML.search(body[:SAMPLE_BYTES // 4]):
        return "pubmed-xml"
    if re.match(r"(FN|VR|PT) ", first):
        return "wos"
    if _MEDLINE_PMID.match(body) or _MEDLINE_PMID.search(text) and _MEDLINE_TAG.search(text) \
            and not _RIS_START.search(text):
        return "pubmed"
    if _COCHRANE.match(body) and not _RIS_START.search(text):
        return "cochrane"
    if re.match(r'"?About the data', first):
        return "dimensions-csv"
    cells = first.split("\t")
    if len(cells) > 2 and (cells[0] == "PT" or "UT" in cells):
        return "wos-tab"
    header = _csv_header(first)
    if header is not None:
        found = _csv_format(header)
        if found:
            return found
    if _RIS_START.search(text):
        return "ris"
    if _BIBTEX_ENTRY.search(text):
        return "bibtex"
    if body.startswith("[") and _is_csl(body):
        return "csl-json"
    return None


def _csv_header(line: str) -> set[str] | None:
    """The column names of a CSV header line (comma, semicolon or tab separated), or None."""
    for delimiter in (",", ";", "\t"):
        try:
            cells = next(csv.reader([line], delimiter=delimiter))
        except (csv.Error, StopIteration):
            continue
        if len(cells) > 2:
            return {c.strip().strip('"') for c in cells}
    return None


def _csv_format(header: set[str]) -> str | None:
    if "UT" in header and ("PT" in header or "AU" in header):
        return "wos-tab"
    if "Lens ID" in header:
        return "lens-csv"
    if "Publication ID" in header and header & {"Dimensions URL", "PubYear", "Source title"}:
        return "dimensions-csv"
    if {"Authors", "Source title"} <= header and header & {"EID", "Link"}:
        return "scopus-csv"
    if "id" in header and header & {"display_name", "publication_year"}:
        return "openalex-csv"
    return None


def _is_csl(text: str) -> bool:
    """Whether JSON text starts with CSL items rather than OpenAlex works: no sign of an OpenAlex work (an
    openalex.org ID, publication_year, authorships), and an item of the sample with a "type" and a CSL
    title, author or date (items without them, such as a placeholder, are passed over), or, where the
    sample ends inside the first item (a Crossref item with hundreds of references), CSL's own keys."""
    if _OPENALEX_MARKS.search(text):
        return False
    start = text.find("{")
    if start < 0 or text[:start].strip() not in ("[", ""):
        return False
    decoder, position = json.JSONDecoder(), start
    while True:
        try:
            item, end = decoder.raw_decode(text, position)
        except ValueError:          # the sample ends inside this item (or it is no JSON)
            return position == start and bool(_CSL_MARKS.search(text))
        if isinstance(item, dict) and "type" in item and _CSL_KEYS & item.keys():
            return True
        following = _NEXT_ITEM.match(text, end)
        if following is None:
            return False
        position = following.end()
