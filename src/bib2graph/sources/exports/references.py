"""Cited references: parsed from the text exports give them, given one identity per cited work, and matched
to the works of the corpus. Pure functions, no I/O.

Identity (`identity_key`), in order:

* ``doi:<bare lower-case DOI>`` when the reference carries a DOI, or names an arXiv preprint (the DOI arXiv
  registers, ``10.48550/arxiv.<ID>``: `arxiv_id`);
* ``pmid:<digits>`` when it carries a PubMed ID and no DOI (PubMed XML and Dimensions give them);
* ``lens:<Lens ID>`` for a reference that is a Lens ID (Lens CSV writes its references so);
* ``key:<AUTHOR>|<YEAR>|<SOURCE>|<VOLUME>|<PAGE>`` when it has a first author, a year and at least one of
  source, volume and page. AUTHOR is the surname upper-cased without diacritics, spaces or punctuation,
  a space and the first initial ("Smith J", "SMITH JA", "Smith, J.A.", "Smith John" and Scopus's
  "Smith John A." are all ``SMITH J``; a word after a particle stays the surname's: "De Veaux R.D." is
  ``DEVEAUX R``), or ``ANONYMOUS`` for "[Anonymous]", "ANONYMOUS", "Anon.". This merges two different J.
  Smiths who published in the same year, source, volume and page, which is rare (bibliometrix and
  VOSviewer fold cited authors the same way). VOLUME and PAGE are their digits without leading zeros
  ("V0005" → 5, "pD658" → 658, "ARTN e0123" → 123). SOURCE is `source_key`: the initials of the first
  three words of the source title once punctuation and the words ISO 4 drops are gone (then its numbers
  other than the year or its two last digits, which name reports and standards: "RFC 3428"; a leading
  "Proceedings", "Proc." or WoS "P" left out; a trailing stop-word kept, as only a cut J9 ends in one: "ADV
  NEUR IN"), so that a full title, its WoS J9 abbreviation (cut at 20 characters) and its ISO-4
  abbreviation agree: "Journal of Applied Physics", "J APPL PHYS" and "J. Appl. Phys." are all ``JAP``.
  Each abbreviated word starts with the letter its full word starts with, which is the one thing every
  abbreviation style keeps; a WoS J9 may drop the trailing words of a long title, hence only the first
  three. Distinct journals share initials ("J Appl Phys", "J Appl Psychol"), which only matters when
  author, year and volume also coincide.
  When both volume and page are present the source is left out of the key (SOURCE is empty): first
  author, year, volume and first page nearly always name one work, and the source is the part written
  most differently from one export to another (book and proceedings titles cut at different lengths,
  "SENSORS-BASEL" for "Sensors"). A `SourceFolding` (a VOSviewer thesaurus of source names) maps
  sources before their initials are taken.
* ``raw:<the reference upper-cased, diacritics and punctuation gone, spaces collapsed>`` otherwise.

`work_keys` lists the keys a corpus work answers to and `ReferenceResolver` matches references to works
by DOI first and key second; a key shared by two corpus works matches neither, and is counted.
`merge_identities` gives a reference written without its DOI (or volume, or page) the identity of the
fuller references of the same work, so one cited work does not split into a ``doi:`` and a ``key:`` node.
It compares every distinct parsed reference within one surname and year: volume and page equal where
both give them, initials equal where both give them, and when volume and page do not both match, a first
page of two digits or more equal or the sources agreeing (one's initials start the other's: "SENSORS-BASEL"
and "Sensors"); keys without volume and page that no fuller identity takes merge with each other where
every two agree; forms of one surname, volume and page a year apart are one work; a reference still
unmatched takes the one better identity of the same year whose title (or WoS source, for a book) is written
alike (Scopus drops corporate authors WoS names). A key between two candidates takes neither, and a DOI is
never mapped: two DOIs never merge. A reference that names no work (`names_a_work`: a bare "(2016)",
"[Anonymous], 2016") gets no identity: as one node it would couple every work citing one.
`align_lists` then joins the cited works that two databases' records of one work each cite as their only
work of a surname and year: what the strings cannot tell, the two reference lists of one work can.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from ...ids import normalize_doi
from .dimensions_refs import parse_dimensions_reference
from .names import ascii_text
from .parsed_ref import ParsedRef
from .pubmed_refs import parse_pubmed_reference

SOURCE_WORDS = 3
STOP_WORDS = frozenset("A AN OF THE AND IN FOR ON TO BY WITH AT & DE DES DU LA LE LES DER DIE DAS UND ET".split())
# Words that start a surname ("de Nooy", "Van Acker", "van der Valk"): the word after them is the surname's.
PARTICLES = frozenset("de da di do du del della der den des dos la le van von ten ter st".split())
PROCEEDINGS = frozenset({"P", "PROC", "PROCEEDINGS"})
ANONYMOUS = "ANONYMOUS"
_ANONYMOUS = re.compile(r"^\W*anon(?:ymous)?\W*$", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^\W*(?:undefined|null)\W*(?:\(\d{4}\)\W*)?$", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------- parsing

_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)$")
_DOI_IN_TEXT = re.compile(r"(?i)\b(10\.\d{3,9}/[^\s\]]+)")


STYLES = {"wos": "wos", "wos-tab": "wos", "scopus-csv": "scopus", "scopus-ris": "scopus", "pubmed-xml": "pubmed",
          "dimensions-csv": "dimensions", "lens-csv": "lens"}
_LENS_ID = re.compile(r"^\d{3}-\d{3}-\d{3}-\d{3}-\d{2}[\dX]$")


def style_for(format: str) -> str:
    """The reference style of an `Origin.format`: WoS and Scopus write theirs one way each; RIS, BibTeX
    and Lens carry whatever the exporting database wrote, so both shapes are tried."""
    return STYLES.get(format, "generic")


def parse_reference(raw: str, style: str) -> ParsedRef | None:
    """`raw` parsed as a WoS CR field ("wos"), a Scopus reference ("scopus") or either ("generic": RIS N1,
    BibTeX), or None when neither an author, a year, a source nor a DOI can be found in it."""
    text = " ".join(raw.split())
    if not text:
        return None
    if style == "wos":
        parsed = _parse_wos(raw, text)
    elif style == "scopus":
        parsed = _parse_scopus(raw, text)
    elif style == "generic":
        parsed = _parse_wos(raw, text) if _looks_like_wos(text) else _parse_scopus(raw, text)
    elif style == "pubmed":
        parsed = parse_pubmed_reference(raw, text)
    elif style == "dimensions":
        parsed = parse_dimensions_reference(raw, text)
    elif style == "lens":
        parsed = ParsedRef(raw=raw, native=native_identity("lens", text.upper())) if _LENS_ID.match(text.upper()) \
            else parse_reference(raw, "generic") or ParsedRef(raw)
    else:
        raise ValueError(f"unknown reference style {style!r}; expected wos, scopus, pubmed, dimensions, lens or "
                         "generic")
    if parsed.doi is None and (arxiv := arxiv_id(text)):
        parsed = replace(parsed, doi=arxiv_doi(arxiv))
    usable = parsed.first_author or parsed.year or parsed.source or parsed.doi or parsed.pmid or parsed.native
    return parsed if usable else None


# "arXiv:1905.12213v2", "arXiv 2006.02479", "arxiv.org/abs/1805.00676", "arXiv:hep-th/9901001", and WoS's
# "ARXIV190512213" (the ID's dot dropped)
_ARXIV = re.compile(r"(?i)arxiv(?:\.org/(?:abs|pdf)/|\s*:\s*|\s+)"
                    r"(?:(\d{4}\.\d{4,5})|([a-z][a-z\-]*)(?:\.[a-z]{2})?/(\d{7}))(?!\d)")
_ARXIV_WOS = re.compile(r"(?i)arxiv(\d{4})(\d{4,5})\b")   # also "ARXIVARXIV160607360"


def arxiv_id(text: str) -> str | None:
    """The arXiv identifier a reference names, without its version or subject class, or None. New-style IDs
    are YYMM.NNNN until December 2014 and YYMM.NNNNN since, which tells where WoS's dropped dot was."""
    if (found := _ARXIV.search(text)) and found.group(2):
        return f"{found.group(2).lower()}/{found.group(3)}"   # old style: archive/YYMMNNN, subject class dropped
    if found:
        ident = found.group(1)
    elif found := _ARXIV_WOS.search(text):
        ident = f"{found.group(1)}.{found.group(2)}"
    else:
        return None
    month, digits = ident.split(".")
    if not 1 <= int(month[2:]) <= 12 or len(digits) != (5 if month >= "1501" else 4) or month < "0704":
        return None
    return ident


