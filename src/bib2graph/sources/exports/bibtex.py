"""BibTeX files (reference managers, Scopus and Web of Science BibTeX exports, bib2graph's own) as Records.

bibtexparser 2 reads the file whole (reference-manager libraries are small; `@string` macros may be
used anywhere after their definition); its failed blocks go to `skips` with their line. Values are
LaTeX-decoded (latex.py: "S{\\`e}des" is "Sèdes"); a URL is percent-decoded first, since LaTeX
reads "%" as a comment. Fields by exporter:

- Scopus: `author_keywords` (author keywords; `keywords` then holds index keywords), `affiliation`
  ("A; B"), `document_type`, `abbrev_source_title`, `art_number`, `note` ("Cited By 5"), the EID in
  `url`, `references` (split as Scopus CSV cells are, each with the field's line);
- Web of Science: `unique-id` ("WOS:…" or "ISI:…"), `keywords-plus`, `journal-iso`, `times-cited`,
  `type`, `cited-references` (one reference a line, each kept with its line), `affiliation` (entries
  "Name; Name, address", which link the authors they name);
- bib2graph: `openalex` (the OpenAlex ID) and `bib2graph-id` (any work ID, by its shape: `work_ids`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, unquote, urlparse

from ... import textio
from ...ids import normalize_doi, normalize_issn, openalex_work_id
from ...skips import Skips
from .affiliation import institution
from .languages import language_code
from .latex import latex_text
from .record import Author, CitedRef, Institution, Origin, Record
from .scopus_refs import split_references
from .vocab import marks_retracted, work_type
from .work_ids import own_ids

_YEAR = re.compile(r"\b(\d{4})\b")
_CITED_BY = re.compile(r"cited by:?\s*(\d+)", re.IGNORECASE)
_REPRINT = re.compile(r"\s*\((?:Reprint|Corresponding) Author\)", re.IGNORECASE)
_AND_OR_BRACE = re.compile(r"(?<!\\)[{}]|\s+and\s+", re.IGNORECASE)
#: an escaped brace that a line break split: Web of Science wraps its lines at a width, once between the
#: backslash and the brace of "\}" (a formula in an abstract); the brace then closes the entry early
_SPLIT_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*\\)(\r?\n[ \t]*)([{}])")
#: fields a producer writes more than once in one entry: Scopus, one `funding_details` per funder
_REPEATED_BY_DESIGN = frozenset({"funding_details"})


def read_bibtex(path: Path, name: str, skips: Skips) -> Iterator[Record]:
    """The entries of a BibTeX file as Records; blocks bibtexparser cannot read go to `skips`."""
    count = 0
    for number, entry in enumerate(bibtex_entries(textio.read_text(path, name), name, skips), 1):
        line = (entry.start_line or 0) + 1
        try:
            record = _record(entry, Origin(name, number, line, "bibtex"))
        except RecursionError:
            skips.add(name, f"record {number}, line {line}", "BibTeX entry nested too deeply to read; skipped")
            continue
        count += 1
        yield record
    if not count:
        skips.add(name, "", "holds no BibTeX entries")


def bibtex_entries(text: str, name: str, skips: Skips) -> list[Any]:
    """bibtexparser's entries of `text` in file order, with those it set aside that are entries all the
    same (`_readable`); the blocks it could not read go to `skips` with their line."""
    import bibtexparser

    library = bibtexparser.parse_string(_SPLIT_ESCAPE.sub(r"\1\3\2", text))   # the break after, lines kept
    entries, set_aside = list(library.entries), []
    for block in library.failed_blocks:
        if _readable(block):
            set_aside.append(block.ignore_error_block)
            if differing := _differing_repeats(block.ignore_error_block):
                skips.add(name, f"line {block.start_line + 1}", f"BibTeX field(s) {', '.join(differing)} "
                          "repeated with different values; the first of each read")
        else:
            skips.add(name, f"line {block.start_line + 1}", f"BibTeX block not read ({failure_reason(block)}); "
                      "skipped")
    entries += _through_parse_stack(set_aside, library)
    return sorted(entries, key=lambda entry: entry.start_line or 0)


def _through_parse_stack(entries: list[Any], library: Any) -> list[Any]:
    """Set-aside entries as the parse gives the entries it accepts: bibtexparser leaves them raw (string
    references unresolved, values still in their braces or quotes, so "{A and B}" would be one author).
    They go through its default parse stack with the file's `@string` blocks as written, each under a key
    of its own for the while (keys repeat among them)."""
    import bibtexparser
    from bibtexparser.entrypoint import default_parse_stack

    if not entries:
        return []
    strings = bibtexparser.parse_string("\n".join(s.raw for s in library.strings), parse_stack=[]).strings
    keys = [entry.key for entry in entries]
    for number, entry in enumerate(entries):
        entry.key = f"\x00{number}"
    parsed = bibtexparser.Library(blocks=[*strings, *entries])
    for middleware in default_parse_stack(allow_inplace_modification=True):
        parsed = middleware.transform(library=parsed)
    for entry, key in zip(entries, keys):
        entry.key = key
    return entries


def entry_fields(entry: Any) -> tuple[dict[str, str], dict[str, int | None]]:
    """An entry's fields by lower-case name, and the line of each; of a repeated field its first value."""
    raw: dict[str, str] = {}
    lines: dict[str, int | None] = {}
    for f in entry.fields:
        raw.setdefault(f.key.lower(), str(f.value))
        lines.setdefault(f.key.lower(), f.start_line)
    return raw, lines


