import multiprocessing
import os
import stat

import pytest

from bib2graph import curation
from bib2graph.errors import B2GError, DataError


def test_round_trip_and_last_decision_wins(tmp_path):
    path = tmp_path / "curation.tsv"
    curation.record(path, [curation.Decision("W2", "reject", "off\ttopic\nreally", "ana", "t1")])
    curation.record(path, [curation.Decision("W1", "accept", "", "bo", "t2"),
                           curation.Decision("W2", "accept", "reconsidered", "ana", "t3")])
    got = curation.read(path)
    assert [(d.work_id, d.decision) for d in got.values()] == [("W1", "accept"), ("W2", "accept")]
    assert got["W2"].reason == "reconsidered"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(curation.COLUMNS) and len(lines) == 3


def test_tabs_and_newlines_in_reasons_cannot_break_rows(tmp_path):
    path = tmp_path / "curation.tsv"
    curation.record(path, [curation.Decision("W2", "reject", "off\ttopic\nreally", "ana", "t1")])
    assert curation.read(path)["W2"].reason == "off topic really"


def test_bad_decision_is_a_data_error(tmp_path):
    path = tmp_path / "curation.tsv"
    path.write_text(curation.header() + "W1\tmaybe\t\t\t\n", encoding="utf-8")
    with pytest.raises(DataError, match="maybe"):
        curation.read(path)


def _writer(path, prefix, n):
    for i in range(n):
        work_id = f"W{i}{'1' if prefix == 'a' else '2'}"
        curation.record(path, [curation.Decision(work_id, "accept" if prefix == "a" else "reject",
                                                 f"{prefix}{i}")], wait=30)


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "curation.tsv"
    procs = [multiprocessing.Process(target=_writer, args=(path, "a", 40)),
             multiprocessing.Process(target=_writer, args=(path, "r", 40))]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    got = curation.read(path)
    # disjoint IDs per writer: a lost read-modify-write would drop some of them
    assert sorted(got) == sorted(f"W{i}{k}" for i in range(40) for k in "12")
    assert all(d.decision == ("accept" if d.work_id.endswith("1") else "reject") for d in got.values())


# ------------------------------------------------------------------------------------------------
# Strict reading: a bad line is a DataError naming file and line, and a bad file changes nothing

GOOD = curation.header() + "W1\taccept\n"


def _bad(path, data: bytes, code="CURATION_INVALID", line=None):
    path.write_bytes(data)
    with pytest.raises(DataError) as info:
        curation.read(path)
    err = info.value
    assert err.code == code and 2 <= err.exit_code <= 5
    assert err.message.startswith(f"{path}:{line}:" if code == "CURATION_INVALID" else f"{path}: line {line} ")
    assert err.details["file"] == str(path) and err.details.get("line") == line
    return err


@pytest.mark.parametrize("data, line, says", [
    (GOOD + "W2\taccept\tr\tby\tat\textra\n", 3, "6 tab-separated cells"),
    (GOOD + "W2\n", 3, "no decision"),
    (GOOD + "W2\tmaybe\n", 3, "'maybe'"),
    (GOOD + "X2\taccept\n", 3, "is not a work ID"),
    (GOOD + "W2x\taccept\n", 3, "is not a work ID"),
    (GOOD + "\taccept\n", 3, "is not a work ID"),
    (GOOD + "W2\treject\n", 3, "without a reason"),
    (GOOD + "W2\treject\t  \tana\n", 3, "without a reason"),
    (GOOD + "W2\treject\t\u200b\x1b\tana\n", 3, "without a reason"),    # invisible: says nothing
    ("work_id\tdecision\treason\n" + "W1\taccept\n", 1, "header"),
    (GOOD + curation.header(), 3, "is not a work ID"),
    (GOOD + "W2\taccept\t" + "x" * 5000 + "\n", 3, "longer than"),
])
def test_bad_line_names_file_and_line(tmp_path, data, line, says):
    err = _bad(tmp_path / "curation.tsv", data.encode("utf-8"), line=line)
    assert says in err.message


def test_a_work_on_two_lines_names_both(tmp_path):
    err = _bad(tmp_path / "curation.tsv", (GOOD + "W2\taccept\nhttps://openalex.org/W1\treject\tdup\n").encode(),
               line=4)
    assert "line 2" in err.message and err.details["first_line"] == 2


def test_tolerated_forms(tmp_path):
    """BOM, UTF-16, CRLF and lone CR, no header, comments, dropped trailing cells, ID forms, case."""
    path = tmp_path / "curation.tsv"
    text = ("# screened by ana\r\n\r\nw1\tACCEPT\r\nhttps://openalex.org/W2\tReject\toff  topic\tana\r\n"
            "W3\taccept\t\t\t\r")
    want = {"W1": curation.Decision("W1", "accept"), "W2": curation.Decision("W2", "reject", "off topic", "ana"),
            "W3": curation.Decision("W3", "accept")}
    for data in (text.encode("utf-8"), b"\xef\xbb\xbf" + text.encode("utf-8"), text.encode("utf-16"),
                 (curation.header() + text).encode("utf-8")):
        path.write_bytes(data)
        assert curation.read(path) == want


