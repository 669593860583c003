"""Works files (.json, .jsonl, gzipped, .zip) built from real SYNERGY records that hypothesis mutates
(fields dropped, added and retyped, tricky text spliced in, bytes flipped, files truncated): the reader
and `bundle_from_works` return tables that pass their schemas and convert to Arrow, or raise a
B2GError with exit code 2..5; never another exception."""

from __future__ import annotations

import copy
import gzip
import io
import json
import zipfile
from pathlib import Path

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from bib2graph.errors import B2GError
from bib2graph.skips import Skips
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.tables import BUNDLE_TABLES

ZIP = Path(__file__).resolve().parents[1] / "src" / "bib2graph" / "data" / "synergy" / "Sep_2021" / "works_1.zip"
with zipfile.ZipFile(ZIP) as _archive:
    RECORDS = json.loads(_archive.read("works_0_25.json"))[:8]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12)
    | st.sampled_from(["W12", "https://openalex.org/W7", "2001", "abc", "10.1/x", "\udc80", "", " "]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
SNIPPETS = ['"\\udc80"', '"\\ud800x"', '\\udfff', "9" * 5000, "[" * 3000, "{" * 50, "NaN", "-Infinity", "1e999",
            '{"id": "W1"}', "\n", "\r", "\x00", "\ufeff", '"', ",", "]", "}", "\u2028", "\\"]
KINDS = [".json", ".jsonl", ".json.gz", ".jsonl.gz", ".zip"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-be", "utf-32", "latin-1"]


def _slots(value, top: bool) -> list[tuple[object, object]]:
    """(container, key) of every value in a record; only its own fields when `top`."""
    slots, stack = [], [value]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for key in keys:
            slots.append((node, key))
            if not top:
                stack.append(node[key])
    return slots


@st.composite
def records(draw):
    record = copy.deepcopy(draw(st.sampled_from(RECORDS)))
    for _ in range(draw(st.integers(0, 4))):
        slots = _slots(record, top=draw(st.booleans()))
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["drop", "retype", "retype", "add"]))
        if action == "drop":
            del container[key]
        elif action == "retype":
            container[key] = draw(JSON)
        elif isinstance(container, dict):
            container[draw(st.text(max_size=8))] = draw(JSON)
        else:
            container.insert(key, draw(JSON))
    return record


@st.composite
def texts(draw, items: list, kind: str) -> str:
    ascii_only = draw(st.booleans())
    if kind.startswith(".jsonl"):
        end = draw(st.sampled_from(["\n", "\r\n"]))
        text = end.join(json.dumps(item, ensure_ascii=ascii_only) for item in items)
    else:
        shape = draw(st.sampled_from(["array", "results", "single"]))
        value = {"meta": {}, "results": items} if shape == "results" else \
            items[0] if shape == "single" and len(items) == 1 else items
        text = json.dumps(value, ensure_ascii=ascii_only)
    for _ in range(draw(st.integers(1, 2)) if draw(st.integers(0, 3)) == 0 else 0):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(SNIPPETS)) + text[at:]
    return text


def _encode(text: str, encoding: str) -> bytes:
    errors = "replace" if encoding == "latin-1" else "surrogatepass"
    return text.encode(encoding, errors)


@st.composite
def payloads(draw, kind: str, items: list) -> bytes:
    """The bytes of one works file (or zip member) of `kind`, holding `items` and more."""
    items.extend(draw(st.lists(records(), min_size=draw(st.sampled_from([0, 1, 1, 1])), max_size=3))
                 + draw(st.lists(JSON, max_size=1)))
    data = _encode(draw(texts(items, kind)), draw(st.sampled_from(ENCODINGS)))
    return gzip.compress(data, mtime=0) if kind.endswith(".gz") else data


@st.composite
def zips(draw, items: list) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(KINDS[:4] + [".txt", "/"]))
            stem = draw(st.sampled_from(["works", "__MACOSX/._works", "a/b", "wörks"]))
            name = f"{stem}_{draw(st.integers(0, 9))}{kind}"
            method = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                                           zipfile.ZIP_LZMA]))
            body = b"" if kind in (".txt", "/") else draw(payloads(kind, items))
            archive.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), body, compress_type=method)
    return buffer.getvalue()


@st.composite
def works_files(draw) -> tuple[str, bytes, list]:
    """(kind, bytes, the JSON values written into it)."""
    kind, items = draw(st.sampled_from(KINDS)), []
    data = bytearray(draw(zips(items)) if kind == ".zip" else draw(payloads(kind, items)))
    for _ in range(draw(st.integers(1, 3)) if data and draw(st.integers(0, 3)) == 0 else 0):
        data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    if data and draw(st.integers(0, 7)) == 0:
        del data[draw(st.integers(0, len(data) - 1)):]
    return kind, bytes(data), items


def check_bundle(bundle) -> None:
    for name in BUNDLE_TABLES:
        pa.Table.from_pandas(getattr(bundle, name), preserve_index=False)  # what the Parquet writer needs


@given(case=works_files(), strict=st.booleans())
def test_works_files_read_or_fail_typed(tmp_path_factory, case, strict):
    """The file through the reader, then what it wrote straight to `bundle_from_works` as API data."""
    kind, data, items = case
    path = tmp_path_factory.getbasetemp() / f"works{kind}"
    path.write_bytes(data)
    try:
        check_bundle(bundle_from_works(read_work_objects(path, f"fuzz{kind}", Skips(strict=strict))))
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5 and exc.code != "TABLE_INVALID", exc
        assert f"fuzz{kind}" in exc.message, exc
    check_bundle(bundle_from_works(items, Skips()))