def _readable(block: Any) -> bool:
    """Whether a block bibtexparser set aside is an entry all the same: one whose key an earlier entry has
    (Scopus makes keys of the first author and year, so distinct works share them; keys are no identity
    here) or with a repeated field (Scopus writes one `funding_details` per funder): the first value is
    read, as BibTeX reads it, and a field repeated with different values is reported."""
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry

    return (isinstance(block, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock))
            and isinstance(block.ignore_error_block, Entry))


def _differing_repeats(entry: Any) -> list[str]:
    """The fields an entry repeats with different values (which one is meant, the file does not say),
    but those a producer repeats by design."""
    values: dict[str, set[str]] = {}
    for f in entry.fields:
        values.setdefault(f.key.lower(), set()).add(str(f.value))
    return sorted(k for k, v in values.items() if len(v) > 1 and k not in _REPEATED_BY_DESIGN)


def failure_reason(block: Any) -> str:
    """Why bibtexparser could not read a block, in words."""
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock

    if isinstance(block, DuplicateBlockKeyBlock):
        return f"duplicate key {block.key!r}"
    if isinstance(block, DuplicateFieldKeyBlock):
        return f"duplicate field(s) {', '.join(sorted(block.duplicate_keys))}"
    error = block.error
    return (getattr(error, "abort_reason", None) or str(error) or type(error).__name__).strip()


def bibtex_doi(fields: dict[str, str]) -> str | None:
    """From `doi`, read verbatim (`verbatim_doi`), else from a doi.org `url`, LaTeX escapes undone (in a
    URL after its percent-escapes)."""
    doi = normalize_doi(verbatim_doi(fields.get("doi", "")))
    return doi or normalize_doi(latex_text(unquote(fields.get("url", ""))))


#: a special escaped as exporters escape one in a DOI: `\_`, Mendeley's `{\_}`, `\textasciitilde{}`
_DOI_ESCAPE = re.compile(r"\{?\\([_%#&$~])\}?|\{?\\text(asciitilde|underscore|backslash)(?:\{\})?\}?")
_DOI_WORDS = {"asciitilde": "~", "underscore": "_", "backslash": "\\"}


