"""The keywords thesaurus is read strictly: every problem names the file and the line."""

from __future__ import annotations

import pytest

from bib2graph import thesaurus
from bib2graph.errors import DataError

HEADER = "term_id\treplace_by\n"


def _write(tmp_path, text: str, encoding="utf-8"):
    path = tmp_path / "thesaurus.tsv"
    path.write_bytes(text.encode(encoding))
    return path


def _fails(path, line, code="THESAURUS_INVALID") -> DataError:
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(DataError) as info:
        thesaurus.read(path)
    err = info.value
    assert err.code == code and 2 <= err.exit_code <= 5
    if code == "THESAURUS_INVALID":
        assert err.message.startswith(f"{path}:{line}:") and err.details["line"] == line
    assert err.details["file"] == str(path) and str(path) in err.message
    assert (path.read_bytes() if path.is_file() else None) == before
    return err


def test_tolerated_forms_and_chains(tmp_path):
    text = ("# merges\r\nterm_id\treplace_by\r\n\r\nC3\tC4\r\n  # drop a generic one\r\nC1\tC2\r\nC2\tC3\r\n"
            "C9\t\r\nC8\tC9\r\n C5 \t C6 \r\nC1\tC2\r\n")
    want = {"C3": "C4", "C1": "C4", "C2": "C4", "C9": "", "C8": "", "C5": "C6"}
    for encoding in ("utf-8", "utf-8-sig", "utf-16"):
        assert thesaurus.read(_write(tmp_path, text, encoding)) == want
    table = thesaurus.read_thesaurus(tmp_path / "thesaurus.tsv")
    assert list(table.columns) == ["term_id", "replace_by"] and dict(table.values.tolist()) == want


def test_header_only_is_an_empty_thesaurus(tmp_path):
    assert thesaurus.read(_write(tmp_path, HEADER)) == {}
    assert thesaurus.read_thesaurus(tmp_path / "thesaurus.tsv").empty


@pytest.mark.parametrize("text, line, says", [
    ("", 1, "header"),
    ("# only a comment\n", 1, "header"),
    ("C1\tC2\n", 1, "header"),
    ("term_id\treplace_by\textra\n", 1, "header"),
    (HEADER + "C1\n", 2, "1 tab-separated cells"),
    (HEADER + "C1\tC2\tC3\n", 2, "3 tab-separated cells"),
    (HEADER + "\tC2\n", 2, "term_id is empty"),
    (HEADER + "C1\tC2\nC5\tC6\nC1\tC3\n", 4, "on line 2"),
    (HEADER + "C1\tC2\nC1\t\n", 3, "on line 2"),
    (HEADER + "C1\tC1\n", 2, "C1 → C1"),
    (HEADER + "C0\tC1\nC1\tC2\nC2\tC3\nC3\tC1\n", 3, "C1 → C2 → C3 → C1 form a cycle (lines 3, 4, 5)"),
])
def test_bad_thesaurus_names_the_line(tmp_path, text, line, says):
    assert says in _fails(_write(tmp_path, text), line).message


def test_a_term_on_two_lines_names_both(tmp_path):
    err = _fails(_write(tmp_path, HEADER + "C1\tC2\nC1\tC3\n"), 3)
    assert err.details["first_line"] == 2


def test_missing_folder_and_bad_bytes(tmp_path):
    _fails(tmp_path / "none.tsv", None, code="THESAURUS_MISSING")
    (tmp_path / "dir.tsv").mkdir()
    _fails(tmp_path / "dir.tsv", None, code="FILE_INVALID")
    path = tmp_path / "thesaurus.tsv"
    path.write_bytes(HEADER.encode() + b"C1\tcaf\xe9\n")
    assert _fails(path, None, code="FILE_ENCODING").details["line"] == 2
