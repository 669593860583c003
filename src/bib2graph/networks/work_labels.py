"""How a work is named on a map: "First author (year) title", from whatever the data holds.

Maps name works by first author and year, as VOSviewer and CiteSpace do; the title (or, without one,
the venue) tells apart two works of one author and year. Labels are cut deterministically to
`MAX_CHARS` at a word boundary, without the inline markup titles carry (`<i>…</i>`, `&amp;`); a work the
data knows nothing about keeps its ID. Work nodes take their metadata from the corpus, else from the table
of cited works (`bib2graph.cited`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..textio import without_markup

MAX_CHARS = 80
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def _clean(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return ""
    return " ".join(str(value).split()) if isinstance(value, str) else str(value)


def _plain(value) -> str:
    """`_clean` text without the inline markup it carries (a tag left out can leave two spaces)."""
    return _clean(without_markup(_clean(value)))


def surname(name) -> str:
    """The family name in an author's name: the part before a comma ("Smith, J."), else the last word
    that is not a suffix ("Jr.", "III"); "" for no name."""
    name = _clean(name)
    if "," in name:
        return name.split(",", 1)[0].strip()
    words = name.split()
    while len(words) > 1 and words[-1].lower() in _SUFFIXES:
        words.pop()
    return words[-1] if words else ""


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut at the last word boundary that keeps at least half of
    it (else mid-word), closed by an ellipsis."""
    text = _clean(text)
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…" if limit == 1 else ""
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= (limit - 1) // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–") + "…"


def work_label(work_id: str, first_author=None, year=None, title=None, venue=None,
               max_chars: int = MAX_CHARS, *, author_is_surname: bool = False) -> str:
    """ "Smith (2019) A title" from the parts known; the title falls back to the venue, the whole to
    the ID when no part is known. `author_is_surname`: `first_author` is already the family name."""
    year_text = "" if _clean(year) == "" else f"({int(year)})"
    author = first_author if author_is_surname else surname(first_author)
    head = " ".join(p for p in (author, year_text) if p)
    text = _plain(title) or _plain(venue)
    if not head and not text:
        return str(work_id)
    if not text:
        return shorten(head, max_chars)
    if not head:
        return shorten(text, max_chars)
    room = max_chars - len(head) - 1
    return f"{head} {shorten(text, room)}" if room >= 8 else shorten(f"{head} {text}", max_chars)


def _values(column: pd.Series) -> list:
    """A column as plain Python values, None where missing (iterating Arrow-backed strings is slow)."""
    return column.to_numpy(dtype=object, na_value=None).tolist()


def name_work_nodes(nodes: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """Work nodes labelled from `meta` (`bib2graph.cited.META` columns, one row per work); nodes outside
    the corpus also take their year and DOI from it where known."""
    known = meta.drop_duplicates("work_id").set_index("work_id").reindex(nodes["node_id"])
    parts = ("first_author", "year", "title", "venue")
    labels = nodes["node_id"].astype(str).to_numpy(dtype=object).copy()
    where = np.flatnonzero(known[list(parts)].notna().any(axis=1).to_numpy())
    columns = [_values(known[name].iloc[where]) for name in parts]
    names = {a: surname(a) for a in set(columns[0])}
    labels[where] = [work_label(w, names[a], y, t, v, author_is_surname=True)
                     for w, a, y, t, v in zip(labels[where].tolist(), *columns)]
    outside = ~nodes["in_corpus"].to_numpy(dtype=bool)
    year = pd.array(nodes["year"], dtype="Int64").copy()
    found = pd.array(known["year"], dtype="Int64")
    take = outside & year.isna() & ~found.isna()
    year[take] = found[take]
    doi = nodes["doi"].to_numpy(dtype=object).copy()
    found_doi = known["doi"].to_numpy(dtype=object)
    take = outside & pd.isna(doi) & ~pd.isna(found_doi)
    doi[take] = found_doi[take]
    return nodes.assign(label=labels, year=year, doi=doi)