def verbatim_doi(value: str) -> str:
    """A BibTeX `doi` as biblatex reads it, verbatim: `~` is a tilde and `--` two hyphens (LaTeX would
    make them a space and a dash), `{…}` inside kept; only a special escaped the way exporters escape it
    is undone (``10.1162/jocn{\\_}a\\_01385``), and braces around the whole value dropped."""
    value = _DOI_ESCAPE.sub(lambda m: m.group(1) or _DOI_WORDS[m.group(2)], value.strip())
    around = min(len(value) - len(value.lstrip("{")), len(value) - len(value.rstrip("}")))
    inner = value[around:len(value) - around]
    return inner.strip() if around and textio.braces_pair(inner) else value


def _record(entry: Any, origin: Origin) -> Record:
    raw, lines = entry_fields(entry)
    text = {k: _clean(latex_text(v)) for k, v in raw.items() if k not in ("url", "cited-references")}
    get = lambda *keys: next((text[k] for k in keys if text.get(k)), None)  # noqa: E731
    doc_type = get("document_type", "type")
    first, last = _pages(get("pages"))
    scopus = "author_keywords" in text
    names = _names(raw.get("author"))
    authors, institutions = _authors(names, raw.get("affiliation") or raw.get("affiliations"))
    return Record(
        origin=origin,
        ids=_ids(text, raw),
        doi=bibtex_doi(raw),
        title=get("title"),
        year=_year(get("year", "date")),
        type=work_type(doc_type or entry.entry_type),
        language=language_code(get("language")),
        venue=get("journal", "booktitle", "series"),
        venue_abbrev=get("abbrev_source_title", "journal-iso", "shortjournal"),
        issn=normalize_issn(get("issn")),
        volume=get("volume"),
        issue=get("number", "issue"),
        first_page=first or get("art_number"),
        last_page=last,
        cited_by_count=_cited_by(text),
        abstract=get("abstract"),
        is_retracted=marks_retracted(doc_type),
        authors=authors,
        institutions=institutions,
        author_keywords=_keywords(get("author_keywords") if scopus else get("keywords")),
        index_keywords=_keywords(get("keywords") if scopus else get("keywords-plus")),
        references=_references(raw.get("cited-references"), lines.get("cited-references"))
        or [CitedRef(r, _line(lines.get("references"))) for r in split_references(get("references"))],
    )


def _clean(value: str) -> str:
    return " ".join(value.split())


