"""Embase RIS files built from the records of a real embase.com export and Ovid-shaped made-up
records (DB, U2, C5, several SN, KW with stars, L2 links into Embase segments, CR lines), with tricky
text spliced in, line ends and encodings varied, bytes flipped and files truncated: `ingest` returns
tables or raises a B2GError with exit code 2..5; never another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged


DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "embase"
EXPORT = (DATA / "embase-elsevier.ris").read_text(encoding="utf-8")
RECORDS = [r + "ER  - \n\n" for r in re.split(r"(?m)^ER  - *\n", EXPORT) if r.strip()]

TAGS = st.sampled_from(["TY", "ER", "DB", "U2", "C5", "SN", "KW", "L2", "UR", "ID", "AN", "DO", "T1", "T2",
                        "JF", "JO", "JA", "A1", "M3", "Y1", "CR", "LA", "SP", "EP", "ZZ"])
VALUES = st.sampled_from([
    "Embase", "Medline", "Embase Classic+Embase", "L2040010236", "L12", "621381829", "40755006", "PMID: 7",
    "1746-8108", "0955-470X\r1557-9816", "1234-5678 (Print)", "978-0-12-345678-9", "*quality of life", "*",
    "http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=emed18&NEWS=N&AN=616934541",
    "https://www.embase.com/search/results?subaction=viewrecord&id=L2004497780&from=export",
    "http://dx.doi.org/10.1/x", "Copyright 2018 Elsevier", "Smith J, 2001, J X, V1, P2", "Conference Abstract",
    "2018//", "JOUR", "", "\udc80", ";", "  - ",
]) | st.text(max_size=20)
SNIPPETS = ["TY  - JOUR\n", "ER  - \n", "DB  - Embase\n", "\n", "\r", "\r\n", "  - ", "\x00", "\ufeff", "\u2028"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def made_up_records(draw) -> str:
    lines = ["TY  - JOUR"] if draw(st.integers(0, 5)) else []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(VALUES))  # a continuation or stray line
        else:
            lines.append(f"{draw(TAGS)}{draw(st.sampled_from(['  - ', '  -', ' - ']))}{draw(VALUES)}")
    if draw(st.integers(0, 5)):
        lines.append("ER  - ")
    return "\n".join(lines) + "\n"


@st.composite
def embase_files(draw) -> bytes:
    text = "".join(draw(st.lists(st.sampled_from(RECORDS) | made_up_records(), max_size=4)))
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@given(data=embase_files(), strict=st.booleans())
def test_embase_ris_ingests_or_fails_typed(tmp_path_factory, ingested, data, strict):
    path = tmp_path_factory.getbasetemp() / "embase.ris"
    path.write_bytes(data)
    bundle = ingested(path, "fuzz.ris", "ris", strict)
    if bundle is None:
        return
    works = bundle.works
    for value in works["issn"].dropna():
        assert re.fullmatch(r"\d{4}-\d{3}[\dX]", value), value
