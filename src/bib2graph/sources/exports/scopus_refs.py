"""Scopus's reference lists (a CSV "References" cell, a RIS "N1  - References:" note) cut into
references."""

from __future__ import annotations

import re

# "Surname, I." or "Surname, I.J.-K.": an old-style author name standing alone.
_BARE_NAME = re.compile(r"^[^,;()\d]+, (?:[A-Z][a-z]?\.[\s-]?)+$")
# "Springer-Verlag: Berlin", "Kluwer Academic: Norwell, MA, USA": a publisher and its place (comma parts
# of a few capitalised words), the tail of a book's reference.
_PUBLISHER_TOWN = re.compile(r"^[^,;:()\d]{2,60}: [A-Z][\w.'-]*(?: [\w.'-]+){0,2}(?:, [A-Z][\w.'-]*(?: [\w.'-]+){0,2}){0,3}$")


def split_references(cell: str | None) -> list[str]:
    """The references of a Scopus "References" cell. Scopus joins references with "; ", which also
    occurs inside a few references (edited books list their editors "Deuflhard, P.; Hermans, J.,
    Eds.; Springer-Verlag: Berlin"): a part joins the one before it when that one is a bare
    "Surname, I." or ends in "Eds.", or when the part is a bare "Publisher: Town, State, Country". Joining the
    result with "; " gives the cell back."""
    refs: list[str] = []
    for part in (cell or "").split("; "):
        if refs and (_BARE_NAME.match(refs[-1].rpartition("; ")[2]) or refs[-1].endswith("Eds.")
                     or _PUBLISHER_TOWN.match(part)):
            refs[-1] = f"{refs[-1]}; {part}"
        else:
            refs.append(part)
    return [r for r in refs if r.strip()]
