"""UTF-16/32 files decoded a chunk at a time (textio.pieces): the lines decoding the whole file gives,
whatever the chunk size cuts through (a character's bytes, a CRLF), and the same error for a bad byte."""

from __future__ import annotations

import codecs
import io

import pytest
from hypothesis import given, settings, strategies as st

from bib2graph import textio
from bib2graph.errors import DataError
from bib2graph.sources.exports import textfile

BOMS = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE, "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE}
TEXT = st.lists(st.sampled_from(["a", "é", "\t", "\r", "\n", "\r\n", "𝑥", "中", "PT J"]), max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=TEXT, codec=st.sampled_from(sorted(BOMS)), chunk=st.integers(1, 9))
def test_lines_and_raw_lines_are_those_of_the_whole_file(tmp_path_factory, text, codec, chunk):
    data = BOMS[codec] + text.encode(codec)
    whole = data[len(BOMS[codec]):].decode(codec).split("\n")
    path = tmp_path_factory.mktemp("pieces") / "f.txt"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textio, "CHUNK", chunk)
        assert list(textio.lines(io.BytesIO(data), "f.txt")) == [line.rstrip("\r") for line in whole]
        expected = [line + "\n" for line in whole[:-1]] + ([whole[-1]] if whole[-1] else [])
        assert list(textfile.raw_lines(path, "f.txt")) == expected


def test_a_bad_byte_past_the_first_chunk_is_the_error_of_the_whole_file(monkeypatch):
    data = codecs.BOM_UTF16_LE + "line one\nline two\n".encode("utf-16-le") + b"\x00\xdc" + "x\n".encode("utf-16-le")
    with pytest.raises(DataError) as whole:
        textio.decode(data, "f.txt")
    monkeypatch.setattr(textio, "CHUNK", 4)
    with pytest.raises(DataError) as chunked:
        list(textio.lines(io.BytesIO(data), "f.txt"))
    assert chunked.value.code == "FILE_ENCODING" and chunked.value.details == whole.value.details
    assert whole.value.details["line"] == 3
