"""Atomic writes give files the mode `open()` would, so a lab's shared folder can read them."""

from __future__ import annotations

import os
import stat

import pytest

from bib2graph import atomic


@pytest.fixture
def umask():
    """Set the process umask for one test; put the old one back and forget the cached mode."""
    previous = os.umask(0o022)

    def set_to(value: int) -> None:
        os.umask(value)
        atomic.creation_mode.cache_clear()

    yield set_to
    os.umask(previous)
    atomic.creation_mode.cache_clear()


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask,expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_artifacts_follow_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    atomic.write_json(tmp_path / "results" / "metrics.json", {"nodes": 1})
    atomic.write_text(tmp_path / "config" / "curation.tsv", "work_id\n")
    assert mode(tmp_path / "results" / "metrics.json") == expected
    assert mode(tmp_path / "config" / "curation.tsv") == expected


def test_umask_read_without_proc_is_left_as_it_was(tmp_path, umask, monkeypatch):
    umask(0o002)
    monkeypatch.setattr(atomic, "_PROC_STATUS", tmp_path / "no-proc")
    assert atomic.creation_mode() == 0o664
    assert os.umask(0o002) == 0o002  # still what it was


def test_a_copy_keeps_times_but_not_a_private_mode(tmp_path, umask):
    umask(0o002)
    private = tmp_path / "old.parquet"
    private.write_bytes(b"PAR1")
    os.chmod(private, 0o600)
    os.utime(private, ns=(1_000_000_000, 2_000_000_000))
    atomic.copy_file(private, tmp_path / "snapshot" / "old.parquet")
    copy = tmp_path / "snapshot" / "old.parquet"
    assert copy.read_bytes() == b"PAR1" and mode(copy) == 0o664
    assert os.stat(copy).st_mtime_ns == 2_000_000_000
    assert [p.name for p in copy.parent.iterdir()] == ["old.parquet"]  # no temporary file left behind