def test_undecodable_file_names_line(tmp_path):
    path = tmp_path / "curation.tsv"
    err = _bad(path, GOOD.encode() + b"W2\taccept\t\xe9t\xe9\n", code="FILE_ENCODING", line=3)
    assert err.details["byte"] == len(GOOD.encode()) + 10


def test_folder_is_a_data_error(tmp_path):
    (tmp_path / "curation.tsv").mkdir()
    with pytest.raises(DataError) as info:
        curation.read(tmp_path / "curation.tsv")
    assert info.value.code == "FILE_INVALID" and str(tmp_path / "curation.tsv") in info.value.message


def test_a_bad_file_is_left_byte_identical_by_record(tmp_path):
    path = tmp_path / "curation.tsv"
    data = (GOOD + "W2\treject\n").encode("utf-16")
    path.write_bytes(data)
    with pytest.raises(DataError) as info:
        curation.record(path, [curation.Decision("W3", "accept")])
    assert info.value.details["line"] == 3 and path.read_bytes() == data


@pytest.mark.parametrize("bad", [curation.Decision("W3", "reject", " \t"), curation.Decision("W3", "maybe"),
                                 curation.Decision("W3", "reject", "\x1b\x07"), curation.Decision("W3", "reject", "\u200b"),
                                 curation.Decision("doi:10.1/x", "accept"), curation.Decision("", "accept"),
                                 curation.Decision("W3", "reject", "y" * 1001),
                                 curation.Decision("W3", "accept", "", "z " * 501),
                                 curation.Decision("W3", "accept", "", "", "t" * 5000)])   # a line it could not read
def test_record_refuses_a_bad_decision_and_writes_nothing(tmp_path, bad):
    path = tmp_path / "curation.tsv"
    path.write_text(GOOD, encoding="utf-8")
    with pytest.raises(DataError) as info:
        curation.record(path, [curation.Decision("W2", "accept"), bad])
    assert info.value.code == "CURATION_INVALID" and info.value.exit_code == 2
    assert path.read_text(encoding="utf-8") == GOOD


def test_record_writes_short_ids_and_what_it_returns_reads_back(tmp_path):
    path = tmp_path / "curation.tsv"
    got = curation.record(path, [curation.Decision("https://openalex.org/W5", "REJECT", "a\u2028b", "ana"),
                                 curation.Decision("w6", "accept"), curation.Decision("W6", "reject", "no")])
    assert got == curation.read(path)
    assert got["W5"] == curation.Decision("W5", "reject", "a b", "ana") and got["W6"].decision == "reject"


def test_unreadable_path_is_a_data_error(tmp_path):
    path = tmp_path / ("x" * 300)  # longer than a file name may be: an OSError other than "missing"
    with pytest.raises(DataError) as info:
        curation.read(path)
    assert info.value.code == "FILE_UNREADABLE" and str(path) in info.value.message
    with pytest.raises(B2GError) as info:
        curation.record(path, [curation.Decision("W1", "accept")])
    assert 2 <= info.value.exit_code <= 5


def test_works_of_every_export_kind_can_be_decided(tmp_path):
    """A work read from an export is keyed by its database's ID: every shape `work_ids` knows (Dimensions
    pub.…, Cochrane CN-…, Embase L…, Lens, WoS, Scopus, bib2graph's REC:…) is recorded and read back."""
    from bib2graph.sources.exports.work_ids import id_scheme

    ids = ["pub.1234567890", "CN-01234567", "L2040010236", "000-367-630-842-001", "WOS:000220015600001",
           "2-s2.0-84978427902", "REC:0123456789AB"]
    assert all(id_scheme(i) is not None for i in ids)
    path = tmp_path / "curation.tsv"
    got = curation.record(path, [curation.Decision(i, "reject", "off topic") for i in ids])
    assert sorted(got) == sorted(ids) and got == curation.read(path)


def test_a_reason_of_the_longest_length_is_kept_whole_and_a_longer_one_refused(tmp_path):
    """A reason was cut to 1,000 characters without a word: now it is kept whole up to that length, and a
    longer one refused with its length, so no decision is recorded with part of its reason."""
    path = tmp_path / "curation.tsv"
    longest = "because " * 124 + "12345678"
    assert len(longest) == curation.MAX_TEXT
    curation.record(path, [curation.Decision("W1", "reject", longest)])
    assert curation.read(path)["W1"].reason == longest
    with pytest.raises(DataError, match="1,001 characters; at most 1,000"):
        curation.record(path, [curation.Decision("W2", "reject", longest + "!")])
    assert set(curation.read(path)) == {"W1"}


def test_control_characters_other_than_white_space_are_left_out_of_a_cell(tmp_path):
    """A reason holding NUL or a terminal escape was written byte for byte into curation.tsv."""
    path = tmp_path / "curation.tsv"
    curation.record(path, [curation.Decision("W1", "reject", "a\x00b\x1b[31mred\x7f\toff\ntopic", "an\x07a")])
    got = curation.read(path)["W1"]
    assert (got.reason, got.decided_by) == ("ab[31mred off topic", "ana")
    assert not any(ord(c) < 32 and c not in "\t\n" or 0x7f <= ord(c) <= 0x9f for c in path.read_text("utf-8"))


