"""A job's closing log line: its time, peak memory and counts, short whatever the counts hold."""

from __future__ import annotations

from bib2graph.rules import _BRIEF


def test_a_long_list_in_the_counts_is_cut_in_the_log_line():
    counts = {"records": 100_000, "references": {"total": 5_822_000, "unparsed_shown": [
        {"file": "savedrecs.txt", "line": line, "reference": "SMITH A, WATER RESOURCE UNPUB"} for line in range(1000)]}}
    line = _BRIEF.repr(counts)
    assert len(line) < 1000 and "5822000" in line and "'line': 2" in line and "'line': 3," not in line
    assert line.endswith("...]}}")        # the cut is shown; the manifest keeps every item