def arxiv_doi(ident: str) -> str:
    """The DOI arXiv registers for each of its preprints (DataCite, 10.48550): what OpenAlex keys them by, so
    that "arXiv:1406.2661" in one export and "ARXIV14062661" in another are one cited work."""
    return f"10.48550/arxiv.{ident}"


def native_identity(scheme: str, value: str) -> str:
    """The identity of a cited work a reference names by a database's own ID (``lens:…``), which the work
    of the files holding that ID answers to (`work_keys`' `native`)."""
    return f"{scheme}:{value}"


def placeholder(raw: str) -> bool:
    """Scopus's text for a reference it lost ("undefined", "undefined, (2019)"): it names no work, and as one
    node it would couple every work citing one."""
    return bool(_PLACEHOLDER.match(raw))


def names_a_work(ref: ParsedRef) -> bool:
    """Whether a parsed reference names a work: a DOI, a PMID, a source, a title or an author other than
    "[Anonymous]". A bare year (Scopus writes "(2016)" for a reference it could not read) or
    "[Anonymous], 2016" names none, and as one node it would couple every work that cites one."""
    author = author_key(ref.first_author)
    return bool(ref.doi or ref.pmid or ref.native or ref.source or ref.title or (author and author != ANONYMOUS))


def _looks_like_wos(text: str) -> bool:
    """WoS puts the year second, between commas, and tags volume, page and DOI (V12, P34, DOI 10.…)."""
    if _YEAR_PAREN.search(text):
        return False
    parts = _split_wos(text)
    if len(parts) > 1 and _YEAR.match(parts[1]) or parts and _YEAR.match(parts[0]):
        return True
    return any(_wos_tag(p) in ("volume", "page", "doi") for p in parts[1:])


def _split_wos(text: str) -> list[str]:
    """Comma parts, keeping a bracketed DOI list ("DOI [10.1/a, 10.1/b]") whole."""
    return [p.strip() for p in split_outside(text, ",", "[]") if p.strip()]


def split_outside(text: str, sep: str, brackets: str) -> list[str]:
    """`text` cut at each `sep` outside the pair of `brackets` ("[]", "()"), parts as they are; an
    unbalanced closing bracket is ignored."""
    opening, closing = brackets
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == opening:
            depth += 1
        elif char == closing:
            depth = max(depth - 1, 0)
        elif char == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _wos_doi(part: str) -> str | None:
    """The first DOI of a WoS "DOI 10.…", "DOI DOI 10.…" or "DOI [10.…, DOI 10.…;EPUB]" part."""
    match = _DOI_IN_TEXT.search(part)
    return normalize_doi(re.sub(r"(?i)(;\s*epub)?[;,.]*$", "", match.group(1))) if match else None


def _parse_wos(raw: str, text: str) -> ParsedRef:
    parts = _split_wos(text)
    author = year = source = volume = page = doi = article = None
    rest = parts
    if rest and not _YEAR.match(rest[0]) and not _wos_tag(rest[0]):
        author, rest = rest[0], rest[1:]
    if rest and _YEAR.match(rest[0]):
        year, rest = int(rest[0]), rest[1:]
    if rest and not _wos_tag(rest[0]):
        source, rest = rest[0], rest[1:]
    for part in rest:
        tag = _wos_tag(part)
        if tag == "doi":
            doi = doi or _wos_doi(part)
        elif tag == "volume" and volume is None:
            volume = part[1:].strip()
        elif tag == "page" and page is None:
            page = part[1:].strip()
        elif tag == "article":
            article = part[4:].strip()
    return ParsedRef(raw=raw, first_author=author, year=year, source=source, volume=volume,
                     page=page or article, doi=doi)


def _wos_tag(part: str) -> str | None:
    """Which tagged WoS field a comma part is: V45 / v45, P425 / pD658, DOI …, ARTN …, PII …."""
    if re.match(r"(?i)^doi\s*\[?\s*(?:doi\s*)?10\.", part):
        return "doi"
    if re.match(r"(?i)^artn\b", part):
        return "article"
    if re.match(r"(?i)^pii\b", part):
        return "pii"
    if re.fullmatch(r"[Vv]\s?\d[\w.\-]*", part):
        return "volume"
    if re.fullmatch(r"[Pp]\s?[A-Za-z]?\d[\w\-]*", part):
        return "page"
    return None


# Scopus: "Ahuja G., Title, (2000) Source, 45 (3), pp. 425-455." (until ~2020) and
# "Ahuja G., Title, Source, 45, 3, pp. 425-455, (2000)" (since), either with "Cited N times" and a DOI.
_CITED_TIMES = re.compile(r"(?i)[,.;]?\s*cited\s+\d+\s+times?\.?")
_SCOPUS_DOI = re.compile(r"(?i)[,.;]?\s*(?:doi:?\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{3,9}/[^\s,;]+)")
_YEAR_PAREN = re.compile(r"\((1[5-9]\d\d|20\d\d)[a-z]?\)")
_UP, _LOW = "A-ZÀ-ÖØ-ÞĀ-Ž", "a-zß-öø-ÿ"
_INITIALS = rf"(?:[{_UP}][{_LOW}]?\.?(?:\s?-?\s?[{_UP}][{_LOW}]?\.?){{0,7}})"
_SURNAME = r"(?:[^\W\d_][\w'’`\-]*)(?:\s+[^\W\d_][\w'’`\-]*){0,3}"
_SURNAME_WORD = rf"[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)?"
_AUTHOR = re.compile(rf"^{_SURNAME}\s+{_INITIALS}$")
_INITIALS_ONLY = re.compile(rf"^{_INITIALS}$")
_SUFFIX = re.compile(r"(?i)\s+(?:jr|sr|ii|iii|iv)\.?$")   # "MacKerell Jr., A.D."
_ET_AL = re.compile(r"(?i)^et\s*al\.*$")   # "et al.", "et al..", "et al"
_PAGES = re.compile(r"(?i)^pp?\.\s*([A-Za-z]?\d+\w*)")   # Scopus marks pages; "20-21" is a volume
_VOLUME_BEFORE = re.compile(r",\s*[A-Za-z]?\d+[A-Za-z]?\s*$")   # "…, 271 " before an issue in brackets
_OLD_TAIL = re.compile(r"\.\s,\s")   # old Scopus: "pp. 39-63. , Ch. 3 in, Eds. …" (publisher notes follow)
_YEAR_MONTH = re.compile(r"^(?:1[89]|20)\d\d-[A-Z][a-z]+$")
_ISSUE = re.compile(r"(?i)^(?:\d+\w*\s+PG-\S*|sup(?:pl)?\.?\s*\d*[a-z]?|\d+[-–]?\d*\s*(?:spec\.?\s*iss\.?|"
                    r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*))$")
