"""Export files as text streams: the encoding from the byte-order mark (UTF-8, UTF-16, UTF-32; UTF-8
without one), read a line at a time, undecodable bytes a DataError naming the line.

RIS from IEEE Xplore mixes CRLF, LF and lone CR line ends, so lines end as universal newlines say;
CSV rows are read with newline="" as the csv module wants.
"""

from __future__ import annotations

import io
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ... import textio
from ...errors import DataError


@contextmanager
def open_text(path: Path, name: str, newline: str | None = None) -> Iterator[io.TextIOWrapper]:
    """`path` as text in the encoding its BOM names; a missing or unreadable file is a DataError."""
    try:
        raw = Path(path).open("rb")
    except FileNotFoundError:
        raise DataError(f"{name} does not exist", code="FILE_MISSING", details={"file": name}) from None
    except IsADirectoryError:
        raise DataError(f"{name} is a folder, not a file", code="FILE_INVALID", details={"file": name}) from None
    except OSError as exc:
        raise DataError(f"{name} cannot be read ({exc.strerror or exc})", code="FILE_UNREADABLE",
                        details={"file": name}) from None
    with raw:
        codec, bom = textio.detect(raw.read(4))
        raw.seek(bom)
        yield io.TextIOWrapper(raw, encoding=codec, newline=newline)


def undecodable(name: str, line: int, codec: str, exc: UnicodeDecodeError) -> DataError:
    return DataError(f"{name}: line {line} is not valid {codec.upper()} ({exc.reason}); save the file as UTF-8",
                     code="FILE_ENCODING", details={"file": name, "line": line, "encoding": codec})


def lines(path: Path, name: str) -> Iterator[str]:
    """The lines of a text file without their line ends (universal newlines), streamed."""
    with open_text(path, name) as text:
        number = 0
        try:
            for number, line in enumerate(text, 1):  # noqa: B007 (number names the failing line)
                yield line.rstrip("\n")
        except UnicodeDecodeError as exc:
            raise undecodable(name, number + 1, text.encoding, exc) from None
