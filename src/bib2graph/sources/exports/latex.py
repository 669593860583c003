"""LaTeX in BibTeX values, as text: pylatexenc decodes it, and a plain path gives the same text faster
for the values exporters write most.

Web of Science and Scopus BibTeX exports escape little ("Science \\& Engineering", "DOI {[}10.1/x{]}",
"pp. 322--331", "50\\% of"), but pylatexenc reads every character through its tokenizer (about 4 s a
megabyte), so a field's cited references took most of an import. A value whose only LaTeX is `\\&`,
`\\%`, `\\_`, `\\#`, braces (groups, dropped), `--`, `---`, `''` and `~` is turned into text by
`_plain` (the same characters pylatexenc gives: tests/unit/test_latex.py checks it on generated values);
anything else (another macro, `$`, `^`, a backquote) goes to pylatexenc. Short values are remembered,
since one cited reference is written by many records.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

#: characters and ligatures that make a value LaTeX rather than text
_LATEX = re.compile(r"[\\{}$~%&#^_]|--|``|''")
#: a bare "&", "%" or "#": exporters mean the character, not an alignment tab or a comment
_BARE_SPECIAL = re.compile(r"(?<!\\)([&%#])")
#: values `_plain` decodes: no macro but an escaped &, %, _ or #, no math, no backquote
_PLAIN = re.compile(r"(?:[^\\$^`]|\\[&%_#$])*")
_ESCAPED = re.compile(r"\\([&%_#$])")
_DOLLAR = re.compile(r"(?<!\\)\$")
_MATH_MARK = re.compile(r"[\\^_{}]")
_LIGATURE = re.compile(r"---|--|''|~")
_LIGATURES = {"---": "\u2014", "--": "\u2013", "''": "\u201d", "~": "\xa0"}
_BRACE = re.compile(r"[{}]")
#: values at most this long are remembered (`_remembered`), at most `_REMEMBERED` of them
_SHORT = 600
_REMEMBERED = 1 << 16


def latex_text(value: str) -> str:
    """LaTeX to text: ``10.1000/a\\_b`` and ``{10.1000/ab}`` become DOIs, ``M{\\"a}ntym{\\"a}ki`` a name.
    A bare "&", "%" or "#" is the character itself, as exporters write it ("Science & Engineering"),
    not an alignment tab or a comment; so is a "$" that opens no math (`_dollars`: "US$1.90 a day and
    $2", which LaTeX would read as math and lose both signs). Text without LaTeX's special characters or
    ligatures is returned as it is."""
    if not value or not _LATEX.search(value):
        return value
    value = _dollars(value)
    plain = _plain(value)
    if plain is not None:
        return plain
    return _remembered(value) if len(value) <= _SHORT else _pylatexenc(value)


def _dollars(value: str) -> str:
    """`value` with each "$" that opens no math escaped: a "$" is math only with the next one, and only
    when LaTeX's math marks (a macro, "^", "_", a brace) stand between them ("$\\alpha$-synuclein");
    Scopus writes prices bare ("US$1.90 a day", "funded at $820.4 million")."""
    if "$" not in value:
        return value
    marks = [m.start() for m in _DOLLAR.finditer(value)]
    pieces, start, i = [], 0, 0
    while i < len(marks):
        if i + 1 < len(marks) and _MATH_MARK.search(value, marks[i] + 1, marks[i + 1]):
            i += 2
            continue
        pieces += [value[start:marks[i]], "\\"]
        start, i = marks[i], i + 1
    return "".join(pieces) + value[start:]


def _plain(value: str) -> str | None:
    """`value` as pylatexenc reads it, when it is plain enough (module docstring); else None. Braces end
    a ligature as they do in LaTeX ("-{}-" is two hyphens), so each piece between them is read alone."""
    if not _PLAIN.fullmatch(value):
        return None
    return "".join(_LIGATURE.sub(lambda m: _LIGATURES[m.group(0)], _ESCAPED.sub(r"\1", piece))
                   for piece in _BRACE.split(value))


@lru_cache(maxsize=_REMEMBERED)
def _remembered(value: str) -> str:
    return _pylatexenc(value)


def _decoded(value: str) -> str:
    """`value` as pylatexenc alone reads it, its prices kept (what `latex_text` must equal)."""
    return _pylatexenc(_dollars(value))


def _pylatexenc(value: str) -> str:
    """pylatexenc's text of `value`, whose dollars `_dollars` has already escaped."""
    return _decoder().latex_to_text(_BARE_SPECIAL.sub(r"\\\1", value))


@cache
def _decoder() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text()