_NUMBER = re.compile(r"^([A-Za-z]?\d+[A-Za-z]?)(?:\s*[-–/]\s*\d+)?(?:\s*\(([^)]*)\))?\.?$")   # 45, 45 (3), 1-2


def _parse_scopus(raw: str, text: str) -> ParsedRef:
    text = _OLD_TAIL.split(_CITED_TIMES.sub("", text))[0]
    doi = None
    found = _SCOPUS_DOI.search(text)
    if found and (found.group(0).strip(" ,.;").lower()[:3] in ("doi", "htt") or found.start() > 0):
        doi = normalize_doi(found.group(1).rstrip(".)"))
        text = (text[:found.start()] + text[found.end():]).strip()
    text = text.strip().rstrip(".,; ")
    years = _years(text)
    after = text[years[-1].end():] if years else ""
    pages = after.strip(" ,")
    if years and (not pages or (after.lstrip().startswith(",") and _PAGES.match(pages) and ", " not in pages)):
        # the new layout: the year ends the reference, or only its pages follow ("… Education (2014), pp. 145-150")
        fields = _scopus_new(", ".join(p for p in (text[:years[-1].start()].rstrip(" ,"), pages) if p), dated=True)
        year = int(years[-1].group(1))
    elif years:
        fields = _scopus_old(text[:years[0].start()], text[years[0].end():])
        year = int(years[0].group(1))
    else:
        fields = _scopus_new(text, dated=False)
        year = fields.pop("year", None)
    return ParsedRef(raw=raw, year=year, doi=doi, **fields)


def _years(text: str) -> list[re.Match]:
    """The "(2004)"s of a Scopus reference that can be its year: an issue number in the range of years
    after a volume ("Proc R Soc B, 271 (1550), pp. 1807-1814") is none, unless nothing else is."""
    years = list(_YEAR_PAREN.finditer(text))
    dated = [m for m in years if not _VOLUME_BEFORE.search(text, 0, m.start())]
    return dated or years


def _authors(parts: list[str], keep: int, written_out: bool = False) -> tuple[str | None, int]:
    """The first author as written and how many leading parts are authors ("Surname I.", "Surname, I.",
    "et al."), leaving at least `keep` parts; with `written_out` (a reference dated at its end, as Scopus
    has written them since 2025) also one author with given names written out ("He, Kaiming")."""
    first, i = None, 0
    while i < len(parts) - keep:
        part = parts[i]
        if _ET_AL.match(part):
            i += 1
            continue
        bare = _SUFFIX.sub("", part)
        if i + 1 < len(parts) - keep and _INITIALS_ONLY.match(parts[i + 1]) and re.fullmatch(_SURNAME, bare):
            name, i = f"{part}, {parts[i + 1]}", i + 2
        elif written_out and i == 0 and i + 1 < len(parts) - keep and _one_surname(part) \
                and _given_names(parts[1]) and not (i + 2 < len(parts) and _name_like(parts[2])):
            name, i = f"{part}, {parts[1]}", i + 2   # Scopus since 2025: "He, Kaiming, Deep residual learning …"
        elif _AUTHOR.match(part):
            name, i = part, i + 1
        elif i == 0 and re.fullmatch(_SURNAME_WORD, part) and i + 1 < len(parts) - keep and _AUTHOR.match(parts[1]):
            name, i = part, i + 1   # "Song, Zhu Y., …": a first author written without initials
        else:
            break
        first = first or name
    return first, i


def _given_names(part: str) -> bool:
    """"Kaiming", "Fernando L.", "Segun Micheal": given names written out, as Scopus writes a reference's
    one author since 2025 ("He, Kaiming, …"), its co-authors left out."""
    tokens = part.split()
    return 0 < len(tokens) <= 4 and any(_is_given(t) for t in tokens) \
        and all(_is_given(t) or _is_initials(t) for t in tokens)


def _one_surname(part: str) -> bool:
    """"He", "Clutton-Brock", "de Wit": one surname, its particles before it; not "Bertling Joy" (surname
    and given name, as some Scopus references write every author)."""
    *particles, last = part.split() or [""]
    return bool(re.fullmatch(_SURNAME, last)) and not _is_initials(last) \
        and all(p.lower() in PARTICLES for p in particles)


def _name_like(part: str) -> bool:
    """A part that may be a co-author's name ("Li X.", "D.L.", "Wandell Tabitha"), not a title: not one in
    capitals without a full stop ("DNA AND RNA", "COVID-19 IN CHILDREN" look like a surname and initials)."""
    if "." not in part and not re.search(f"[{_LOW}]", part):
        return False
    return bool(_AUTHOR.match(part) or _INITIALS_ONLY.match(part)) or _given_names(part)


def _tail_numbers(parts: list[str], dated: bool) -> tuple[list[str], str | None, str | None, int | None]:
    """Pops pages ("pp. 425-455", "p. 1549") and volume/issue numbers from the end of a new-style body;
    without a "(2000)" a bare year among them ("Nanotechnology, 23, 2012, pp. 1-8") is the year."""
    page = volume = year = None
    if parts and (m := _PAGES.match(parts[-1])):
        page, parts = m.group(1), parts[:-1]
    numbers = []
    if len(parts) > 1 and _ISSUE.match(parts[-1]) and _NUMBER.match(parts[-2]) and not _NUMBER.match(parts[-1]):
        parts = parts[:-1]   # an issue Scopus writes in words after the volume: "29, sup1", "16, 10 October"
    if len(parts) > 1 and _YEAR_MONTH.match(parts[-1]):
        parts = parts[:-1]   # a proceedings' "volume" Scopus writes as year and month: "2016-December"
    while parts and _NUMBER.match(parts[-1]) and len(numbers) < 3:
        numbers.insert(0, parts[-1])
        parts = parts[:-1]
    if not dated and numbers and re.fullmatch(r"1[89]\d\d|20\d\d", numbers[-1]):
        year = int(numbers.pop())
    if numbers:
        volume = _NUMBER.match(numbers[0]).group(1)
    return parts, volume, page, year


