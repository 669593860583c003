"""Bytes to text for every file a person hands bib2graph: the encoding comes from the byte-order mark.

UTF-8 (with or without a BOM), UTF-16 LE/BE and UTF-32 LE/BE with a BOM are read; anything else must be
valid UTF-8, and bytes that are not are a DataError naming the file, the line and the byte offset, so
that the person can re-save the file as UTF-8 instead of guessing why "0 entries" were read.
"""

from __future__ import annotations

import codecs
import html
import os
import re
import stat
from itertools import chain
from pathlib import Path
from typing import BinaryIO, Iterator

from .errors import DataError

#: a lone surrogate: what a JSON escape such as "\udc80" gives, or bytes no UTF-8 decodes in an argument
#: (Python hands them over surrogate-escaped); no Parquet writer and no UTF-8 file takes one
SURROGATE = re.compile("[\ud800-\udfff]")

# Longest BOMs first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def detect(data: bytes) -> tuple[str, int]:
    """(codec, BOM length) for `data`: the BOM's encoding, else UTF-8 without one."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    return "utf-8", 0


def decode(data: bytes, where: str | Path) -> str:
    """The text of `data`; undecodable bytes are a DataError (code FILE_ENCODING) naming line and offset."""
    codec, skip = detect(data)
    try:
        return data[skip:].decode(codec)
    except UnicodeDecodeError as exc:
        offset = skip + exc.start
        line = data[:offset].count(b"\n" if codec == "utf-8" else "\n".encode(codec)) + 1
        raise _undecodable(where, line, offset, codec, exc.reason) from None


def lines(stream: BinaryIO, where: str | Path) -> Iterator[str]:
    """The lines of a binary stream without their line ends, decoded as `decode` decodes; UTF-8 is read a
    line at a time, so that a huge JSON Lines file is never held whole in memory."""
    first = stream.readline()
    codec, skip = detect(first)
    if codec != "utf-8":  # UTF-16/32 lines cannot be split on the byte b"\n": decoded a chunk at a time
        yield from (line.rstrip("\r") for line in pieces(stream, first, codec, skip, where))
        return
    offset = skip
    for number, raw in enumerate(chain([first[skip:]], stream), 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _undecodable(where, number, offset + exc.start, codec, exc.reason) from None
        offset += len(raw)
        yield text.rstrip("\r\n")


#: bytes of a UTF-16/32 file decoded at a time
CHUNK = 1 << 20


def pieces(stream: BinaryIO, first: bytes, codec: str, skip: int, where: str | Path) -> Iterator[str]:
    """The text of a UTF-16/32 stream (`first`, its first bytes, already read; `skip` of them a BOM) cut at
    "\n", the last piece as the file ends: what ``decode(...).split("\n")`` gives, decoded `CHUNK` bytes at
    a time, so that a large export in UTF-16 (Web of Science's tab-delimited "Win" files) is never held
    whole. Undecodable bytes are `decode`'s DataError (the file decoded whole, for the exact line)."""
    decoder = codecs.getincrementaldecoder(codec)()
    pending = ""
    try:
        for chunk in chain([first[skip:]], iter(lambda: stream.read(CHUNK), b"")):
            *whole, pending = (pending + decoder.decode(chunk)).split("\n")
            yield from whole
        yield pending + decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        stream.seek(0)
        decode(stream.read(), where)   # raises the DataError naming the line and byte
        raise


def _undecodable(where: str | Path, line: int, offset: int, codec: str, reason: str) -> DataError:
    return DataError(f"{where}: line {line} (byte {offset}) is not valid {codec.upper()} ({reason}); "
                     "save the file as UTF-8", code="FILE_ENCODING",
                     details={"file": str(where), "line": line, "byte": offset, "encoding": codec})


def read_text(path: str | Path, where: str | Path | None = None, max_bytes: int | None = None) -> str:
    """The decoded text of the file at `path`; `where` names it in messages (default: the path). With
    `max_bytes`, only a regular file of at most that size is read: a device or a FIFO named by mistake
    (or a symlink to /dev/zero) is refused before a byte is read, not read until memory runs out."""
    path, where = Path(path), where or path
    details = {"file": str(where)}
    try:
        data = head_of_file(path, max_bytes) if max_bytes is not None else path.read_bytes()
    except NotAFile:
        raise DataError(f"{where} is not a regular file (a device, a FIFO or a socket); name a file",
                        code="FILE_INVALID", details=details) from None
    except FileNotFoundError:
        raise DataError(f"{where} does not exist", code="FILE_MISSING", details=details) from None
    except IsADirectoryError:
        raise DataError(f"{where} is a folder, not a file", code="FILE_INVALID", details=details) from None
    except OSError as exc:
        raise DataError(f"{where} cannot be read ({exc.strerror or exc}); check its permissions",
                        code="FILE_UNREADABLE", details=details) from None
    if max_bytes is not None and len(data) > max_bytes:
        raise DataError(f"{where} is larger than {max_bytes:,} bytes, the most it may hold; split it",
                        code="FILE_INVALID", details={"file": str(where), "max_bytes": max_bytes})
    return decode(data, where)


def kind_of(path: Path) -> str:
    """What stands at `path`, links followed: "file", "folder", "special" (a device, a FIFO or a socket),
    "dangling" (a link to nothing, or a loop of links) or "nothing"."""
    if path.is_dir():
        return "folder"
    if path.is_file():
        return "file"
    if path.exists():
        return "special"
    return "dangling" if path.is_symlink() else "nothing"


class NotAFile(Exception):
    """A path names a device, a FIFO or a socket where a regular file was asked for."""


def head_of_file(path: Path, max_bytes: int) -> bytes:
    """At most `max_bytes` + 1 bytes of a regular file (more than `max_bytes` tells the caller it is too
    large), opened without blocking: a FIFO cannot hang the call nor /dev/zero fill memory. A folder raises
    IsADirectoryError, a device, FIFO or socket `NotAFile`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(mode):
            raise NotAFile(path)
        return handle.read(max_bytes + 1)


#: characters no text means: control characters that are not white space (str.split's; LaTeX stops on
#: them, terminals obey them) and the noncharacters U+FFFE and U+FFFF
UNPRINTABLE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ufffe\uffff]")


def one_line(value) -> str:
    """Text on one line, as a curation cell or a BibTeX/RIS field holds it: every run of white space
    (newlines, tabs) one space, the `UNPRINTABLE` characters left out."""
    return " ".join(UNPRINTABLE.sub("", str(value)).split())


#: an inline markup tag sources put in titles (OpenAlex's HTML, Crossref's JATS and MathML); a `<` that
#: opens no such tag (``p < 0.05``) is text
MARKUP_TAG = re.compile(r"</?(?:i|em|italic|b|strong|bold|sub|sup|sc|scp|u|span|font|br|p|a|div|"
                        r"(?:mml|jats):[a-z]+)(?:\s[^<>]*)?/?>", re.IGNORECASE)


def without_markup(text: str) -> str:
    """`text` as a label shows it: its inline markup tags left out and its HTML entities (``&amp;``)
    decoded; a map or a VOSviewer file would print ``<i>c-fos</i>`` as it is."""
    if "<" in text:
        text = MARKUP_TAG.sub("", text)
    return html.unescape(text) if "&" in text else text


def braces_pair(text: str) -> bool:
    """Whether every brace of `text` closes one it opened: BibTeX ends a field at an unpaired `}`, so a
    DOI is written verbatim only when this holds, and read with its outer braces dropped only then."""
    depth = 0
    for char in text:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0
