"""Fuzz `config/curation.tsv`: reading any bytes, and recording into any file, raises only typed errors."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bib2graph import curation

IDS = ["W1", "w2", "https://openalex.org/W3", "openalex.org/w4", " W5 ", "W", "X1", "W1x", "W١", "", "work_id",
       "10.1/x", "#W6"]
DECISIONS = ["accept", "reject", "ACCEPT", " Reject ", "maybe", "", "decision"]
cell = st.one_of(st.sampled_from(IDS), st.sampled_from(DECISIONS), st.text(max_size=12),
                 st.sampled_from(["off topic", "  ", "\u2028", "\x0c", "x" * 5000]))
plain = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=5)
work_ids = st.one_of(st.integers(0, 10**6).map("W{}".format), st.integers(0, 10**6).map("https://openalex.org/w{}".format))
row = st.tuples(work_ids, st.sampled_from(["accept", "reject", "Accept"]), st.sampled_from(["", "off topic", "x  y"]),
                plain, plain).map(lambda cells: "\t".join(cells[:2 + len(cells[2]) % 4]))
line = st.one_of(row, row, row, st.lists(cell, max_size=7).map("\t".join))
ENDINGS = ["\n", "\r\n", "\r"]
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32"]


@st.composite
def tsv_files(draw, lines=line) -> bytes:
    """Curation files as people and spreadsheets write them, and broken in the ways they break."""
    lines = draw(st.lists(lines, max_size=8))
    if draw(st.booleans()):
        lines.insert(0, curation.header().rstrip("\n"))
    text = draw(st.sampled_from(ENDINGS)).join(lines) + draw(st.sampled_from(["", "\n"]))
    data = text.encode(draw(st.sampled_from(ENCODINGS)), errors="surrogatepass")
    if draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=4)) + data[at:]
    return data


files = st.one_of(tsv_files(row), tsv_files(), tsv_files(), st.binary(max_size=300))
decisions = st.builds(curation.Decision, st.sampled_from(IDS), st.sampled_from(DECISIONS), cell, cell, cell)


def _sound(found: dict[str, curation.Decision]) -> None:
    for work_id, d in found.items():
        assert work_id == d.work_id and curation.work_id_of(work_id) == work_id
        assert d.decision in curation.DECISIONS and (d.decision == "accept" or d.reason)


@given(files)
def test_read_any_file(scratch, typed, data):
    path = scratch / "read.tsv"
    path.write_bytes(data)
    found = typed(curation.read, path)
    if found is not None:
        _sound(found)
        path.write_text(curation.render(found), encoding="utf-8")
        assert curation.read(path) == found  # what is read, written back, reads the same


@given(files, st.lists(decisions, max_size=4))
def test_record_is_all_or_nothing(scratch, typed, data, new):
    path = scratch / "record.tsv"
    path.write_bytes(data)
    after = typed(curation.record, path, new)
    if after is None:
        assert path.read_bytes() == data
    else:
        _sound(after)
        assert curation.read(path) == after