def _scopus_new(body: str, dated: bool) -> dict:
    """Authors, title, source, volume, issue, pages; the source is the last part before the numbers,
    and a lone part is a source only when a year, volume or page shows this is a reference at all."""
    parts = [p.strip() for p in body.split(", ") if p.strip()]
    parts, volume, page, year = _tail_numbers(parts, dated)
    anchored = volume is not None or page is not None or year is not None
    author, n = _authors(parts, keep=1 if anchored and len(parts) > 1 else 0, written_out=dated)
    rest = parts[n:]
    title = source = None
    if len(rest) == 1 and (anchored or dated):
        source = rest[0]
    elif len(rest) == 1:
        title = rest[0]
    elif rest:
        title, source = ", ".join(rest[:-1]), rest[-1]
    fields = {"first_author": author, "title": title, "source": source, "volume": volume, "page": page}
    return fields | ({"year": year} if year else {})


def _scopus_old(left: str, right: str) -> dict:
    parts = [p.strip() for p in left.strip().rstrip(",").split(", ") if p.strip()]
    author, n = _authors(parts, keep=0)
    title = ", ".join(parts[n:]) or None
    source = volume = page = None
    if title and (right.lstrip().startswith(",") or not right.strip()):
        # a book: "Coey, J.M.D., Magnetism and Magnetic Materials (2010), Cambridge University Press"
        return {"first_author": author, "title": title, "source": title, "volume": None, "page": None}
    for part in (p.strip() for p in right.strip().split(",")):
        if not part:
            continue
        if m := _PAGES.match(part):
            page = page or m.group(1)
            break
        if (m := _NUMBER.match(part)) and source:
            volume = volume or m.group(1)
        elif source is None:
            source = part.rstrip(".")
        elif volume is None:
            continue
        else:
            break
    return {"first_author": author, "title": title, "source": source, "volume": volume, "page": page}


# --------------------------------------------------------------------------------------------- identity

def _ascii_upper(text: str) -> str:
    """Upper case in ASCII, as names.ascii_text makes it (accents stripped, "Ø" an O)."""
    return ascii_text(text).upper()


def _words(text: str) -> list[str]:
    return re.sub(r"[^A-Z0-9&]+", " ", _ascii_upper(text)).split()


def author_key(name: str | None) -> str | None:
    """``SURNAME I``: surname without diacritics, spaces or punctuation, and the first initial; names
    are surname first ("Smith JA", "Smith, J.A.", "Burt R. S.", "Horwitz Barry")."""
    return author_keys(name)[0]


def author_keys(name: str | None) -> tuple[str | None, str | None]:
    """`author_key`, and for a name without a comma that reads two ways, the key of its other reading
    (else None): a capitalised word between the surname and initials is a given name written out
    ("Reynolds Amanda C.", "Chazdon Robin L.": REYNOLDS A, which `author_key` takes) or the second word
    of a double surname ("Maynard Smith J", "Troxler Gann TG": MAYNARDSMITH J, the other reading). The
    import takes the other reading where its references written with a comma name that author
    (ReferenceTable.finish)."""
    if not name or not name.strip("*[] "):
        return None, None
    if _ANONYMOUS.match(name.strip("*[] ")) or _ANONYMOUS.match(name):
        return ANONYMOUS, None
    if corporate := _corporate_key(name):
        return corporate, None
    name = name.strip().lstrip("*").replace("[", " ").replace("]", " ").strip()   # "[刘天羽 LIU Tian-yu]"
    name = _SUFFIX.sub("", name)
    if "," in name:
        surname, given = name.split(",", 1)
        return _surname_key(_SUFFIX.sub("", surname.strip()), given), None
    tokens = name.split()
    cut = len(tokens)
    while cut > 1 and _is_initials(tokens[cut - 1]):
        cut -= 1
    other = None
    if cut > 1 and _is_given(tokens[cut - 1]) and not all(t.lower() in PARTICLES for t in tokens[:cut - 1]):
        if cut < len(tokens):   # initials follow: a double surname reads as well
            other = _surname_key(" ".join(tokens[:cut]), " ".join(tokens[cut:]))
        cut -= 1   # "Horwitz Barry", "Reynolds Amanda C.": a given name written out
    return _surname_key(" ".join(tokens[:cut]), " ".join(tokens[cut:])), other


_BODIES = re.compile(r"(?i)\b(?:academ(?:y|ies)|organi[sz]ation|association|society|council|committee|institute|"
                     r"agency|department|ministry|commission|board|foundation|federation|bureau|consortium|"
                     r"task force|office|centers?|centres?|network|alliance|union|assembly|secretariat)\b")
_GLUE = frozenset({"AND", "OF", "THE", "FOR", "ON", "IN", "OTHERS", "&", "ET", "AL"})


def _corporate_key(name: str) -> str | None:
    """A body's name ("National Academies of Sciences, Engineering, and Medicine", of four words or more):
    its words without the glue between them, sorted, so that the orders WoS writes it in ("Engineering
    National Academies of Sciences Medicine", "National Academies of Sciences Medicine Engineering", "…
    and others") are one author; else None."""
    if not _BODIES.search(name) or len(words := _words(name)) < 4:   # most names hold no body's word
        return None
    kept = sorted(set(w for w in words if w not in _GLUE and len(w) > 1))
    return "".join(kept) if len(kept) >= 3 else None


def _surname_key(surname: str, given: str) -> str | None:
    surname = "".join(_words(surname))
    initial = next(iter(_words(given)), "")[:1]
    if not surname:
        return None
    return f"{surname} {initial}" if initial else surname


def _is_given(token: str) -> bool:
    """"Barry", "Amanda", "Tian-yu": a given name as Scopus and WoS write one out (a surname in mixed case
    is its first word, which no rule here cuts). A full stop may follow it ("Meiggs Russell.")."""
    token = token.removesuffix(".")
    first, *rest = token.split("-")      # "Tian-yu" (a hyphen then a capital is a double surname)
    return (len(first) > 1 and first[:1].isupper() and first[1:].isalpha() and first[1:].islower()
            and all(part.isalpha() and part.islower() for part in rest))


def _is_initials(token: str) -> bool:
    """"J", "JA", "J.A.", "J.-A.", "Ch.": what WoS and Scopus write for given names."""
    bare = token.replace(".", "").replace("-", "")
    pieces = [p for p in re.split(r"[.\-]", token) if p]
    return bool(bare) and (("." in token and bare[:1].isupper() and all(len(p) <= 2 for p in pieces))
                           or (bare.isalpha() and bare.isupper() and len(bare) <= 3))


def _number(value: str | None) -> str:
    """The first run of digits, without leading zeros: a range is named by where it starts, as Scopus
    writes it ("V16-17" and "16-17" are the volume Scopus writes "16"; "S16-S26" starts on page 16)."""
    found = re.search(r"\d+", value or "")
    return (found.group().lstrip("0") or "0") if found else ""


