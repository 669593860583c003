"""Atomic file writes: every artifact is written to a temporary name beside its target, then renamed.

A reader (or a killed run) therefore sees either the old file or the complete new one, never half.
A new file gets the mode `open()` would give it (0o666 less the umask), not mkstemp's private 0o600,
so that a lab's shared folder can read what a run writes; a replaced file keeps its own mode, as an
editor's save does (a group-writable file stays so).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

_PROC_STATUS = Path("/proc/self/status")


def _umask() -> int:
    """The process umask, read without changing it where /proc tells it (Linux). Elsewhere os.umask
    can only read it by setting it: it is set to a private value and back at once, so a file another
    thread creates meanwhile is at worst private, never open to all."""
    try:
        for line in _PROC_STATUS.read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    previous = os.umask(0o077)
    os.umask(previous)
    return previous


@lru_cache(maxsize=1)
def creation_mode() -> int:
    """The mode a new file gets from `open()`: 0o666 less the umask (read once per process)."""
    return 0o666 & ~_umask()


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto the target only on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise naming(exc, target) from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        os.chmod(tmp_path, _mode_of(target))
        yield tmp_path
        try:
            os.replace(tmp_path, target)
        except OSError as exc:
            raise naming(exc, target) from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def naming(exc: OSError, target: Path) -> OSError:
    """`exc`, raised on a temporary file or folder of the call's own, naming the place the user knows
    instead (the temporary name, which never outlives the call, was in the message:
    `.research.yaml.qzic7qb1.tmp: Is a directory`)."""
    return type(exc)(exc.errno, exc.strerror, str(target))


def _mode_of(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return creation_mode()


def write_bytes(target: str | os.PathLike[str], data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: str | os.PathLike[str], text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


def copy_file(source: str | os.PathLike[str], target: str | os.PathLike[str], keep_times: bool = True) -> None:
    """Copy a file's bytes (and, with `keep_times`, its times) but not its mode: the copy is made like any
    new file, so a private file written by an older version does not make its copies private too. A job
    copying an input into its outputs keeps no times: its outputs must be newer than its inputs."""
    stat = os.stat(source)
    with atomic_path(target) as tmp:
        shutil.copyfile(source, tmp)
        if keep_times:
            os.utime(tmp, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no insignificant whitespace: the form that is hashed and compared."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_json(target: str | os.PathLike[str], value: Any) -> None:
    """Pretty, key-sorted JSON, so that equal values give equal bytes."""
    write_text(target, json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
