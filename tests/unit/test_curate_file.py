"""`b2g curate apply FILE`: the reviewed spreadsheet is read as Excel saves it, and strictly."""

from __future__ import annotations

import pytest

from bib2graph import curation
from bib2graph.errors import DataError, UsageError
from bib2graph.service import curate_file
from bib2graph.service.curate import decide
from bib2graph.service.init import init_workspace
from bib2graph.service.workspace import Workspace

HEADER = ["work_id", "title", "decision", "reason"]


def _write(path, rows, sep=",", encoding="utf-8-sig", newline="\r\n"):
    path.write_bytes("".join(sep.join(r) + newline for r in [HEADER, *rows]).encode(encoding))
    return path


def _fails(path, code="CURATION_INVALID", line=None) -> DataError:
    with pytest.raises(DataError) as info:
        curate_file.read_rows(path)
    err = info.value
    assert err.code == code and 2 <= err.exit_code <= 5 and str(path) in err.message
    if line is not None:
        assert err.message.startswith(f"{path}:{line}:") and err.details == {**err.details, "file": str(path),
                                                                              "line": line}
    return err


def _ids(rows):
    return [(r["line"], r["id"], r["decision"], r["reason"]) for r in rows]


@pytest.mark.parametrize("sep, encoding, newline", [(",", "utf-8-sig", "\r\n"), (";", "utf-8-sig", "\r\n"),
                                                    ("\t", "utf-16", "\r\n"), (",", "utf-8", "\n"),
                                                    (";", "utf-8", "\r")])
def test_excel_saves_are_read(tmp_path, sep, encoding, newline):
    path = _write(tmp_path / "r.csv", [["W1", '"a, b; c"', "ACCEPT", ""], ["W2", "t", "reject", "'=SUM(1)"],
                                       ["W3", "t", "", ""]], sep, encoding, newline)
    assert _ids(curate_file.read_rows(path)) == [(2, "W1", "accept", ""), (3, "W2", "reject", "=SUM(1)"),
                                                 (4, "W3", "", "")]