def source_key(name: str | None, fold: "SourceFolding | None" = None, year: int | None = None) -> str:
    """The initials of a source title's first `SOURCE_WORDS` words, stop-words left out ("Journal of
    Applied Physics", "J APPL PHYS", "J. Appl. Phys." → ``JAP``), then the numbers the title holds other
    than the reference's year: they name the document in reports and standards ("RFC 3428" and "RFC3311"
    are two works, "IETFRFC3428" and "3428 IETFRFC" one), while a year is written in some spellings of a
    proceedings title and not in others ("SIGCSE'14", "ICCV 2017")."""
    letters, numbers = source_parts(name, fold, year)
    return letters + numbers


def source_parts(name: str | None, fold: "SourceFolding | None" = None, year: int | None = None) -> tuple[str, str]:
    """`source_key` as its initials and its numbers. A stop-word that ends the title is kept: no title ends in
    "in" or "de", but a WoS J9 cut at 20 characters does ("ADV NEUR IN": Advances in Neural Information …).
    A leading "Proceedings" ("Proc.", WoS "P") is left out: one export writes it and the other does not
    ("Proc. Adv. Neural Inf. Process. Syst." and "ADV NEUR IN"; "P NATL ACAD SCI USA" and "PNAS")."""
    if not name:
        return "", ""
    if fold is not None:
        name = fold.canonical(name)
    tokens = [t for w in _words(name) for t in re.findall(r"[A-Z&]+|[0-9]+", w)]
    while len(tokens) > 1 and tokens[0] in PROCEEDINGS:
        tokens = tokens[1:]
    words = [t for i, t in enumerate(tokens) if not t.isdigit() and (t not in STOP_WORDS or i == len(tokens) - 1)]
    numbers = [t.lstrip("0") or "0" for t in tokens if t.isdigit()]
    if year is not None:
        numbers = [n for n in numbers if n not in (str(year), f"{year % 100:02d}")]
    return "".join(w[0] for w in words[:SOURCE_WORDS]), "".join(numbers)


def normalize_raw(raw: str) -> str:
    return " ".join(_words(raw))


def _key(author: str | None, year: int | None, source: str, volume: str, page: str) -> str | None:
    if not author or year is None or not (source or volume or page):
        return None
    return f"key:{author}|{year}|{'' if volume and page else source}|{volume}|{page}"


def identity_key(ref: ParsedRef, fold: "SourceFolding | None" = None) -> str:
    """One string per cited work: ``doi:…``, else ``pmid:…``, else the database ID (``lens:…``), else
    ``key:AUTHOR|YEAR|SOURCE|VOLUME|PAGE``, else ``raw:…``."""
    if ref.doi:
        return f"doi:{ref.doi}"
    if ref.pmid:
        return f"pmid:{ref.pmid}"
    if ref.native:
        return ref.native
    key = _key(author_key(ref.first_author), ref.year, source_key(ref.source, fold, ref.year), _number(ref.volume),
               _number(ref.page))
    return key or f"raw:{normalize_raw(ref.raw)}"


@dataclass(frozen=True)
class SourceFolding:
    """Source names mapped to the name they stand for, from a VOSviewer thesaurus (``label<TAB>replace
    by``, header first). Labels are compared upper-case, without diacritics or punctuation."""

    mapping: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_thesaurus(cls, text: str) -> "SourceFolding":
        """Parses thesaurus text; a line without a replacement maps nothing (VOSviewer drops such terms
        from a map, a source name is never dropped)."""
        mapping: dict[str, str] = {}
        lines = [line for line in text.splitlines() if line.strip()]
        header = [c.strip().lower() for c in lines[0].split("\t")] if lines else []
        if header[:2] != ["label", "replace by"]:
            raise ValueError("a VOSviewer thesaurus starts with the header label<TAB>replace by")
        for line in lines[1:]:
            cells = line.split("\t")
            if len(cells) >= 2 and cells[0].strip() and cells[1].strip():
                mapping[normalize_raw(cells[0])] = cells[1].strip()
        return cls(mapping)

    def canonical(self, name: str) -> str:
        return self.mapping.get(normalize_raw(name), name)


def merge_identities(refs: Iterable[ParsedRef], fold: SourceFolding | None = None) -> dict[str, str]:
    """``key:…`` (or ``raw:…``) identity → the fuller identity of the same cited work, so that one work
    cited with and without its DOI, volume or page, with its source written two ways, or without its
    (corporate) author, is one node.

    The fuller identities are the DOIs, the PMIDs and the keys with volume and page. References are
    compared within one surname and year (`_agree`); a key takes the one fuller identity (followed to
    its DOI) some reference of which agrees with one of its own, and with two candidates it takes none.
    Forms of one surname, volume and first page dated a year apart name one work (`_across_years`).
    A reference still unmatched whose title (or, as WoS writes a book, source) of at least
    `TITLE_CHARS` letters equals that of references of the same year and a compatible author takes
    their one better identity. A DOI or PMID is never mapped, so two DOIs never merge."""
    return merge_forms(*group_forms((ref.year, *form_parts(ref, fold)) for ref in refs if ref.year is not None))


def group_forms(dated: Iterable[tuple[int, "_Form", tuple[str | None, str | None]]]
                ) -> tuple[list[set["_Form"]], list[set[tuple[bool, "_Form"]]], list[set[tuple[int, "_Form"]]]]:
    """The groups `merge_forms` compares, from each dated form with the letters of its title and source
    (`form_parts`): blocks of one surname and year (no raw identity), title groups, volume-and-page groups."""
    blocks: dict[tuple[str, int], set[_Form]] = defaultdict(set)
    titled: dict[tuple[int, str], set[tuple[bool, _Form]]] = defaultdict(set)
    placed: dict[tuple[str, str, str], set[tuple[int, _Form]]] = defaultdict(set)
    for year, form, (title, source) in dated:
        if form.surname and not form.identity.startswith("raw:"):
            blocks[(form.surname, year)].add(form)
            if form.volume and form.page:
                placed[(form.surname, form.volume, form.page)].add((year, form))
        if title is not None:
            titled[(year, title)].add((True, form))
        if source is not None and source != title:
            titled[(year, source)].add((False, form))
    return list(blocks.values()), list(titled.values()), list(placed.values())


def form_parts(ref: ParsedRef, fold: SourceFolding | None = None, identity: str | None = None
               ) -> tuple["_Form", tuple[str | None, str | None]]:
    """A dated reference as `merge_identities` compares it: its `_Form` and the letters of its title and
    of its source, each None unless long enough to compare (`TITLE_CHARS`). `identity`: its
    `identity_key`, when known."""
    author = author_key(ref.first_author) or ""
    identity = identity or identity_key(ref, fold)
    surname, _, initial = author.partition(" ")
    letters, numbers = source_parts(ref.source, fold, ref.year)
    form = _Form(identity, letters, numbers, _number(ref.volume), _number(ref.page), surname, initial,
                 bool(ref.page and _ARTICLE.match(ref.page)))
    return form, (_title_letters(ref.title), _title_letters(ref.source))


def _title_letters(text: str | None) -> str | None:
    letters = re.sub(r"[^A-Z]", "", _ascii_upper(text)) if text else ""
    return letters if len(letters) >= TITLE_CHARS else None


