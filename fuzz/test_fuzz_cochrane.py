"""Cochrane CENTRAL text files built from the records of the (constructed) test export plus made-up
"TAG: value" lines (IDs of every shape, PM/XR cross-references, ";"-joined authors, continuation and
stray lines, records without ID), with tricky text spliced in, line ends and encodings varied, bytes
flipped and files truncated: `ingest` returns tables or raises a B2GError with exit code 2..5; never
another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged


DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "cochrane"
EXPORT = (DATA / "central-constructed.txt").read_text(encoding="utf-8")
RECORDS = [r for r in re.split(r"(?m)^(?=Record #)", EXPORT) if r.strip()]

TAGS = st.sampled_from(["ID", "AU", "TI", "SO", "YR", "VL", "NO", "PG", "PM", "XR", "PT", "KY", "DOI", "AB", "US",
                        "CC", "SN", "LA", "ZZ", "id", "A"])
VALUES = st.sampled_from([
    "CN-01234567", "CN-", "CN-x1", "PUBMED 123", "PUBMED 0", "EMBASE 42; PUBMED 99999999999", "Smith J; Jones A",
    ";", "*Adult; *", "123-130", "e1234", "-", "2019", "MMXIX", "10.1000/x", "doi:10.1/y", "1234-5678",
    "Journal Article; Randomized Controlled Trial", "English", "", "\udc80", ":", "Record #1 of 1",
]) | st.text(max_size=20)
SNIPPETS = ["Record #1 of 2\n", "ID: CN-00000001\n", "\n", "\r", "\r\n", ": ", "\x00", "\ufeff", "\u2028"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def made_up_records(draw) -> str:
    lines = [f"Record #{draw(st.integers(0, 99))} of {draw(st.integers(0, 99))}"] if draw(st.integers(0, 3)) else []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(VALUES))  # a continuation or stray line
        else:
            lines.append(f"{draw(TAGS)}{draw(st.sampled_from([': ', ':', ' : ']))}{draw(VALUES)}")
    return "\n".join(lines) + "\n\n"


@st.composite
def cochrane_files(draw) -> bytes:
    text = "".join(draw(st.lists(st.sampled_from(RECORDS) | made_up_records(), max_size=4)))
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@given(data=cochrane_files(), strict=st.booleans())
def test_cochrane_ingests_or_fails_typed(tmp_path_factory, ingested, data, strict):
    path = tmp_path_factory.getbasetemp() / "central.txt"
    path.write_bytes(data)
    bundle = ingested(path, "fuzz.txt", "cochrane", strict)
    if bundle is None:
        return
    works = bundle.works
    assert all(re.fullmatch(r"CN-\d+", w) for w in works["work_id"]), list(works["work_id"])