def _ids(text: dict[str, str], raw: dict[str, str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    unique = (text.get("unique-id") or "").strip()
    if unique.upper().startswith(("WOS:", "ISI:")):
        ids["wos"] = "WOS:" + unique[4:]
    elif unique.startswith("2-s2.0-"):
        ids["scopus"] = unique
    url = unquote(raw.get("url", ""))
    if "scopus" in url.lower() and (eid := parse_qs(urlparse(url).query).get("eid")):
        ids.setdefault("scopus", eid[0])
    value = openalex_work_id(text.get("openalex"))
    if value:
        ids.setdefault("openalex", value)
    for scheme, value in own_ids(text.get("bib2graph-id"), fallback="bib2graph").items():
        ids.setdefault(scheme, value)
    if text.get("pmid"):
        ids["pmid"] = text["pmid"]
    return ids


def _names(value: str | None) -> list[str]:
    """BibTeX's author list: names joined by " and " (any case, any white space around it) outside
    braces, so that "{Research and Development Group}" stays one name; each name then LaTeX-decoded."""
    if not value:
        return []
    names, depth, start = [], 0, 0
    for match in _AND_OR_BRACE.finditer(value):
        token = match.group(0)
        depth += 1 if token == "{" else -1 if token == "}" else 0
        if token not in "{}" and depth == 0:
            names.append(value[start:match.start()])
            start = match.end()
    names.append(value[start:])
    decoded = (_clean(latex_text(n)) for n in names)
    return [n for n in decoded if n and n.lower() != "others"]


def _pages(value: str | None) -> tuple[str | None, str | None]:
    """"430--441", "122-127" or "e1234" as (first, last)."""
    if not value:
        return None, None
    parts = [p.strip() for p in re.split(r"\s*[-–—]+\s*", value, maxsplit=1)]
    return parts[0] or None, (parts[1] if len(parts) > 1 and parts[1] else None)


def _year(value: str | None) -> int | None:
    match = _YEAR.search(value or "")
    return int(match.group(1)) if match else None


def _cited_by(text: dict[str, str]) -> int | None:
    """WoS `times-cited`, else Scopus's `note` ("Cited By 5")."""
    if (times := text.get("times-cited", "").strip()).isdecimal():
        return int(times)
    match = _CITED_BY.search(text.get("note", ""))
    return int(match.group(1)) if match else None


def _keywords(value: str | None) -> list[str]:
    """Keywords split on ";" and "," (Scopus joins its two index-keyword lists with ", ")."""
    return [k.strip() for k in re.split(r"[;,]", value or "") if k.strip()]


def _authors(names: list[str], value: str | None) -> tuple[list[Author], list[Institution]]:
    """Authors linked to the addresses of WoS's `affiliation` when its entries name them, else the
    addresses unlinked (Scopus's "A; B")."""
    text = latex_text(value or "")
    entries = _wos_entries(text, names) if _REPRINT.search(text) else None
    if entries is None:
        return [Author(name=n) for n in names], [institution(a) for a in _scopus_affiliations(text)]
    institutions: list[Institution] = []
    where: dict[str, int] = {}
    links: dict[int, list[int]] = {}
    unnamed = not any(named for named, _ in entries)
    for named, address in entries:
        if address not in where:
            where[address] = len(institutions)
            institutions.append(institution(address))
        for i in named or (range(len(names)) if unnamed else []):
            links.setdefault(i, []).append(where[address])
    authors = [Author(name=n, affiliations=tuple(dict.fromkeys(links.get(i, [])))) for i, n in enumerate(names)]
    return authors, institutions


def _wos_entries(text: str, names: list[str]) -> list[tuple[list[int], str]]:
    """(indexes of the authors an entry names, its address) for each entry of a WoS `affiliation`:
    "Jara, AJ (Reprint Author), Univ Murcia, …, Spain.\n Jara, Antonio J.; Zamora, Miguel A., Univ
    Murcia, …, Spain." (one a line; JabRef joins the lines, so an entry also starts after ". " where
    an author's name follows). Reprint-author entries repeat another entry and are dropped, unless
    they are all there is."""
    starts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    cut = re.compile(rf"\n|(?<=\.)\s+(?=(?:{starts})[;,( ])") if starts else re.compile(r"\n")
    entries = []
    for piece in (p.strip().rstrip(".").strip() for p in cut.split(text)):
        named, rest = [], piece
        while rest:
            found = next((i for i, n in sorted(enumerate(names), key=lambda x: -len(x[1]))
                          if rest.startswith(n) and rest[len(n):len(n) + 1] in (";", ",", " ")), None)
            if found is None:
                break
            named.append(found)
            rest = rest[len(names[found]):].lstrip()
            if rest.startswith(";"):
                rest = rest[1:].lstrip()
            else:
                break
        entries.append((piece, named, _REPRINT.sub("", rest).strip().lstrip(",").strip()))
    plain = [(named, address) for piece, named, address in entries if address and not _REPRINT.search(piece)]
    return plain or [(named, address) for _, named, address in entries if address]


def _scopus_affiliations(text: str) -> list[str]:
    """Addresses of Scopus's `affiliation` ("A; B")."""
    found = [_clean(a).rstrip(".").strip() for a in re.split(r"[;\n]", text)]
    return list(dict.fromkeys(a for a in found if a))


def _line(start: int | None) -> int | None:
    return start + 1 if start is not None else None


def _references(value: str | None, start: int | None) -> list[CitedRef]:
    """WoS `cited-references`: one reference a line of the value; the line of each is the field's
    line plus its offset (the value opens on the field's line)."""
    if not value:
        return []
    refs = []
    for offset, line in enumerate(value.split("\n")):
        raw = latex_text(line).strip()
        if raw:
            refs.append(CitedRef(raw, _line(start) + offset if start is not None else None))
    return refs