def merge_forms(blocks: Iterable[set["_Form"]], titled: Iterable[set[tuple[bool, "_Form"]]],
                placed: Iterable[set[tuple[int, "_Form"]]] = ()) -> dict[str, str]:
    """`merge_identities` over its forms already grouped: `blocks` one set per surname and year, `titled`
    one set of (whether these are the letters of its title rather than of its source, form) per year and
    letters, `placed` one set of (year, form) per surname, volume and first page. A set that cannot
    match anything may be left out (one form, one year)."""
    merged: dict[str, str] = {}
    for forms in blocks:
        merged.update(_merge_block(forms))
    for dated in placed:
        merged.update(_across_years(dated, merged))
    titled = list(titled)
    merged.update(_mistyped_pages(titled, merged))
    merged.update(_by_title(titled, merged))
    return {key: _root(merged, key) for key in sorted(merged)}


def _by_title(titled: list[set[tuple[bool, "_Form"]]], merged: dict[str, str]) -> dict[str, str]:
    """References still without a volume-and-page identity whose title (or, as WoS writes a book, source)
    equals that of better references of the same year, a compatible author and numbers that do not
    disagree: their one better identity. An identity's own titles are read before its sources' names,
    which many works share (Scopus writes the journal's name in full), and all its forms together, so
    that which group is read first decides nothing."""
    roles: dict[tuple[int, str], dict[bool, list[tuple[_Form, set]]]] = defaultdict(lambda: defaultdict(list))
    for group in titled:
        for is_title, form in group:
            if form.rank >= 3:
                roles[(form.rank, form.identity)][is_title].append((form, group))
    out: dict[str, str] = {}
    for (_, identity), by_role in sorted(roles.items()):   # better identities first: candidates are followed
        if identity in merged:
            continue
        for is_title in (True, False):
            found = {out.get(g.identity, merged.get(g.identity, g.identity)) for form, group in by_role[is_title]
                     for _, g in group if g.rank < form.rank and _same_author(form, g) and _numbers_agree(form, g)}
            if found:
                if len(found) == 1:
                    out[identity] = found.pop()
                elif not by_role[is_title][0][0].surname and (one := _one_doi(found)):   # no author
                    out[identity] = one
                break
    return out


def _one_doi(found: set[str]) -> str | None:
    """For a reference without an author: the one DOI (or PMID) among the identities its title leads to
    when the others are keys without volume and page, the same report under other corporate authors
    ("National Academies of Sciences Engineering and Medicine, 2018, Data Science for Undergraduates: …,
    DOI 10.17226/25104" and "Committee on Envisioning the Data Science Discipline …, 2018, Data Science for
    Undergraduates: …", where Scopus writes "Data Science for Undergraduates: …, (2018)"); else None."""
    ids = [i for i in found if i.startswith(("doi:", "pmid:"))]
    return ids[0] if len(ids) == 1 and all(_bare_key(i) for i in found if i != ids[0]) else None


def _bare_key(identity: str) -> bool:
    """A key that lacks its volume or its page (`_key`'s last two fields; rank 3 of `_Form.rank`)."""
    if not identity.startswith("key:"):
        return False
    *_, volume, page = identity.split("|")
    return not (volume and page)


def _mistyped_pages(titled: list[set[tuple[bool, "_Form"]]], merged: dict[str, str]) -> dict[str, str]:
    """Keys with volume and page still unmatched whose title (a title, not a source's name: one author's
    two papers in a volume share that) equals that of references of the same year, a compatible author
    and the same volume, or the same first page of two digits or more, that lead to one DOI (or PMID): that
    DOI, though their first pages (volumes) differ. Citing authors mistype pages ("Curriculum guidelines for
    undergraduate programs in data science", Annu. Rev. Stat. Appl. 4, written pp. 15-30, 2-… and 21-…) and
    volumes (Olson's "Energy storage and the balance of producers and decomposers in ecological systems",
    Ecology 44, pp. 322-331, once written "42 (2), pp. 322-330"); one author's two papers of a year in one
    volume, or starting on one page, do not share a title."""
    found: dict[str, set[str]] = defaultdict(set)
    for group in titled:
        named = [form for is_title, form in group if is_title]
        keys = [f for f in named if f.rank == 2 and f.identity not in merged]
        if not keys:
            continue
        leads: dict[tuple[str, str], list[tuple[_Form, str]]] = defaultdict(list)   # (volume|page, number) →
        for g in named:                                                               # (form, the DOI it leads to)
            if (root := _root(merged, g.identity)).startswith(("doi:", "pmid:")):
                if g.volume:
                    leads[("volume", g.volume)].append((g, root))
                if _telling_page(g.page):
                    leads[("page", g.page)].append((g, root))
        for f in keys:
            near = leads.get(("volume", f.volume), []) + leads.get(("page", f.page), [])
            found[f.identity].update(root for g, root in near if g.identity != f.identity and _same_author(f, g))
    return {identity: roots.pop() for identity, roots in sorted(found.items()) if len(roots) == 1}


def _root(merged: dict[str, str], identity: str) -> str:
    """Where `identity` ends up, following maps made by later passes onto earlier targets."""
    seen = {identity}
    while (identity := merged.get(identity, identity)) not in seen:
        seen.add(identity)
    return identity


@dataclass(frozen=True, slots=True)
class Aligned:
    """A cited work (as resolved) that one database's record of a work cites as its only reference of a
    surname and year (`ReferenceTable.align`): the first initial and volume it is written with there, and
    whether it is `named`: a work of the corpus, or one with a DOI or PMID."""

    work_id: str
    initial: str
    volume: str
    named: bool


def align_lists(pairs: Iterable[tuple[Aligned, Aligned]]) -> dict[str, str]:
    """Cited work → the cited work it is one with, from pairs of two databases' records of one work each
    citing one work of a surname and year: the two reference lists of a work say which of their forms are
    one work. Web of Science and Scopus write books, reports, theses and proceedings too differently for
    any rule on the strings ("Geertz C., 1973, INTERPRETATION CULTU" and "Geertz C., The interpretation
    of cultures, selected essays, Basic Books, (1973)"), and citing authors mistype pages ("Rizvi SMD,
    2013, EXCLI J, V12, P831" and "…, 12, pp. 830-857, (2013)"). A pair joins unless first initials or
    volumes differ where both give them. The works so joined map to the one `named` work among them, else
    to the least ID; joined works holding two named ones (two DOIs) stay apart, all of them, as a key
    between two candidates takes neither."""
    named: set[str] = set()
    links = []
    for a, b in pairs:
        if a.initial and b.initial and a.initial != b.initial or a.volume and b.volume and a.volume != b.volume:
            continue
        named.update(side.work_id for side in (a, b) if side.named)
        links.append((a.work_id, b.work_id))
    return _joined(links, named.__contains__)


def _joined(links: Iterable[tuple[str, str]], named: Callable[[str], bool]) -> dict[str, str]:
    """Member → target of the groups the `links` join: a group maps to its one `named` member (a DOI),
    else to its least; a group holding two named members stays apart, all of it (two DOIs never merge)."""
    from scipy.cluster.hierarchy import DisjointSet   # scipy: loaded when something is joined

    groups = DisjointSet()
    for a, b in links:
        groups.add(a)
        groups.add(b)
        groups.merge(a, b)
    out: dict[str, str] = {}
    for members in groups.subsets():
        heads = sorted(m for m in members if named(m))
        if len(members) > 1 and len(heads) <= 1:
            target = heads[0] if heads else min(members)
            out.update({m: target for m in members if m != target})
    return dict(sorted(out.items()))


