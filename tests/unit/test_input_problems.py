"""What `run`, `status` and `validate` say of an input that is not a regular file: a FIFO or a device was
"missing" (FILE_MISSING, "does not exist") there and FILE_INVALID from the verbs that read it."""

from __future__ import annotations

import os

import pytest

from bib2graph.service.preflight import ExternalInput, input_problem


@pytest.mark.parametrize("make, code, says", [
    (lambda p: p.mkdir(), "FILE_INVALID", "is a folder"),
    (lambda p: os.mkfifo(p), "FILE_INVALID", "not a regular file"),
    (lambda p: p.symlink_to("/dev/null"), "FILE_INVALID", "not a regular file"),
    (lambda p: p.symlink_to(p.parent / "nowhere"), "FILE_MISSING", "a link that leads nowhere"),
    (lambda p: p.symlink_to(p), "FILE_MISSING", "a link that leads nowhere"),
    (lambda p: None, "FILE_MISSING", "does not exist"),
])
def test_an_input_that_is_no_regular_file_is_said_as_it_is(tmp_path, make, code, says):
    path = tmp_path / "curation.tsv"
    make(path)
    problem = input_problem(ExternalInput("curation", "config/curation.tsv", "config/curation.tsv", path))
    assert problem is not None and problem[0] == code and says in problem[1]


def test_a_regular_file_or_a_link_to_one_has_no_problem(tmp_path):
    (tmp_path / "real.tsv").write_text("x", encoding="utf-8")
    (tmp_path / "link.tsv").symlink_to(tmp_path / "real.tsv")
    for name in ("real.tsv", "link.tsv"):
        assert input_problem(ExternalInput("curation", name, name, tmp_path / name)) is None