def test_comments_and_blank_lines_people_wrote_survive_a_write(tmp_path):
    path = tmp_path / "curation.tsv"
    path.write_text("# review of 2026\n" + curation.header() + "\n# section: trials\nW3\taccept\n"
                    "# W9\taccept  (kept out for now)\nW5\treject\tno data\n\n# the end\n", encoding="utf-8")
    curation.record(path, [curation.Decision("W1", "reject", "off topic")])
    assert path.read_text(encoding="utf-8") == (
        "# review of 2026\n" + curation.header() + "W1\treject\toff topic\t\t\n\n# section: trials\nW3\taccept\t\t\t\n"
        "# W9\taccept  (kept out for now)\nW5\treject\tno data\t\t\n\n# the end\n")
    curation.withdraw(path, ["W3"])   # its comment is not dropped with it: it moves to the end
    text = path.read_text(encoding="utf-8")
    assert "W3\t" not in text and text.endswith("\n# section: trials\n\n# the end\n")
    assert set(curation.read(path)) == {"W1", "W5"}


def test_a_symlinked_file_is_written_through(tmp_path):
    shared = tmp_path / "shared" / "curation.tsv"
    shared.parent.mkdir()
    shared.write_text(curation.header() + "W2\taccept\n", encoding="utf-8")
    link = tmp_path / "config" / "curation.tsv"
    link.parent.mkdir()
    link.symlink_to(shared)
    curation.record(link, [curation.Decision("W1", "accept")])
    assert link.is_symlink() and set(curation.read(shared)) == {"W1", "W2"}


def test_a_read_only_file_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "curation.tsv"
    path.write_text(curation.header() + "W2\taccept\n", encoding="utf-8")
    path.chmod(0o444)
    before = path.read_bytes()
    with pytest.raises(B2GError) as info:
        curation.record(path, [curation.Decision("W1", "accept")])
    assert info.value.code == "WORKSPACE_UNWRITABLE" and "read-only" in info.value.message
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_rewrite_keeps_the_file_mode(tmp_path):
    path = tmp_path / "curation.tsv"
    path.write_text(curation.header(), encoding="utf-8")
    path.chmod(0o664)
    curation.record(path, [curation.Decision("W1", "accept")])
    assert stat.S_IMODE(path.stat().st_mode) == 0o664


def test_a_device_fifo_or_oversized_file_is_refused_unread(tmp_path, monkeypatch):
    """/dev/zero as the curation file was read until memory ran out; a FIFO would wait for a writer."""
    fifo = tmp_path / "fifo.tsv"
    os.mkfifo(fifo)
    link = tmp_path / "zero.tsv"
    link.symlink_to("/dev/zero")
    for path in (fifo, link):
        with pytest.raises(DataError) as info:
            curation.read(path)
        assert info.value.code == "FILE_INVALID" and "not a regular file" in info.value.message
    big = tmp_path / "big.tsv"
    big.write_text(curation.header() + "W1\taccept\n" * 10, encoding="utf-8")
    monkeypatch.setattr(curation, "MAX_BYTES", 100)
    with pytest.raises(DataError) as info:
        curation.record(big, [curation.Decision("W2", "accept")])
    assert info.value.code == "FILE_INVALID" and "larger than 100 bytes" in info.value.message
    assert "W2" not in big.read_text(encoding="utf-8")


def test_a_reason_or_a_name_of_nothing_visible_says_nothing(tmp_path, monkeypatch):
    """A reject whose reason was control characters passed the verb's check (strip) and then failed the
    file's (clean) as CURATION_INVALID, exit 2, where every adapter says a reject needs a reason (exit 1);
    `by` of spaces recorded an empty decided_by."""
    from bib2graph.errors import UsageError
    from bib2graph.service import audit
    from bib2graph.service.curate import decide
    from bib2graph.service.workspace import Workspace

    assert [curation.says_something(t) for t in ("", " \t\n", "\x1b\x07", "\u200b\u200d", "-", "dup", "重复")] == [
        False, False, False, False, True, True, True]
    for reason in ("\x1b\x07", "\u200b", " "):
        with pytest.raises(UsageError, match="reject needs --reason"):
            decide(Workspace(tmp_path, "flag"), "reject", ["W1"], reason, "ana", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("B2G_USER", "ana")
    assert audit.who("   ") == audit.who("\u200b") == audit.who(None) == "ana" and audit.who("bo") == "bo"


def test_withdraw_counts_every_id_named_against_the_cap_as_accept_does(tmp_path):
    """10,001 repeats of one ID passed `withdraw` (it counted distinct IDs) and were TOO_MANY_IDS for accept."""
    from bib2graph.service.curate import withdraw
    from bib2graph.service.workspace import Workspace

    with pytest.raises(DataError) as caught:
        withdraw(Workspace(tmp_path, "flag"), ["W1"] * (curation.MAX_IDS_PER_CALL + 1))
    assert caught.value.code == "TOO_MANY_IDS"
    assert not (tmp_path / "config").exists()          # refused before the file was looked at
