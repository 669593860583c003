"""The citation links of a files universe as arrays give the answers of plain dictionaries built row by
row from the same references table, in the same order, for any table and any question."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.sources.citation_links import Links

WORKS = ["W1", "W10", "W2", "W3", "W9"]          # not in numeric order: places are by sorted string
OUTSIDE = ["REF:a", "REF:b", "W7"]


def plain(rows: list[tuple[str, str]], ids: set[str]):
    refs, citers = {}, {}
    for work, ref in rows:
        refs.setdefault(work, []).append(ref)
        if ref in ids:
            citers.setdefault(ref, []).append(work)
    return refs, citers


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(WORKS), st.sampled_from(WORKS + OUTSIDE)), max_size=40),
       ask=st.lists(st.sampled_from(WORKS + ["W404"]), max_size=8))
def test_links_answer_as_dictionaries_built_row_by_row(rows, ask):
    ids = set(WORKS)
    table = pa.table({"work_id": pa.array([w for w, _ in rows], pa.string()),
                      "referenced_id": pa.array([r for _, r in rows], pa.string())})
    links = Links(table, ids)
    refs, citers = plain(rows, ids)
    assert links.references(ask) == {w: refs.get(w, []) for w in ask}
    assert links.reachable_references(ask) == {w: [r for r in refs.get(w, []) if r in ids] for w in ask}
    assert links.citing(ask) == {w: citers.get(w, []) for w in ask}


def test_the_first_and_last_works_are_linked_like_any_other():
    table = pa.table({"work_id": ["W1", "W9", "W9", "W1"], "referenced_id": ["W9", "W1", "REF:a", "W1"]})
    links = Links(table, WORKS)
    assert links.citing(["W1", "W9"]) == {"W1": ["W9", "W1"], "W9": ["W1"]}
    assert links.reachable_references(["W9"]) == {"W9": ["W1"]}
    assert links.references(["W9", "W1"]) == {"W9": ["W1", "REF:a"], "W1": ["W9", "W1"]}
