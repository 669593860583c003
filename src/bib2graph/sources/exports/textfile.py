"""Export files as text lines: the encoding from the byte-order mark (UTF-8, UTF-16, UTF-32; UTF-8
without one), read a line at a time, undecodable bytes a DataError naming the line they are on.

UTF-8 files are decoded one line at a time (so the line of a bad byte is exact and a huge export is
never held whole); UTF-16/32 ones a megabyte at a time (`textio.pieces`).
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Iterator

from ... import textio
from ...errors import DataError

def open_binary(path: Path, name: str) -> BinaryIO:
    """The file opened for binary reading; a missing, folder or unreadable file is a DataError naming it."""
    try:
        return Path(path).open("rb")
    except FileNotFoundError:
        raise DataError(f"{name} does not exist", code="FILE_MISSING", details={"file": name}) from None
    except IsADirectoryError:
        raise DataError(f"{name} is a folder, not a file", code="FILE_INVALID", details={"file": name}) from None
    except OSError as exc:
        raise DataError(f"{name} cannot be read ({exc.strerror or exc})", code="FILE_UNREADABLE",
                        details={"file": name}) from None


def raw_lines(path: Path, name: str) -> Iterator[str]:
    """The lines of the file with their line ends ("\\n"-terminated; a "\\r" stays inside its line), as
    the csv module wants them."""
    with open_binary(path, name) as stream:
        first = stream.readline()
        codec, bom = textio.detect(first)
        if codec != "utf-8":   # decoded a chunk at a time (textio.pieces)
            pieces = textio.pieces(stream, first, codec, bom, name)
            previous = next(pieces)
            for piece in pieces:
                yield previous + "\n"
                previous = piece
            if previous:
                yield previous
            return
        offset = bom
        for number, data in _numbered(first[bom:], stream):
            try:
                yield data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _undecodable(name, number, offset + exc.start, exc.reason) from None
            offset += len(data)


def _numbered(first: bytes, stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    yield 1, first
    for number, data in enumerate(stream, 2):
        yield number, data


def lines(path: Path, name: str) -> Iterator[str]:
    """The lines of the file without their ends, ending as universal newlines say: IEEE Xplore's RIS
    mixes CRLF, LF and lone CR."""
    for line in raw_lines(path, name):
        line = line[:-1] if line.endswith("\n") else line
        yield from (line[:-1] if line.endswith("\r") else line).split("\r")


def _undecodable(name: str, line: int, offset: int, reason: str) -> DataError:
    return DataError(f"{name}: line {line} (byte {offset}) is not valid UTF-8 ({reason}); save the file as UTF-8",
                     code="FILE_ENCODING", details={"file": name, "line": line, "byte": offset,
                                                    "encoding": "utf-8"})
