"""Web of Science exports built from the records of the real plain-text and tab-delimited files plus
made-up lines (unknown tags, stray text, records without ER or UT, odd C1 brackets and OI entries), with
tricky text spliced in, line ends and encodings varied, bytes flipped and files truncated: `read_wos`
and `read_wos_tab` yield well-typed Records or raise a B2GError with exit code 2..5 naming the file;
`detect_format` returns a known format or None; never another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from damage import damaged

from bib2graph.errors import B2GError
from bib2graph.skips import Skips
from bib2graph.sources.exports.detect import FORMATS, detect_format
from bib2graph.sources.exports.record import Record
from bib2graph.sources.exports.wos import read_wos, read_wos_tab

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "wos"
PLAIN = (SHARED / "wos_plaintext.txt").read_text(encoding="utf-8-sig")
RECORDS = [r + "ER\n\n" for r in re.split(r"(?m)^ER *\n", PLAIN.split("VR 1.0\n", 1)[1]) if r.strip().startswith("PT")]
TAB_LINES = (SHARED / "wos_tab_delimited_win_utf8.txt").read_text(encoding="utf-8-sig").splitlines()

TAGS = st.sampled_from(["PT", "ER", "UT", "AU", "AF", "C1", "CR", "OI", "RI", "PY", "PD", "DT", "LA", "TI",
                        "DI", "PM", "Z9", "TC", "BP", "AR", "EY", "FN", "VR", "EF", "zz", "1A"])
VALUES = st.sampled_from([
    "WOS:000123", "ISI:42", "MEDLINE:7", "", "[Smith, J; Doe, Jane] Univ X, Dept Y, Paris, France.",
    "[Smith, J", "] Nowhere", "Smith, J/0000-0001-2345-6789; /x; Doe/", "JAN 31", "FEB 30", "SPR", "²³",
    "99999", "0", "Article; Proceedings Paper", "Retracted Publication", "RETRACTED: x", "Greek",
    "10.1/x", "Smith J, 2001, J X, V1, P2, DOI 10.1/y", "Peoples R China", "\udc80", ";", "[", "]",
]) | st.text(max_size=20)
SNIPPETS = ["PT J\n", "ER\n", "EF\n", "\n", "\r", "\r\n", "   ", "\t", "UT WOS:1\n", "\x00", "\ufeff", "C1 [",
            "\u2028"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def made_up_lines(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 4)) == 0:
            lines.append("   " + draw(VALUES))  # a continuation or stray line
        else:
            lines.append(f"{draw(TAGS)}{draw(st.sampled_from([' ', '', '  ', chr(9)]))}{draw(VALUES)}")
    return "\n".join(lines) + "\n"


@st.composite
def plain_files(draw) -> bytes:
    header = draw(st.sampled_from(["FN Clarivate Analytics Web of Science\nVR 1.0\n", ""]))
    text = header + "".join(draw(st.lists(st.sampled_from(RECORDS) | made_up_lines(), max_size=4)))
    text += draw(st.sampled_from(["EF\n", ""]))
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@st.composite
def tab_files(draw) -> bytes:
    rows = draw(st.lists(st.sampled_from(TAB_LINES[1:]) | st.lists(VALUES, max_size=70).map("\t".join),
                         max_size=4))
    text = "\n".join([TAB_LINES[0], *rows]) + "\n"
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return damaged(draw, text, SNIPPETS + ["\t", "\t\t\t"], ENCODINGS)


def _check(reader, path: Path, strict: bool) -> None:
    try:
        records = list(reader(path, "fuzz.txt", Skips(strict=strict)))
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5, exc
        assert "fuzz.txt" in exc.message, exc
        event(f"{reader.__name__}: {exc.code}")
        return
    event(f"{reader.__name__}: {'records' if records else 'no records'}")
    for record in records:
        assert isinstance(record, Record) and record.ids["wos"]
        assert record.year is None or isinstance(record.year, int)
        assert record.doi is None or record.doi.startswith("10.")
        for author in record.authors:
            assert all(0 <= i < len(record.institutions) for i in author.affiliations)
        assert all(isinstance(ref.raw, str) and ref.raw and ref.line >= 1 for ref in record.references)


@given(data=plain_files(), strict=st.booleans())
def test_wos_plain_reads_or_fails_typed(scratch, data, strict):
    path = scratch / "wos.txt"
    path.write_bytes(data)
    _check(read_wos, path, strict)
    assert detect_format(path) in (*FORMATS, None)


@given(data=tab_files(), strict=st.booleans())
def test_wos_tab_reads_or_fails_typed(scratch, data, strict):
    path = scratch / "wos-tab.txt"
    path.write_bytes(data)
    _check(read_wos_tab, path, strict)
    assert detect_format(path) in (*FORMATS, None)
