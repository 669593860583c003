"""Finding the workspace from a flag, B2G_WORKSPACE or the current directory: a path that cannot be
resolved is WORKSPACE_NOT_FOUND, never INTERNAL with a traceback."""

from __future__ import annotations

import os

import pytest

from bib2graph.errors import WorkspaceError
from bib2graph.service.workspace import resolve


@pytest.mark.parametrize("given", ["~b2g-no-such-user", "~b2g-no-such-user/review", "LOOP"])
def test_a_folder_that_cannot_be_resolved_is_workspace_not_found(tmp_path, monkeypatch, given):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)                       # resolving it raised RuntimeError: Symlink loop
    value = str(loop) if given == "LOOP" else given
    with pytest.raises(WorkspaceError) as by_flag:
        resolve(value)
    monkeypatch.setenv("B2G_WORKSPACE", value)
    with pytest.raises(WorkspaceError) as by_env:
        resolve()
    assert by_flag.value.code == by_env.value.code == "WORKSPACE_NOT_FOUND"
    assert "B2G_WORKSPACE" in by_env.value.message and "--workspace" in by_flag.value.message


def test_a_current_directory_deleted_under_the_shell_is_workspace_not_found(tmp_path, monkeypatch):
    monkeypatch.delenv("B2G_WORKSPACE", raising=False)
    gone = tmp_path / "gone"
    gone.mkdir()
    here = os.getcwd()
    os.chdir(gone)
    try:
        gone.rmdir()
        with pytest.raises(WorkspaceError) as caught:
            resolve()
    finally:
        os.chdir(here)
    assert caught.value.code == "WORKSPACE_NOT_FOUND" and "no longer exists" in caught.value.message
