"""The monitor's pending file: what `b2g monitor` writes, it and the chain read back whole."""

from __future__ import annotations

import gzip

import pytest

from bib2graph import monitor
from bib2graph.errors import DataError


def test_pending_works_with_unicode_line_separators_read_back(tmp_path):
    """A title holding U+2028 (7 of 3,100 SYNERGY works do) is written as it is in the JSON line; reading
    split the line there, so the monitor's next call, the chain and validate all failed on the file."""
    works = [{"id": "https://openalex.org/W2", "title": "Memory\u2028of objects\u2029and\x85places",
              "_b2g": {"via": ["W1"], "first_seen": "2026-12-06"}},
             {"id": "https://openalex.org/W3", "title": "plain", "_b2g": {"via": ["W1"], "first_seen": "2026-12-06"}}]
    monitor.write_pending(tmp_path, works)
    assert monitor.read_pending_file(tmp_path / monitor.PENDING) == works


def test_a_damaged_pending_file_is_said_with_its_name(tmp_path):
    path = tmp_path / "pending.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "W1"\n'))
    with pytest.raises(DataError) as info:
        monitor.read_pending_file(path)
    assert info.value.code == "ARTIFACT_CORRUPT" and str(path) in info.value.message


def test_two_runs_in_one_second_keep_both_reports(tmp_path):
    """The report was named to the second: a second run in it (the GUI's or the MCP server's calls, one
    process) replaced the first's, whose new work then appeared in no report."""
    import json

    first = [{"id": "https://openalex.org/W2", "title": "t", "_b2g": {"via": ["W1"], "first_seen": "2026-12-06"}}]
    a = monitor.write_delta(tmp_path, "2026-12-06T120000Z", first, 5)
    b = monitor.write_delta(tmp_path, "2026-12-06T120000Z", [], 5)
    c = monitor.write_delta(tmp_path, "2026-12-06T120000Z", [], 5)
    assert len({a, b, c}) == 3 and b.name == "delta-2026-12-06T120000Z-2.json"
    assert [w["work_id"] for w in json.loads(a.read_text(encoding="utf-8"))["new"]] == ["W2"]
