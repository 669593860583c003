"""A network's thesaurus: a TSV file a person edits to merge or drop terms, authors or institutions
before counting (networks keywords, coauthorship and institutions).

The header ``term_id<TAB>replace_by`` (or VOSviewer's ``label<TAB>replace by``, same meaning) comes first;
then one ``term<TAB>target`` a line, where an empty target drops the term. Blank lines and lines starting with ``#`` are skipped. Chains are followed
(``a → b`` and ``b → c`` map both a and b to c), so the order of the lines does not matter. Each problem
is a DataError (code THESAURUS_INVALID) whose message starts with ``file:line:``: a missing header, a
line without exactly two cells, an empty term, a term mapped to two different targets (both lines are
named), a cycle (named with its lines).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import textio
from .errors import DataError

if TYPE_CHECKING:
    import pandas as pd

HEADER = ("term_id", "replace_by")
#: The headers a thesaurus may start with: ours, and VOSviewer's.
HEADERS = (HEADER, ("label", "replace by"))


def _invalid(path: Path, line: int, message: str, **details) -> DataError:
    return DataError(f"{path}:{line}: {message}", code="THESAURUS_INVALID",
                     details={"file": str(path), "line": line, **details})


def _text(path: Path) -> str:
    try:
        return textio.read_text(path)
    except DataError as exc:
        if exc.code == "FILE_MISSING":
            raise DataError(f"thesaurus {path} does not exist; check the thesaurus it is named by in the spec",
                            code="THESAURUS_MISSING", details=exc.details) from None
        raise


def _entries(path: Path, text: str) -> dict[str, tuple[str, int]]:
    """term → (target, line) as written; a term given the same target twice keeps its first line."""
    entries: dict[str, tuple[str, int]] = {}
    header = False
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if not header:
            if tuple(" ".join(c.lower().split()) for c in cells) not in HEADERS:
                raise _invalid(path, number, "the first line must be the header term_id<TAB>replace_by (or "
                                             f"VOSviewer's label<TAB>replace by), not {line[:80]!r}")
            header = True
        elif len(cells) != 2:
            raise _invalid(path, number, f"{len(cells)} tab-separated cells; a line is term_id<TAB>replace_by "
                                         "(an empty replace_by drops the term)")
        elif not cells[0]:
            raise _invalid(path, number, "the term_id is empty")
        elif entries.setdefault(cells[0], (cells[1], number))[0] != cells[1]:
            target, first = entries[cells[0]]
            raise _invalid(path, number, f"{cells[0]!r} is replaced by {cells[1]!r} here but by {target!r} on line "
                                         f"{first}; keep one of the two lines", first_line=first)
    if not header:
        raise _invalid(path, 1, "no header line; the first line must be term_id<TAB>replace_by (or VOSviewer's "
                                "label<TAB>replace by)")
    return entries


def _resolve(path: Path, entries: dict[str, tuple[str, int]]) -> dict[str, str]:
    """Each term's final target, following chains; a cycle is a DataError naming it and its lines."""
    resolved: dict[str, str] = {}
    for term in entries:
        chain, target = [term], entries[term][0]
        on_chain = {term}
        while target in entries and target not in resolved:
            if target in on_chain:
                cycle = chain[chain.index(target):] + [target]
                lines = [entries[t][1] for t in cycle[:-1]]
                raise _invalid(path, lines[0], f"the replacements {' → '.join(cycle)} form a cycle (lines "
                                               f"{', '.join(map(str, lines))}); remove one of them", cycle=cycle)
            chain.append(target)
            on_chain.add(target)
            target = entries[target][0]
        final = resolved.get(target, target)
        resolved.update((t, final) for t in chain)
    return resolved


def read(path: str | Path) -> dict[str, str]:
    """term → the term it becomes ("" drops it), chains resolved, in the file's order."""
    path = Path(path)
    entries = _entries(path, _text(path))
    resolved = _resolve(path, entries)
    return {term: resolved[term] for term in entries}


def read_thesaurus(path: str | Path) -> pd.DataFrame:
    """`read` as the table `networks.item_thesaurus.apply_thesaurus` takes (columns term_id, replace_by)."""
    import pandas as pd  # here, so that reading a thesaurus alone stays light

    return pd.DataFrame(list(read(path).items()), columns=list(HEADER), dtype=object)
