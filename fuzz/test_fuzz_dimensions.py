"""Dimensions CSV exports built from the rows of a full-record and a bibliometric-mapping export written
by tests/dimensions_export.py from the CC0 SYNERGY records of one review (real exports may not be
redistributed; the layout follows real ones), the latter as a spreadsheet saves it, with cut "Cited
references" cells and the rows holding their rest, plus made-up rows (odd Publication IDs, affiliations
with unbalanced brackets, cited references with missing, extra or empty "|" fields), with or without the
"About the data" note, with tricky text spliced in, line ends and encodings varied, bytes flipped and
files truncated: `ingest` builds its tables or raises a B2GError with exit code 2..5 naming the file, and
`detect_format` returns a known format or None; never another exception."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged

from bib2graph.ids import short_id
from bib2graph.sources.exports.detect import FORMATS, detect_format
from tests.dimensions_export import full_record_csv, mapping_csv
from tests.wos_export import synergy_works

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
UNIVERSE = synergy_works([SHARED / "synergy" / "Donners_2021" / "works_1.zip"])
WORKS = [UNIVERSE[w] for w in sorted(UNIVERSE)]
CITING = [w for w in WORKS if any(short_id(r) in UNIVERSE for r in w.get("referenced_works") or [])]


def _lines(text: str) -> tuple[str, str, list[str]]:
    """(note line or "", header line, record lines) of an export; each of these records is one row."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    note = ""
    if rows[0][0].startswith("About the data"):
        note, rows = _row(rows[0]), rows[1:]
    return note, _row(rows[0][:40]), [_row(r[:40]) for r in rows[1:60]]


def _row(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()


FULL = _lines(full_record_csv(WORKS[:60]))
NETWORK = _lines(mapping_csv(CITING[:60], UNIVERSE, spreadsheet=True, cell_limit=3000)[0])

REFERENCES = st.sampled_from([
    "[Smith, John; Doe, J.]|[ur.1; ]|Journal of Tests|2001|12|3|100-110|10.1000/ABC|pub.1|5",
    "[]|[]|Nature|2016|535|7613|466-466|10.1000/x466|pub.1000000002|23", "[Li, W]|[]|A|B|1999|4|1|7||pub.2|0",
    "[Cut, Off", "[", "]", "|", "||||||||||||", "[Anon]|[]|||||||", "[X, Y]|[]|S|20x5|v|i|p|doi:10.1/x|pub.x|n",
    "[X (Y), Z]|[ur.(]|S|1500|0|0|e0|10.1/%E2|pub.3|-1",
])
VALUES = st.sampled_from([
    "pub.1", "pub.", "pub.12x", "12345678.06; ; ; ur.0105", "", "10.1000/xyz", "doi:10.1/A", "21974976", "PMC1",
    "0", "2020-13-45", "2020", "1-", "-5", "e0123", "Article", "Proceeding", "Review Article", "\udc80",
    "Smith, J (Univ A; Univ B (US)); Doe, K ()", "Smith, J (Univ A", "Doe, K ))(", "United States; ; Mars",
    "1605 Policy; 11 Medical", "About the data: Exported on", ";", "(", ")", "\"", "\n", "\r",
]) | REFERENCES.map(lambda r: r + ";" + r) | st.text(max_size=25)
SNIPPETS = ["\n", "\r", "\r\n", ",", "\"", "\"\"", ";[", "|", "\x00", "\ufeff", "\u2028", "pub.1,"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]


@st.composite
def made_up_row(draw, width: int) -> str:
    cells = draw(st.lists(VALUES, max_size=width + 3))
    if cells and draw(st.booleans()):
        cells[0] = draw(st.sampled_from(["pub.1", "pub.2", "pub.2106656997", ""]))
    return _row(cells)


@st.composite
def dimensions_files(draw) -> bytes:
    note, header, records = draw(st.sampled_from([FULL, NETWORK]))
    width = len(next(csv.reader(io.StringIO(header))))
    rows = draw(st.lists(st.sampled_from(records) | made_up_row(width), min_size=1, max_size=5))
    first = draw(st.sampled_from([note, "", '"About the data: Exported on Jan 1, 2024."\n', "About the data\n"]))
    text = first + draw(st.sampled_from([header] * 4 + [""])) + "".join(rows)
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@given(data=dimensions_files(), strict=st.booleans())
def test_dimensions_ingests_or_fails_typed(scratch, ingested, data, strict):
    path = scratch / "dimensions.csv"
    path.write_bytes(data)
    assert detect_format(path) in (*FORMATS, None)
    bundle = ingested(path, "fuzz.csv", "dimensions-csv", strict)
    if bundle is None:
        return
    works = bundle.works
    assert works["work_id"].is_unique
    assert works["doi"].dropna().map(lambda d: d.startswith("10.")).all()
    assert works["pmid"].dropna().map(str.isdigit).all()
    refs = bundle.references
    assert set(refs["work_id"]) <= set(works["work_id"])
