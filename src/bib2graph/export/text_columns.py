"""The bibliographies' text rules (bibliography.py) as Arrow kernels over whole columns: `one_line`,
`bibtex_text` and orjson's JSON strings, each giving, value for value, the string the Python function
gives.

RE2, Arrow's regex engine, differs from Python's `re` where it matters here, so the rules are stated
in its terms: its ``\\s`` is ASCII, so white space is Python's own set spelled out; it has no
look-around, so TeX's ligature break is a replacement of both characters, run twice. A kernel that
rewrites a whole column is slow when almost no value needs it (RE2 replacing every single space was
seven times the cost of a scan), so the rare rewrites (backslashes, control characters, ligatures) go
only to the rows a scan finds (`where`).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

#: Text columns are large strings, as pandas writes them: a chunk's entries may pass 2 GB
TEXT = pa.large_string()

#: White space as Python's str.split(), str.strip() and re's \s see it: every character for which
#: str.isspace() holds (a test checks)
PYTHON_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                 "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: The same but " ", as RE2 escapes inside a character class
_SPACES = "".join(f"\\x{{{ord(c):x}}}" for c in PYTHON_SPACES if c != " ")
#: A run of white space that is not one plain space: only those are rewritten
_ODD_RUN = f" [ {_SPACES}]+|[{_SPACES}][ {_SPACES}]*"
#: BibTeX's specials but the backslash, in an order in which no replacement is replaced again
_SPECIALS = [("{", r"\{"), ("}", r"\}"), ("%", r"\%"), ("&", r"\&"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"),
             ("~", r"\textasciitilde{}")]
_ANY_SPECIAL = r"[\\{}%&$#_~]"
#: `textio.UNPRINTABLE` as RE2 writes it
_UNPRINTABLE = r"[\x{0}-\x{8}\x{e}-\x{1b}\x{7f}-\x{84}\x{86}-\x{9f}\x{fffe}\x{ffff}]"
#: Two characters TeX would join (`_LIGATURE`'s look-behind and look-ahead)
_PAIR = r"([-`'?!])([-`'])"
_JSON_SHORT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def text(value: str) -> pa.Scalar:
    """A text for every row."""
    return pa.scalar(value, TEXT)


def cat(*parts, nulls: str = "emit_null", separator: str = "") -> pa.Array:
    """The parts (columns, or texts for every row) joined row by row by `separator`: null where a
    column is null, or (``nulls="skip"``) without the null columns, separator and all."""
    return pc.binary_join_element_wise(*(text(p) if isinstance(p, str) else p for p in parts), text(separator),
                                       null_handling=nulls)


def nonempty(values: pa.Array) -> pa.Array:
    """The values, with empty strings null: a field the writers leave out."""
    return pc.if_else(pc.equal(values, ""), pa.scalar(None, values.type), values)


def where(values: pa.Array, mask: pa.Array, fix, source: pa.Array | None = None) -> pa.Array:
    """`values` with the rows `mask` marks replaced by `fix` of those rows (of `source`, default
    `values`), so that a costly rewrite touches only the rows that need it."""
    mask = pc.fill_null(mask, False)
    if not pc.any(mask).as_py():
        return values
    return pc.replace_with_mask(values, mask, fix((values if source is None else source).filter(mask)))


def python(values: pa.Array, mask: pa.Array, function, source: pa.Array | None = None) -> pa.Array:
    """`values` with the rows `mask` marks replaced by `function` of each (of `source`'s row, default
    `values`'), in Python: the few rows no kernel states exactly."""
    return where(values, mask, lambda some: pa.array([function(v) for v in some.to_pylist()], values.type), source)


def per_distinct(values: pa.Array, function) -> pa.Array:
    """`function` of each value, called once per distinct value (nulls stay null)."""
    encoded = pc.dictionary_encode(values)
    forms = pa.array([function(v) for v in encoded.dictionary.to_pylist()], TEXT)
    return pc.take(forms, encoded.indices)


def one_line(values: pa.Array) -> pa.Array:
    """`one_line` of each value: the characters no text means left out, every run of white space one
    space, none at either end."""
    if pc.any(pc.match_substring_regex(values, _UNPRINTABLE)).as_py():
        values = pc.replace_substring_regex(values, _UNPRINTABLE, "")
    return pc.utf8_trim(pc.replace_substring_regex(values, _ODD_RUN, " "), " ")


def bibtex(lines: pa.Array) -> pa.Array:
    """`bibtex_text` of values already on one line (`one_line`): specials escaped, TeX ligatures broken."""
    escaped = where(lines, pc.match_substring_regex(lines, _ANY_SPECIAL), lambda some: where(
        _escape_specials(some), pc.match_substring(some, "\\"), _escape_with_backslashes, source=some))
    return where(escaped, pc.match_substring_regex(escaped, _PAIR),
                 lambda some: pc.replace_substring_regex(pc.replace_substring_regex(some, _PAIR, r"\1{}\2"),
                                                         _PAIR, r"\1{}\2"))


def _escape_specials(values: pa.Array) -> pa.Array:
    for char, escaped in _SPECIALS:
        values = pc.replace_substring(values, char, escaped)
    return values


def _escape_with_backslashes(values: pa.Array) -> pa.Array:
    """`_escape_specials` of the pieces between backslashes, joined by ``\\textbackslash{}``: that
    replacement holds braces that must not be escaped, and the braces' replacements a backslash."""
    pieces = pc.split_pattern(values, "\\")
    escaped = _escape_specials(pieces.flatten())
    return pc.binary_join(pa.ListArray.from_arrays(pieces.offsets, escaped), text(r"\textbackslash{}"))


def json_string(values: pa.Array) -> pa.Array:
    """Each value as orjson writes a string: ``\\"``, ``\\\\``, the short escapes, other control
    characters as ``\\u00xx``, every other character as it is."""
    escaped = pc.replace_substring(pc.replace_substring(values, "\\", "\\\\"), '"', '\\"')

    def controls(some: pa.Array) -> pa.Array:
        for code in range(0x20):
            char = chr(code)
            some = pc.replace_substring(some, char, _JSON_SHORT.get(char, f"\\u{code:04x}"))
        return some

    return cat('"', where(escaped, pc.match_substring_regex(escaped, "[\\x00-\\x1f]"), controls), '"')
