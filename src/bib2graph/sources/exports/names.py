"""Names and titles folded into keys, so that one person, one institution or one work written two ways
by two exports is recognised as one.

The folding is deliberately plain (upper case, accents and punctuation removed, initials only), the
way bibliometrix and VOSviewer match: it merges two authors who share a surname and first initial,
which a thesaurus can undo, and it never guesses beyond that.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^0-9A-Z ]+")
_SPACES = re.compile(r"\s+")
_MARKUP = re.compile(r"</?(?:i|b|u|em|strong|sub|sup|inf|sc|scp|small|br|span|p|(?:jats|mml):[a-z-]+)\b[^<>]*>",
                     re.IGNORECASE)
_INITIALS = re.compile(r"^(?:(?:A\.-?)+|A{1,3})$")   # "B.", "S.-P.", "JA", "Ş.-C.", "Á." with capitals as A


class _Latin(dict):
    """A `str.translate` table, filled as characters come: ASCII stays, a Latin letter no decomposition
    makes ASCII (Ø, Ł, ß, Æ, Đ, ı, Œ, Þ) is transliterated by anyascii (Ø → O, ß → ss), and every other
    character (combining accents, other scripts) is dropped."""

    def __missing__(self, code: int) -> str:
        from anyascii import anyascii

        char = chr(code)
        self[code] = value = char if code < 128 else (
            anyascii(char) if "LATIN" in unicodedata.name(char, "") else "")
        return value


_TO_ASCII = _Latin()


def ascii_text(text: str) -> str:
    """`text` in ASCII: accents stripped, Latin letters without one transliterated ("Øster" → "Oster",
    "Łukasz" → "Lukasz", as Web of Science writes them), every other non-ASCII character dropped."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKD", text).translate(_TO_ASCII)


def fold(text: str | None) -> str:
    """Upper case, accents stripped, punctuation to spaces, spaces collapsed."""
    if not text:
        return ""
    plain = ascii_text(text).upper()
    return _SPACES.sub(" ", _NON_WORD.sub(" ", plain)).strip()


def _initials(word: str) -> bool:
    """Whether `word` is initials: capitals of any script, each with a dot (and a hyphen between), or one
    to three capitals alone."""
    return bool(_INITIALS.match("".join("A" if c.isupper() else c for c in word)))


def split_name(name: str | None) -> tuple[str, str]:
    """(surname, given) of "Owen-Smith, J", "Owen-Smith, Jason", "Gong B.", "G. Kalbe" or "Jason Owen-Smith".

    Without a comma, trailing initials ("Gong B.", "Gao S.-P.") follow the surname (Scopus), leading
    ones ("G. Kalbe") precede it (IEEE), and otherwise the last word is the surname."""
    name = " ".join((name or "").split())
    if "," in name:
        surname, given = name.split(",", 1)
        return surname.strip(), given.strip()
    words = name.split()
    if len(words) < 2:
        return name, ""
    tail = 0
    while tail < len(words) - 1 and _initials(words[len(words) - 1 - tail]):
        tail += 1
    if tail:
        return " ".join(words[:len(words) - tail]), " ".join(words[len(words) - tail:])
    return words[-1], " ".join(words[:-1])


def display_name(name: str | None) -> str | None:
    """"Surname, Given": the form every label and bibliography writer reads the surname from."""
    surname, given = split_name(name)
    if not surname:
        return None
    return f"{surname}, {given}" if given else surname


def author_key(name: str | None) -> str | None:
    """"OWEN-SMITH J": folded surname and first initial (hyphens kept inside surnames)."""
    surname, given = split_name(name)
    surname = fold(surname.replace("-", "HYPHEN")).replace("HYPHEN", "-").replace(" ", "")
    if not surname:
        return None
    initial = fold(given)[:1]
    return f"{surname} {initial}" if initial else surname


def term_key(term: str) -> str:
    """A keyword's ID: lower case, white space collapsed. Every source keys its terms so (export keywords,
    MeSH headings of PubMed, Dimensions and OpenAlex), so that the same term from two sources is one."""
    return " ".join(term.casefold().split())


def title_key(title: str | None) -> str:
    """A title with everything but letters and digits removed: what two exports agree on. Inline markup
    some sources keep and others do not ("CO<sub>2</sub>", "<i>v.</i>", Scopus's "<inf>", JATS and
    MathML tags) goes first, so that its tag names do not become letters of the title."""
    if title and "<" in title:
        title = _MARKUP.sub("", title)
    return fold(title).replace(" ", "")


def full_form(short: str | None, full: str | None) -> str | None:
    """The full name in "Surname, Given" form, the surname taken from the short form when the full one
    has no comma: WoS writes AF "Zhang Zhi-Wei" (surname first) beside AU "Zhang, ZW"."""
    if not full:
        return short
    if "," in full or not short or "," not in short:
        return full
    surname = short.split(",", 1)[0].strip()
    words = full.split()
    if words and fold(words[0]) == fold(surname):
        return f"{surname}, {' '.join(words[1:])}".rstrip(", ")
    if words and fold(words[-1]) == fold(surname):
        return f"{surname}, {' '.join(words[:-1])}".rstrip(", ")
    return full
