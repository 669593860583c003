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


def test_a_failed_write_names_the_file_not_its_temporary_name(tmp_path):
    """`init --force` over a spec that is a folder said "cannot use …/.research.yaml.qzic7qb1.tmp"."""
    import pytest

    from bib2graph.atomic import write_text

    folder = tmp_path / "research.yaml"
    folder.mkdir()
    with pytest.raises(OSError) as caught:
        write_text(folder, "name: x\n")
    assert caught.value.filename == str(folder) and folder.is_dir()
    assert [p.name for p in tmp_path.iterdir()] == ["research.yaml"]        # no temporary file left


def test_init_refuses_a_folder_where_its_files_go_and_creates_nothing(tmp_path):
    import pytest

    from bib2graph.errors import DataError
    from bib2graph.service.init import init_workspace

    (tmp_path / "config/curation.tsv").mkdir(parents=True)      # init said ok, every later verb failed
    with pytest.raises(DataError) as caught:
        init_workspace(tmp_path)
    assert caught.value.code == "FILE_INVALID" and "curation.tsv" in caught.value.message
    assert sorted(p.name for p in (tmp_path / "config").iterdir()) == ["curation.tsv"]