def _across_years(dated: set[tuple[int, "_Form"]], merged: dict[str, str]) -> dict[str, str]:
    """Forms of one surname, volume and first page whose years are one apart name one work when their
    initials and sources agree where both give them: a paper online one year and in print the next is
    dated one way by WoS and the other by Scopus ("Büntgen U, 2014, FRONT ECOL ENVIRON, V12, P100" and
    "Buntgen U., …, 12, pp. 100-…, (2013)"). Further apart, both must name their source, alike, and the
    first page must be telling: a year the citing authors mistyped ("Kao G, 1998, AM J EDUC, V106, P349"
    and "Kao, G., …, (1988) American Journal of Education, 106, pp. 349-…"). Each group of identities so
    joined takes its one DOI (or PMID), else its first key; a group holding two DOIs stays apart."""
    forms = sorted(((year, _root(merged, f.identity), f) for year, f in dated), key=lambda t: (t[0], t[2].identity))
    links = []
    for i, (year, root, f) in enumerate(forms):
        for other_year, other_root, g in forms[i + 1:]:
            if other_year == year or not (_same_author(f, g) and _sources_agree(f, g)):
                continue
            if other_year == year + 1 or (_telling_page(f.page) and f.letters and g.letters):
                links.append((root, other_root))
    return _joined(links, lambda identity: identity.startswith(("doi:", "pmid:")))


def _sources_agree(a: _Form, b: _Form) -> bool:
    """One's source initials start the other's, or either gives none."""
    short, long = sorted((a.letters, b.letters), key=len)
    return long.startswith(short)


TITLE_CHARS = 20
_ARTICLE = re.compile(r"\s*[A-Za-z]")   # a page that starts with a letter is an article number ("e0124")


@dataclass(frozen=True, slots=True)
class _Form:
    """One way a cited work is written, as identities compare it: its identity and its parts."""

    identity: str
    letters: str    # source initials (source_parts)
    numbers: str    # source numbers
    volume: str
    page: str
    surname: str = ""
    initial: str = ""
    article: bool = False   # the page is an article number ("e0124"), not a printed page

    @property
    def rank(self) -> int:
        """0 a DOI, 1 a PMID, 2 a key with volume and page, 3 a key without, 4 a raw identity."""
        if self.identity.startswith("doi:"):
            return 0
        if self.identity.startswith("pmid:"):
            return 1
        if self.identity.startswith("raw:"):
            return 4
        return 2 if self.volume and self.page else 3


def _same_author(a: _Form, b: _Form) -> bool:
    """Equal surnames and initials where both are given; a missing or anonymous author agrees with any."""
    if not (a.surname and b.surname) or ANONYMOUS in (a.surname, b.surname):
        return True
    return a.surname == b.surname and (not a.initial or not b.initial or a.initial == b.initial)


def _numbers_agree(a: _Form, b: _Form) -> bool:
    return not ((a.volume and b.volume and a.volume != b.volume) or (a.page and b.page and a.page != b.page))


def _agree(a: _Form, b: _Form) -> bool:
    """Two forms of one surname and year name one work: initials, volume and page equal where both give
    them, and either volume and page both equal, or a telling first page equal (`_telling_page`), or the
    sources agree, one's initials starting the other's ("S" for Sensors and "SB" for SENSORS-BASEL, "GPC"
    for Glob. Planet. Chang. and GLOBAL PLANET CHANGE), their numbers equal. Without a volume or page in
    common the shorter initials need two letters. Initials that differ still agree on the same volume and
    telling first page of sources that agree: WoS and Scopus order some given names differently ("Ezeme
    MO", "Ezeme, O.M.") and one of them slips an initial now and then, but one source's volume has one
    paper starting on a page."""
    if not _numbers_agree(a, b):
        return False
    volume, page = bool(a.volume and a.volume == b.volume), bool(a.page and a.page == b.page)
    if a.initial and b.initial and a.initial != b.initial:
        return volume and page and _telling_page(a.page) and bool(a.letters and b.letters) and _sources_agree(a, b)
    if volume and page or page and _telling_page(a.page):
        return True
    if not (a.letters and b.letters) or a.numbers != b.numbers:
        return False
    return _sources_agree(a, b) and (volume or page or min(len(a.letters), len(b.letters)) >= 2)


def _telling_page(page: str) -> bool:
    """A first page that names a work with its author and year whatever the source is written as: one
    author's two papers of a year rarely start on the same page, unless it is a low one (conference
    papers and article numbers start at 1)."""
    return len(page) >= 2


def _merge_block(forms: set[_Form]) -> dict[str, str]:
    """`merge_identities` within one surname and year."""
    by_identity: dict[str, list[_Form]] = defaultdict(list)
    for form in forms:
        by_identity[form.identity].append(form)
    rank = {identity: min(f.rank for f in fs) for identity, fs in by_identity.items()}
    fuller = _Near([f for f in forms if rank[f.identity] <= 2])

    def candidates(identity: str, below: int) -> set[str]:
        return {g.identity for f in by_identity[identity] for g in fuller.near(f)
                if rank[g.identity] < below and g.identity != identity and _agree(f, g)}

    out: dict[str, str] = {}
    for identity in (i for i, r in rank.items() if r == 2):   # a volume-and-page key to its DOI
        found = candidates(identity, 2)
        if len(found) == 1:
            out[identity] = found.pop()
    places: dict[tuple[str, str], dict[str, list[_Form]]] = defaultdict(dict)
    for identity in (i for i, r in rank.items() if r == 2 and i not in out):
        form = by_identity[identity][0]     # an identity with volume and page holds them
        places[(form.volume, form.page)][identity] = by_identity[identity]
    for same in places.values():            # such keys agree only on one volume and page
        if len(same) > 1:
            out.update(_among_themselves(same))
    for identity in (i for i, r in rank.items() if r == 3):
        found = {out.get(c, c) for c in candidates(identity, 3)}
        if len(found) == 1:
            out[identity] = found.pop()
    out.update(_by_volume(by_identity, rank, out))
    out.update(_among_themselves({i: by_identity[i] for i, r in rank.items() if r == 3 and i not in out}))
    return out


class _Near:
    """The forms `_agree` may pair with a given one: volume and page equal, a telling page equal, or
    source initials of which one starts the other. Only those are compared, not the whole block (a
    "WANG 2015" block of a large import holds thousands)."""

    def __init__(self, forms: Iterable[_Form]):
        self.by_prefix: dict[str, list[_Form]] = defaultdict(list)   # every prefix of a form's initials
        self.by_letters: dict[str, list[_Form]] = defaultdict(list)
        self.by_place: dict[tuple[str, str], list[_Form]] = defaultdict(list)
        self.by_page: dict[str, list[_Form]] = defaultdict(list)
        for g in forms:
            self.by_letters[g.letters].append(g)
            for end in range(1, len(g.letters) + 1):
                self.by_prefix[g.letters[:end]].append(g)
            if g.volume and g.page:
                self.by_place[(g.volume, g.page)].append(g)
            if _telling_page(g.page):
                self.by_page[g.page].append(g)

    def near(self, f: _Form) -> Iterable[_Form]:
        yield from self.by_place.get((f.volume, f.page), ())
        yield from self.by_page.get(f.page, ())
        if f.letters:
            yield from self.by_prefix.get(f.letters, ())
            for end in range(1, len(f.letters)):
                yield from self.by_letters.get(f.letters[:end], ())


