"""Author names for the column-wise bibliography: `split_name` and the three formats' name forms
(`bibtex_parts`, `ris_parts`, `csl_parts`) as Arrow kernels over a column of distinct names.

A corpus chunk of 20,000 works holds some 80,000 distinct names; split and formatted in Python they
were most of the column-wise writer's time. The common name (no comma, no suffix, no ``and``: "Jan van
der Berg", "李 小龍", "Madonna") is split by one RE2 expression stating `split_name`'s rule: the last
word is the family name with the lower-case particles right before it, and at least one word stays
the given name; one word alone is a literal. Every other name (a comma, a last word that may be a
suffix, letters that spell ``and``, which BibTeX would brace) is left to bibliography.py's functions,
one call per name: those rules are not worth restating.
"""

from __future__ import annotations

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from . import text_columns as tc
from .bibliography import _PARTICLES, _SUFFIXES, bibtex_parts, csl_parts, one_line, ris_parts, split_name
from .text_columns import cat

_PARTICLE_RUN = "(?:(?:" + "|".join(sorted(_PARTICLES)) + ") )*"
#: `split_name` of a name of two or more words, on one line, with no comma and no suffix
_SPLIT = f"^(?P<given>.+?) (?P<family>{_PARTICLE_RUN}[^ ]+)$"
#: A last word `split_name` may take for a suffix (any letter case): the name goes to Python
_SUFFIX = "(?:^| )(?:" + "|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else "\\" + c for c in s)
                                 for s in sorted(_SUFFIXES)) + ")$"
#: A name the kernels leave to Python: a comma, a possible suffix, or ``and`` in any case (`_AND`)
_PYTHON = f",|[Aa][Nn][Dd]|{_SUFFIX}"
#: CSL name objects' indents in an item: the array's elements, and their members
CSL_PAD = " " * 6


def name_forms(names: pa.Array) -> dict[str, pa.Array]:
    """Per name: ``bibtex`` (`bibtex_parts`), ``ris`` (the RIS ``AU`` line, empty when the name is
    blank) and ``csl`` (the name object's JSON, indented as it stands in an item's author array)."""
    line = tc.one_line(names)
    literal = pc.invert(pc.match_substring(line, " "))
    parts = pc.extract_regex(line, _SPLIT)
    family, given = parts.field("family"), parts.field("given")
    member = f"{CSL_PAD}  "
    forms = {
        "bibtex": pc.if_else(literal, cat("{", tc.bibtex(line), "}"), cat(tc.bibtex(family), ", ", tc.bibtex(given))),
        "ris": pc.if_else(literal, pc.if_else(pc.equal(line, ""), tc.text(""), cat("AU  - ", line, "\n")),
                          cat("AU  - ", family, ", ", given, "\n")),
        "csl": pc.if_else(literal, cat(f'{CSL_PAD}{{\n{member}"literal": ', tc.json_string(line), f"\n{CSL_PAD}}}"),
                          cat(f'{CSL_PAD}{{\n{member}"family": ', tc.json_string(family), f',\n{member}"given": ',
                              tc.json_string(given), f"\n{CSL_PAD}}}")),
    }
    odd = pc.match_substring_regex(line, _PYTHON)
    return {kind: tc.python(form, odd, lambda name, kind=kind: PYTHON_FORMS[kind](split_name(name)), source=names)
            for kind, form in forms.items()}


def _ris_line(parts) -> str:
    line = one_line(ris_parts(parts))
    return f"AU  - {line}\n" if line else ""


def _csl_text(parts) -> str:
    text = orjson.dumps(csl_parts(parts), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode("utf-8")
    return CSL_PAD + text.replace("\n", "\n" + CSL_PAD)


#: The forms of a split name, as bibliography.py writes them, for the names the kernels leave
PYTHON_FORMS = {"bibtex": bibtex_parts, "ris": _ris_line, "csl": _csl_text}
