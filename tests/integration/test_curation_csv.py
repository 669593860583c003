"""Curation through a spreadsheet: dump, edit as Excel would save it, apply."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bib2graph import curation

from .helpers import b2g

pytestmark = pytest.mark.integration


@pytest.fixture
def ws(demo) -> Path:
    return demo


def _excel_save(rows: list[dict], path: Path) -> None:
    """Write rows back as a spreadsheet would: BOM, CRLF line ends."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))


@pytest.mark.long
def test_round_trip_changes_exactly_the_edited_rows(ws, tmp_path):
    dumped = b2g("curate", "dump", "--json", "--workspace", str(ws)).envelope["data"]
    text = Path(dumped["path"]).read_bytes()
    assert text.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(text.decode("utf-8-sig"))))
    assert len(rows) == dumped["rows"] > 3
    assert all(r["why_here"] != "seed" and r["decision"] == "" for r in rows)
    before = curation.read(ws / "config/curation.tsv")
    rows[0].update(decision="reject", reason="wrong species")
    rows[1].update(decision="ACCEPT")
    rows[2].update(decision="reject", reason="=HYPERLINK(1)")
    rows[3]["work_id"] = "https://doi.org/" + rows[3]["doi"] if rows[3]["doi"] else rows[3]["work_id"]
    rows[3].update(decision="accept")
    edited = tmp_path / "reviewed.csv"
    _excel_save(rows, edited)
    applied = b2g("curate", "apply", str(edited), "--json", "--workspace", str(ws)).envelope["data"]
    after = curation.read(ws / "config/curation.tsv")
    ids = [r["work_id"] for r in rows[:3]]
    assert set(after) - set(before) == set(applied["applied"]) and len(applied["applied"]) == 4
    assert after[ids[0]].decision == "reject" and after[ids[0]].reason == "wrong species"
    assert after[ids[1]].decision == "accept"
    again = b2g("curate", "apply", str(edited), "--json", "--workspace", str(ws)).envelope["data"]
    assert again["applied"] == [] and again["unchanged"] == 4
    assert curation.read(ws / "config/curation.tsv") == after


@pytest.mark.long
def test_a_bad_decision_changes_nothing_and_unknown_rows_are_reported(ws, tmp_path):
    before = (ws / "config/curation.tsv").read_bytes()
    bad = tmp_path / "bad.csv"
    _excel_save([{"work_id": "W1", "decision": "maybe", "reason": ""}], bad)
    call = b2g("curate", "apply", str(bad), "--json", "--workspace", str(ws))
    assert call.returncode == 2 and call.envelope["error"]["code"] == "CURATION_INVALID"
    assert (ws / "config/curation.tsv").read_bytes() == before
    unknown = tmp_path / "unknown.csv"
    _excel_save([{"work_id": "W999999999", "decision": "accept", "reason": ""}], unknown)
    env = b2g("curate", "apply", str(unknown), "--json", "--workspace", str(ws)).envelope
    assert env["data"]["unknown"] == [{"line": 2, "id": "W999999999"}] and env["warnings"]
    assert (ws / "config/curation.tsv").read_bytes() == before