def test_excels_sep_line_names_the_separator_and_is_no_row(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("sep=;\r\nwork_id;decision;reason\r\nW1;reject;a, b\r\nW2;maybe;\r\n", encoding="utf-8")
    err = _fails(path, line=4)     # the file's own line numbers: the sep line counts
    assert [p["line"] for p in err.details["bad_rows"]] == [4]
    path.write_text("sep=;\nwork_id;decision;reason\nW1;reject;a, b\n", encoding="utf-8")
    assert _ids(curate_file.read_rows(path)) == [(3, "W1", "reject", "a, b")]


def test_rows_shorter_than_the_header_and_trailing_empty_cells_are_fine(tmp_path):
    path = _write(tmp_path / "r.csv", [["W1", "t", "accept"], ["W2", "t", "reject", "why", "", ""], ["W3"]])
    assert _ids(curate_file.read_rows(path)) == [(2, "W1", "accept", ""), (3, "W2", "reject", "why"),
                                                 (4, "W3", "", "")]


def test_a_quoted_cell_spanning_lines_keeps_line_numbers(tmp_path):
    path = _write(tmp_path / "r.csv", [["W1", '"two\r\nlines"', "accept", ""], ["W2", "t", "maybe", ""]])
    err = _fails(path, line=4)
    assert [p["line"] for p in err.details["bad_rows"]] == [4]


def test_every_bad_line_is_listed(tmp_path):
    rows = [["W1", "t", "maybe", ""], ["W2", "t", "reject", ""], ["W3", "t", "accept", ""],
            ["W4", "t", "reject", " "], ["W5", "t", "accept", "r", "spill"], ["W6", "t", "reject", "x" * 1001],
            ["W7", "t", "", "x" * 1001], ["W8", "t", "reject", "x" * 1000]]
    err = _fails(_write(tmp_path / "r.csv", rows), line=2)
    assert [(p["line"], p["problem"]) for p in err.details["bad_rows"]] == [
        (2, curate_file.PROBLEMS["decision"]), (3, curate_file.PROBLEMS["reason"]),
        (5, curate_file.PROBLEMS["reason"]), (6, curate_file.PROBLEMS["cells"]), (7, curate_file.PROBLEMS["long"])]
    assert "line(s) 3, 5" in err.message and "2 ('maybe')" in err.message and "nothing was changed" in err.message


@pytest.mark.parametrize("header, says", [(["title", "decision"], "ID column"), (["work_id", "reason"], "decision"),
                                          (["work_id", "decision", "Decision"], "more than once"), ([], "none")])
def test_header_without_the_needed_columns(tmp_path, header, says):
    path = tmp_path / "r.csv"
    path.write_text(",".join(header) + "\nW1,accept\n", encoding="utf-8")
    assert says in _fails(path, line=1).message


def test_an_open_quote_names_the_row_where_it_opens(tmp_path):
    path = _write(tmp_path / "r.csv", [["W1", '"open', "accept", ""], ["W2", "t", "accept", ""]])
    assert "quote" in _fails(path, line=2).message


def test_missing_file_folder_and_bad_bytes(tmp_path):
    _fails(tmp_path / "nope.csv", code="FILE_MISSING")
    (tmp_path / "dir.csv").mkdir()
    _fails(tmp_path / "dir.csv", code="FILE_INVALID")
    (tmp_path / "latin1.csv").write_bytes(b"work_id,decision,reason\nW1,reject,\xe9\n")
    assert _fails(tmp_path / "latin1.csv", code="FILE_ENCODING").details["line"] == 2


def test_row_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(curate_file, "MAX_ROWS", 2)
    path = _write(tmp_path / "r.csv", [["W1", "t", "", ""]] * 3)
    _fails(path, code="TOO_MANY_IDS", line=4)


# ------------------------------------------------------------------------------------------------
# apply: all or nothing, and never a reject without a reason


@pytest.fixture
def ws(tmp_path) -> Workspace:
    init_workspace(tmp_path / "ws")
    return Workspace(tmp_path / "ws", "flag")


def _apply(ws, path):
    return curate_file.apply(ws, str(path), "ana", "2024-01-01").data


def test_apply_records_changed_rows_once(ws, tmp_path):
    path = _write(tmp_path / "r.csv", [["W1", "t", "accept", ""], ["openalex.org/W2", "t", "reject", "x  " * 500],
                                       ["W1", "t", "accept", "again"]])
    assert _apply(ws, path)["applied"] == ["W1", "W2"]
    got = curation.read(ws.path("config/curation.tsv"))
    assert got["W1"].reason == "again" and got["W2"].decision == "reject"
    assert _apply(ws, path)["applied"] == [] and _apply(ws, path)["unchanged"] == 2


def test_a_spreadsheet_may_decide_more_works_than_a_command_line(ws, tmp_path):
    """The command line's cap (10,000 IDs a call) is not the spreadsheet's (100,000 rows)."""
    many = curation.MAX_IDS_PER_CALL + 5
    path = _write(tmp_path / "r.csv", [[f"W{i}", "t", "accept", ""] for i in range(1, many + 1)])
    assert len(_apply(ws, path)["applied"]) == many
    assert len(curation.read(ws.path("config/curation.tsv"))) == many


@pytest.mark.parametrize("rows", [
    [["W1", "t", "accept", ""], ["W2", "t", "reject", ""]],
    [["W1", "t", "accept", ""], ["w1", "t", "reject", "dup"]],
])
def test_a_bad_file_changes_nothing(ws, tmp_path, rows):
    tsv = ws.path("config/curation.tsv")
    curation.record(tsv, [curation.Decision("W9", "reject", "old", "bo", "t0")])
    before = tsv.read_bytes()
    with pytest.raises(DataError) as info:
        _apply(ws, _write(tmp_path / "r.csv", rows))
    assert info.value.code == "CURATION_INVALID" and info.value.message.startswith(f"{tmp_path / 'r.csv'}:3:")
    assert tsv.read_bytes() == before


def test_a_work_both_accepted_and_rejected_names_both_lines(ws, tmp_path):
    path = _write(tmp_path / "r.csv", [["W1", "t", "accept", ""], ["W2", "t", "accept", ""],
                                       ["https://openalex.org/W1", "t", "reject", "no"]])
    with pytest.raises(DataError) as info:
        _apply(ws, path)
    assert info.value.details["conflicts"] == [{"work_id": "W1", "lines": [2, 4]}]
    assert "W1 on lines 2 and 4" in info.value.message


def test_reject_verb_without_a_reason_records_nothing(ws):
    tsv = ws.path("config/curation.tsv")
    before = tsv.read_bytes()
    with pytest.raises(UsageError):
        decide(ws, "reject", ["W1"], " \t", "ana", "t1")
    with pytest.raises(DataError) as info:  # the file layer refuses it too, whoever calls it
        curation.record(tsv, [curation.Decision("W1", "reject", "\n", "ana", "t1")])
    assert info.value.code == "CURATION_INVALID" and tsv.read_bytes() == before


def test_a_row_cut_off_by_a_bare_line_break_is_said_not_dropped_silently(ws, tmp_path):
    """A bare CR inside an unquoted reason ends the row there: its rest comes as a row of its own, with no
    decision and no ID, which is left out; the answer says so (the reason it cut is the user's to fix)."""
    path = tmp_path / "r.csv"
    path.write_bytes(b"work_id,decision,reason\nW1,reject,line1\rline2\nW2,,\n")
    result = curate_file.apply(ws, str(path), "ana", "2024-01-01")
    assert result.data["applied"] == ["W1"]
    assert [w for w in result.warnings if "'line2' is no work ID" in w and w.startswith("line 3:")]
    assert not [w for w in result.warnings if "'W2'" in w]        # an undecided row is no stray
