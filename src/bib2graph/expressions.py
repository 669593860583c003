"""Boolean term expressions for screening: ``rat AND ("object recognition" OR context*) AND NOT review``.

Grammar (pyparsing's infix notation): words, "quoted phrases", a trailing ``*`` for a prefix,
parentheses, and the operators NOT > AND > OR (case-insensitive, always written out).
A term matches a text when it occurs as whole words, ignoring case and punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from .errors import SpecError

if TYPE_CHECKING:   # pyparsing is imported where an expression is parsed: most workflow jobs parse none
    import pyparsing as pp

Predicate = Callable[[str], bool]


def normalize_text(text: str) -> str:
    """Lower case, words separated by single spaces, padded so that whole-word matches are substring tests."""
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


@dataclass(frozen=True)
class _Term:
    words: str
    prefix: bool

    def __call__(self, text: str) -> bool:
        needle = " " + self.words + ("" if self.prefix else " ")
        return needle in text


def _term(tokens: pp.ParseResults) -> _Term:
    raw = tokens[0]
    prefix = raw.endswith("*")
    words = normalize_text(raw.rstrip("*")).strip()
    if not words:
        import pyparsing as pp

        raise pp.ParseException(raw, 0, "a term needs at least one letter or digit")
    return _Term(words, prefix)


def _not(tokens):
    inner = tokens[0][1]
    return lambda text: not inner(text)


def _and(tokens):
    parts = [p for p in tokens[0] if not isinstance(p, str)]
    return lambda text: all(p(text) for p in parts)


def _or(tokens):
    parts = [p for p in tokens[0] if not isinstance(p, str)]
    return lambda text: any(p(text) for p in parts)


@lru_cache(maxsize=1)
def _grammar() -> pp.ParserElement:
    import pyparsing as pp

    and_, or_, not_ = (pp.CaselessKeyword(k) for k in ("AND", "OR", "NOT"))
    word = ~(and_ | or_ | not_) + pp.Regex(r"[^\s()\"]+")
    phrase = pp.QuotedString('"', unquote_results=True) + pp.Optional(pp.Literal("*"))
    term = (pp.Combine(phrase) | word).set_parse_action(_term)
    return pp.infix_notation(term, [
        (not_, 1, pp.OpAssoc.RIGHT, _not),
        (and_, 2, pp.OpAssoc.LEFT, _and),
        (or_, 2, pp.OpAssoc.LEFT, _or),
    ])


def compile_expression(expression: str, place: str = "filter") -> Predicate:
    """A predicate over normalised text; a malformed expression is a SpecError naming its place."""
    import pyparsing as pp

    try:
        return _grammar().parse_string(expression, parse_all=True)[0]
    except pp.ParseBaseException as exc:
        why = "expected a term or a \"phrase\"" if "Combine" in exc.msg else exc.msg.lower()
        raise SpecError(f"{place}: cannot read the expression {expression!r} at column {exc.col}: {why}",
                        code="SPEC_INVALID", details={"key": place.rsplit(".", 1)[-1], "place": place}) from None
