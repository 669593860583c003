"""Fuzz `b2g curate apply FILE`: any file raises only typed errors, and a failed apply records nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib2graph import curation
from bib2graph.service import curate_file
from bib2graph.service.init import init_workspace
from bib2graph.service.workspace import Workspace

NAMES = ["work_id", "id", "doi", "openalex_id", "decision", "reason", "title", " Decision ", "REASON", ""]
VALUES = ["W1", "w2", "https://openalex.org/W3", "https://doi.org/10.1/x", "10.1/y", "", "accept", "reject",
          "Reject", "maybe", "'=SUM(1)", "'-x", "off topic", '"', '""', "a,b", "a;b", "a\tb", "two\nlines", "\x00"]
cell = st.one_of(st.sampled_from(VALUES), st.text(max_size=10))
DELIMITERS = [",", ";", "\t"]
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le"]


good_row = st.tuples(st.integers(0, 10**6).map("W{}".format), st.text(max_size=10),
                    st.sampled_from(["accept", "reject", "", "ACCEPT"]),
                    st.sampled_from(["off topic", "'=HYPERLINK(1)", "a, b; c"])).map(list)


def _quoted(value: str, quote: str) -> str:
    """`value` quoted always, never, or when it needs it (as Excel does)."""
    needed = quote == "needed" and any(c in value for c in ',;\t\n\r"')
    return '"' + value.replace('"', '""') + '"' if quote == "always" or needed else value


@st.composite
def csv_files(draw) -> bytes:
    """Reviewed sheets as Excel and people save them: any of three delimiters, quoted or not, ragged."""
    sep = draw(st.sampled_from(DELIMITERS))
    header = draw(st.one_of(st.just(["work_id", "title", "decision", "reason"]), st.lists(st.sampled_from(NAMES),
                                                                                          max_size=6)))
    rows = draw(st.lists(st.one_of(good_row, good_row, st.lists(cell, max_size=len(header) + 2)), max_size=8))
    quote = draw(st.sampled_from(["always", "needed", "never"]))
    lines = [sep.join(_quoted(v, quote) for v in r) for r in [header, *rows]]
    text = draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines) + "\r\n"
    return text.encode(draw(st.sampled_from(ENCODINGS)), errors="surrogatepass")


files = st.one_of(csv_files(), csv_files(), st.binary(max_size=300))


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Workspace:
    root = tmp_path_factory.mktemp("ws")
    init_workspace(root, force=True)
    return Workspace(root, "flag")


def _sound(rows) -> None:
    for row in rows:
        assert row["decision"] in ("", *curation.DECISIONS)
        assert row["decision"] != "reject" or curation.clean(row["reason"])
    assert [r["line"] for r in rows] == sorted({r["line"] for r in rows})


@given(files)
def test_read_rows_of_any_file(scratch, typed, data):
    path = scratch / "reviewed.csv"
    path.write_bytes(data)
    rows = typed(curate_file.read_rows, path)
    if rows is not None:
        _sound(rows)


@given(files)
def test_apply_is_all_or_nothing(ws, scratch, typed, data):
    path, tsv = scratch / "apply.csv", ws.path("config/curation.tsv")
    path.write_bytes(data)
    before = tsv.read_bytes()
    result = typed(curate_file.apply, ws, str(path), "fuzz", "t")
    if result is None:
        assert tsv.read_bytes() == before
    else:
        recorded = curation.read(tsv)
        assert all(recorded[w].decided_by == "fuzz" for w in result.data["applied"])
