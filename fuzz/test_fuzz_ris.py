"""RIS seed files built from the records of a real IEEE export plus made-up lines (unknown tags, stray
text, records without ER, DOIs in DO and UR), with tricky text spliced in, line ends and encodings
varied, bytes flipped and files truncated: `read_seed_entries` returns well-typed entries or raises a
B2GError with exit code 2..5; never another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged

from bib2graph.errors import B2GError
from bib2graph.skips import Skips
from bib2graph.sources.files import read_seed_entries

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
EXPORT = (SHARED / "ris" / "litstudy-ieee-example.ris").read_text(encoding="utf-8")
RECORDS = [r + "ER  - \n" for r in re.split(r"(?m)^ER  - *\r?\n", EXPORT) if r.strip()]

TAGS = st.sampled_from(["TY", "ER", "DO", "UR", "ID", "TI", "T1", "AU", "KW", "UK", "ZZ", "VO", "A1", "N1", "L1"])
VALUES = st.sampled_from([
    "10.1000/a_b", "https://doi.org/10.1000/x%2Fy", "http://dx.doi.org/10.1/B; https://doi.org/10.2/c",
    "doi:10.1/x", "not a doi", "", "JOUR", "%", "\\", ";", "  -", "\udc80",
]) | st.text(max_size=20)
SNIPPETS = ["TY  - JOUR\n", "ER  - \n", "\n", "\r", "\r\n", "  - ", "DO  - 10.1/z\n", "\x00", "\ufeff", "TY", "\u2028"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def made_up_lines(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 4)) == 0:
            lines.append(draw(VALUES))  # a continuation or stray line
        else:
            lines.append(f"{draw(TAGS)}{draw(st.sampled_from(['  - ', '  -', ' - ', '  - ']))}{draw(VALUES)}")
    return "\n".join(lines) + "\n"


@st.composite
def ris_files(draw) -> bytes:
    text = "".join(draw(st.lists(st.sampled_from(RECORDS) | made_up_lines(), max_size=5)))
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@given(data=ris_files(), strict=st.booleans())
def test_ris_reads_or_fails_typed(tmp_path_factory, data, strict):
    path = tmp_path_factory.getbasetemp() / "seeds.ris"
    path.write_bytes(data)
    try:
        entries = read_seed_entries(path, "fuzz.ris", Skips(strict=strict))
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5, exc
        assert "fuzz.ris" in exc.message, exc
        return
    for entry in entries:
        assert isinstance(entry.key, str) and entry.work_id is None
        assert entry.doi is None or entry.doi.startswith("10.")
        for text in (entry.key, entry.doi, entry.title):
            assert text is None or isinstance(text, str) and text.encode("utf-8") is not None  # no surrogates