def _among_themselves(loose: dict[str, list[_Form]]) -> dict[str, str]:
    """Keys that no fuller identity takes, merged with each other: keys without volume and page (a
    conference paper, a book, a report), or keys of one volume and page (initials written or not): a
    group of keys of which every two agree (`_agree`) takes the identity of its member with a page, else
    its first. A key agreeing with two that disagree stays apart: it cannot tell which of two works it
    names."""
    near = _Near(f for forms in loose.values() for f in forms)
    agrees: dict[str, set[str]] = {i: {g.identity for f in forms for g in near.near(f)
                                       if g.identity != i and _agree(f, g)} for i, forms in loose.items()}
    out: dict[str, str] = {}
    for identity in sorted(loose):
        if identity in out or not agrees[identity]:
            continue
        group = {identity} | agrees[identity]
        if all(agrees[i] == group - {i} for i in group):
            target = min(group, key=lambda i: (not any(f.page for f in loose[i]), i))
            out.update({i: target for i in group if i != target})
    return out


def _by_volume(by_identity: dict[str, list[_Form]], rank: dict[str, int], done: dict[str, str]) -> dict[str, str]:
    """Keys still unmatched that name the volume of exactly one DOI of the block (same surname and year):
    that DOI, when initials, the source's first letter and the pages do not disagree (`_loosely`: WoS
    writes a printed page where Scopus writes an article number, "P696" and "e124", and either side
    slips a page or the source's spelling). Two DOIs of the same volume leave it unmatched (one author's
    two papers in one volume) unless the key's article number is spelt in one of them (`_page_in_doi`);
    two pages further apart than a slip are two papers."""
    dois: dict[str, set[str]] = defaultdict(set)
    forms_of: dict[str, list[_Form]] = defaultdict(list)
    for identity, forms in by_identity.items():
        if rank[identity] == 0:
            for f in forms:
                if f.volume:
                    dois[f.volume].add(identity)
                    forms_of[identity].append(f)
    out = {}
    for identity, forms in by_identity.items():
        if rank[identity] not in (2, 3) or identity in done:
            continue
        named = {(f, d) for f in forms if f.volume for d in dois.get(f.volume, ())}
        if len({d for _, d in named}) > 1:      # an article number the DOI spells tells them apart
            named = {(f, d) for f, d in named if _page_in_doi(f.page, d)}
        if len({d for _, d in named}) == 1 and any(_loosely(f, g) for f, d in named for g in forms_of[d]):
            out[identity] = next(iter(named))[1]
    return out


def _page_in_doi(page: str, identity: str) -> bool:
    """The DOI's suffix spells the article number (its digits end with the page's, three or more):
    "e0259391" and 10.1371/journal.pone.0259391, "20200446" and 10.1098/rsif.2020.0446, "1170" and
    10.3390/math7121170."""
    digits = "".join(re.findall(r"\d+", identity.partition("/")[2]))
    return len(page) >= 3 and digits.endswith(page)


def _loosely(a: _Form, b: _Form) -> bool:
    """Initials equal where both are given, the sources' first letters equal where both are given, and
    pages given on both sides equal but for a slip of two, unless one is an article number."""
    if (a.initial and b.initial and a.initial != b.initial) or \
            (a.letters and b.letters and a.letters[0] != b.letters[0]):
        return False
    return not (a.page and b.page and not (a.article or b.article) and abs(int(a.page) - int(b.page)) > 2)


# --------------------------------------------------------------------------------------------- matching

def work_keys(first_author: str | None, year: int | None, venue: str | None, venue_abbrev: str | None,
              volume: str | None, first_page: str | None, doi: str | None,
              fold: SourceFolding | None = None, pmid: str | None = None, native: Iterable[str] = ()) -> list[str]:
    """The identities a corpus work answers to: its DOI, its PMID, its database IDs references name it by
    (`native`: ``lens:…``) and its author–year–source–volume–page keys, with volume or page left out too (a
    reference may omit either) and with both source forms. `first_author` is surname first, as WoS AU or
    Scopus "Authors" write it."""
    keys = [f"doi:{d}"] if (d := normalize_doi(doi)) else []
    if pmid:
        keys.append(f"pmid:{pmid}")
    keys.extend(native)
    author, vol, page = author_key(first_author), _number(volume), _number(first_page)
    sources = sorted({source_key(s, fold, year) for s in (venue, venue_abbrev) if s} or {""})
    for source in sources:
        for v, p in ((vol, page), (vol, ""), ("", page), ("", "")):
            key = _key(author, year, source, v, p)
            if key and key not in keys:
                keys.append(key)
    return keys


class ReferenceResolver:
    """Matches cited references to corpus works: by DOI, else by key. A key two works answer to resolves
    to none (`ambiguous` counts those references); a reference with a DOI is matched by key only to a
    work without a DOI, since two DOIs name two works. Works may also be added one at a time (`add`)."""

    def __init__(self, works: Iterable[tuple[str, Iterable[str]]] = (), fold: SourceFolding | None = None):
        self.fold = fold
        self.ambiguous = 0
        self._index: dict[str, tuple[str, ...]] = {}   # key → the works answering to it (a tuple: most have one)
        self._has_doi: set[str] = set()
        for work_id, keys in works:
            self.add(work_id, keys)

    def add(self, work_id: str, keys: Iterable[str]) -> None:
        for key in keys:
            found = self._index.get(key, ())
            if work_id not in found:
                self._index[key] = found + (work_id,)
            if key.startswith("doi:"):
                self._has_doi.add(work_id)

    def resolve(self, ref: ParsedRef) -> tuple[str | None, str | None]:
        if ref.doi and (found := self._index.get(f"doi:{ref.doi}")):
            if len(found) == 1:
                return found[0], "doi"
            self.ambiguous += 1
            return None, None
        if ref.pmid and (found := self._index.get(f"pmid:{ref.pmid}")):
            if len(found) == 1:
                return found[0], "pmid"
            self.ambiguous += 1
            return None, None
        if ref.native:
            found = self._index.get(ref.native, ())
            if len(found) > 1:
                self.ambiguous += 1
            return (found[0], "id") if len(found) == 1 else (None, None)
        key = identity_key(replace(ref, doi=None, pmid=None), self.fold)
        found = self._index.get(key, ()) if key.startswith("key:") else ()
        if ref.doi:
            found = tuple(w for w in found if w not in self._has_doi)
        if len(found) == 1:
            return found[0], "key"
        if len(found) > 1:
            self.ambiguous += 1
        return None, None
