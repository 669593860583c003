import codecs
import gzip
import json
import struct
import zipfile

import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.files import read_seed_entries, read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.sources.universe import FileUniverse

from ..conftest import DEMO_ZIP

WORKS = [{"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1/a"},
         {"id": "https://openalex.org/W2"}]


@pytest.fixture(scope="module")
def real_works():
    """The first 25 real SYNERGY records, as JSON text."""
    with zipfile.ZipFile(DEMO_ZIP) as archive:
        return json.loads(archive.read("works_0_25.json"))


def jsonl(works) -> str:
    return "".join(json.dumps(w) + "\n" for w in works)


def read(path, name="works-file", strict=False):
    """(works, skips) of one works file read under `name`."""
    skips = Skips(strict=strict)
    return list(read_work_objects(path, name, skips)), skips


def broken(path, name="works-file") -> DataError:
    """The error reading `path` raises; every one is a data error naming the file."""
    with pytest.raises(DataError) as caught:
        read(path, name)
    error = caught.value
    assert 2 <= error.exit_code <= 5 and error.exit_code == 2
    assert name in error.message and error.details["file"] == name
    return error


def data_offset(archive_bytes: bytes, info: zipfile.ZipInfo) -> int:
    """Where a member's compressed data starts: after its local header, whose lengths may differ."""
    name_len, extra_len = struct.unpack("<HH", archive_bytes[info.header_offset + 26:info.header_offset + 30])
    return info.header_offset + 30 + name_len + extra_len


@pytest.mark.parametrize("name,payload", [
    ("one.json", json.dumps(WORKS[0])),
    ("array.json", json.dumps(WORKS)),
    ("list.json", json.dumps({"meta": {"count": 2}, "results": WORKS})),
    ("lines.jsonl", "\n".join(json.dumps(w) for w in WORKS) + "\n"),
])
def test_every_json_shape_reads(tmp_path, name, payload):
    path = tmp_path / name
    path.write_text(payload, encoding="utf-8")
    ids = [w["id"] for w in read_work_objects(path)]
    assert ids == [w["id"] for w in WORKS][: len(ids)] and len(ids) >= 1


def test_gzip_and_zip(tmp_path):
    gz = tmp_path / "w.jsonl.gz"
    gz.write_bytes(gzip.compress("\n".join(json.dumps(w) for w in WORKS).encode()))
    assert len(list(read_work_objects(gz))) == 2
    zp = tmp_path / "w.zip"
    with zipfile.ZipFile(zp, "w") as archive:
        archive.writestr("b.json", json.dumps([WORKS[1]]))
        archive.writestr("a.jsonl", json.dumps(WORKS[0]) + "\n")
    assert [w["id"] for w in read_work_objects(zp)] == [WORKS[0]["id"], WORKS[1]["id"]]  # name order


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_byte_order_mark_gives_the_encoding(tmp_path, real_works, encoding):
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
           "utf-32-le": codecs.BOM_UTF32_LE}.get(encoding, b"")
    texts = {"w.jsonl": jsonl(real_works[:3]).replace("\n", "\r\n"), "w.json": json.dumps(real_works[:3])}
    for name, text in texts.items():
        path = tmp_path / name
        path.write_bytes(bom + text.encode(encoding))
        works, skips = read(path)
        assert works == real_works[:3] and not skips


def test_json_lines_stream_a_line_at_a_time(tmp_path, real_works):
    """A line separator inside a JSON string (legal JSON) does not split a JSON Lines record."""
    path = tmp_path / "w.jsonl"
    record = {**real_works[0], "title": "a\u2028b\x85c"}
    path.write_text(jsonl([record, real_works[1]]), encoding="utf-8")
    works, skips = read(path)
    assert [w["title"] for w in works] == [record["title"], real_works[1]["title"]] and not skips


# Unreadable files: typed errors naming the file, and the member or line where there is one.

def test_truncated_and_corrupt_gzip(tmp_path, real_works):
    lines = gzip.compress(jsonl(real_works).encode())
    array = gzip.compress(json.dumps(real_works).encode())
    cases = {"cut.jsonl.gz": lines[: len(lines) // 2], "cut.json.gz": array[:-20], "notgz.json.gz": b"plain text",
             "flipped.jsonl.gz": lines[:40] + bytes(b ^ 0x5A for b in lines[40:80]) + lines[80:]}
    for name, payload in cases.items():
        path = tmp_path / name
        path.write_bytes(payload)
        error = broken(path, f"data/{name}")
        assert error.code == "FILE_CORRUPT" and "damaged, truncated" in error.message


def test_flipped_bytes_in_a_member_of_the_real_zip_name_the_member(tmp_path):
    data = bytearray(DEMO_ZIP.read_bytes())
    with zipfile.ZipFile(DEMO_ZIP) as archive:
        info = archive.getinfo("works_25_50.json")
    start = data_offset(bytes(data), info) + 2000
    data[start:start + 64] = bytes(b ^ 0xA5 for b in data[start:start + 64])
    path = tmp_path / "works_1.zip"
    path.write_bytes(bytes(data))
    error = broken(path, "bundled:Sep_2021")
    assert error.code == "FILE_CORRUPT"
    assert error.message.startswith("bundled:Sep_2021, member works_25_50.json: ")
    assert error.details == {"file": "bundled:Sep_2021", "member": "works_25_50.json"}


def test_truncated_zip_and_not_a_zip(tmp_path):
    for name, payload in (("cut.zip", DEMO_ZIP.read_bytes()[:200_000]), ("text.zip", b"not a zip")):
        path = tmp_path / name
        path.write_bytes(payload)
        assert broken(path, name).code == "FILE_CORRUPT"


def stored_zip(path, members: dict[str, bytes]) -> bytes:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return path.read_bytes()


def patch_headers(data: bytes, offset: int, value: bytes) -> bytes:
    """Overwrite a field of the first member's local header, and the same field of its central directory
    entry (2 bytes further in)."""
    out = bytearray(data)
    for at in (offset, data.index(b"PK\x01\x02") + offset + 2):
        out[at:at + len(value)] = value
    return bytes(out)


@pytest.mark.parametrize("case,offset,value,words", [
    ("crc", None, None, "Bad CRC-32"),
    ("compression", 8, struct.pack("<H", 99), "compression"),
    ("encrypted", 6, struct.pack("<H", 1), "encrypted"),
    ("name", None, None, "damaged"),
])
def test_damaged_zip_members_name_the_member(tmp_path, real_works, case, offset, value, words):
    name = "w\xe9.json" if case == "name" else "w.json"
    data = stored_zip(tmp_path / "source.zip", {name: json.dumps(real_works[:2]).encode()})
    if case == "crc":
        data = data.replace(b'"https://openalex.org/W', b'"https://openalex.org/X', 1)
    elif case == "name":  # flagged as UTF-8, which the name's bytes no longer are
        data = data.replace(name.encode(), b"w\xff\xa9.json")
    else:
        data = patch_headers(data, offset, value)
    path = tmp_path / "works.zip"
    path.write_bytes(data)
    error = broken(path, "works.zip")
    assert error.code == "FILE_CORRUPT" and words in error.message
    if case != "name":  # a bad name breaks the archive's directory, before any member is opened
        assert error.details["member"] == name and f"member {name}" in error.message


def test_undecodable_bytes_name_file_line_and_member(tmp_path, real_works):
    lines = jsonl(real_works[:3]).encode()
    third = lines.index(b"\n", lines.index(b"\n") + 1) + 10
    bad = lines[:third] + b"\xff" + lines[third:]
    path = tmp_path / "w.jsonl"
    path.write_bytes(bad)
    error = broken(path, "w.jsonl")
    assert error.code == "FILE_ENCODING" and "line 3" in error.message and error.details["line"] == 3
    zp = tmp_path / "w.zip"
    with zipfile.ZipFile(zp, "w") as archive:
        archive.writestr("a.jsonl", bad)
    error = broken(zp, "w.zip")
    assert error.code == "FILE_ENCODING" and error.message.startswith("w.zip, member a.jsonl: line 3")
    assert error.details["member"] == "a.jsonl" and error.details["line"] == 3
    one = tmp_path / "w.json"
    one.write_bytes(b'[\n{"id": "W1",\n "title": "\xc3\x28"}]')
    error = broken(one, "w.json")
    assert error.code == "FILE_ENCODING" and error.details["line"] == 3


def test_broken_files_are_data_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": "W1"},\n{not json', encoding="utf-8")
    error = broken(bad, "bad.json")
    assert error.code == "FILE_INVALID" and "line 2: not valid JSON" in error.message and error.details["line"] == 2
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert "nested too deeply" in broken(deep, "deep.json").message
    number = tmp_path / "number.json"
    number.write_text("42", encoding="utf-8")
    assert "expected a Work object" in broken(number, "number.json").message
    missing = broken(tmp_path / "missing.json", "missing.json")
    assert missing.code == "FILE_MISSING" and "does not exist" in missing.message
    odd = tmp_path / "works.csv"
    odd.write_text("id\n", encoding="utf-8")
    assert "unknown kind" in broken(odd, "works.csv").message


# Records the reader can do without: skipped, each reported with its place; strict makes them errors.

def write_zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)


SKIP_CASES = {
    "bad line": ("w.jsonl", lambda p, w: p.write_text(jsonl(w[:1]) + "{oops\n" + jsonl(w[1:2])),
                 "line 2", "not valid JSON"),
    "array line": ("w.jsonl", lambda p, w: p.write_text(jsonl(w[:2]) + "[1, 2]\n"), "line 3",
                   "not a JSON object but an array"),
    "deep line": ("w.jsonl", lambda p, w: p.write_text(jsonl(w[:2]) + "[" * 100_000 + "]" * 100_000 + "\n"),
                  "line 3", "nested too deeply"),
    "array item": ("w.json", lambda p, w: p.write_text(json.dumps([w[0], "W5", w[1]])), "record 2",
                   "not a JSON object but a string"),
    "no id": ("w.json", lambda p, w: p.write_text(json.dumps([w[0], {**w[1], "id": 7, "ids": {}}])),
              "record 2", "without a usable `id`"),
    "other id": ("w.json", lambda p, w: p.write_text(json.dumps([w[0], {**w[1], "id": "raw:blank", "ids": {}}])),
                 "record 2", "without a usable `id` (an OpenAlex work ID, W…), not 'raw:blank'"),
    "surrogate": ("w.jsonl", lambda p, w: p.write_text(jsonl(w[:1]) + jsonl(w[1:2]).replace(
        '"title": "', '"title": "\\udc80', 1)), "line 2", "1 lone UTF-16 surrogate(s) replaced by U+FFFD"),
    "member": ("w.zip", lambda p, w: write_zip(p, {"a.json": json.dumps(w[:2]), "README.txt": "hello"}),
               "member README.txt", "not a works file"),
    "member line": ("w.zip", lambda p, w: write_zip(p, {"a.jsonl": jsonl(w[:1]) + "nope\n" + jsonl(w[1:2])}),
                    "member a.jsonl, line 2", "not valid JSON"),
    "no works": ("w.json", lambda p, w: p.write_text("[]"), "", "holds no works"),
}


@pytest.mark.parametrize("case", sorted(SKIP_CASES))
def test_skipped_records_are_reported_with_their_place(tmp_path, real_works, case):
    name, write, where, reason = SKIP_CASES[case]
    path = tmp_path / name
    write(path, real_works)
    works, skips = read(path, f"data/{name}")
    assert len(works) == {"no works": 0, "no id": 1, "other id": 1}.get(case, 2)
    [skip] = skips.items
    assert (skip.file, skip.where) == (f"data/{name}", where) and reason in skip.reason
    with pytest.raises(DataError) as caught:
        read(path, f"data/{name}", strict=True)
    assert caught.value.code == "RECORD_INVALID" and caught.value.exit_code == 2
    assert caught.value.details == {"file": f"data/{name}", "where": where, "reason": skip.reason}
    assert caught.value.message.startswith(f"data/{name}")


def test_repaired_surrogates_reach_the_tables_as_replacement_characters(tmp_path, real_works):
    path = tmp_path / "w.jsonl"
    record = {**real_works[0], "title": "x", "abstract_inverted_index": {"a": [0]}}
    path.write_text(jsonl([record]).replace('"title": "x"', '"title": "x\\ud800"').replace(
        '{"a": [0]}', '{"b\\udfff": [0]}'), encoding="utf-8")
    works, skips = read(path)
    bundle = bundle_from_works(works)
    assert bundle.works.title.tolist() == ["x\ufffd"] and bundle.works.abstract.tolist() == ["b\ufffd"]
    assert skips.items[0].reason.startswith("2 lone UTF-16 surrogate(s)")


def test_a_universe_names_its_files_in_skips(tmp_path, real_works):
    path = tmp_path / "w.jsonl"
    path.write_text(jsonl(real_works[:2]) + "{oops\n", encoding="utf-8")
    skips = Skips()
    universe = FileUniverse.from_files([DEMO_ZIP, path], ["bundled:Sep_2021", "data/w.jsonl"], skips)
    assert len(universe.ids) == 271
    assert skips.as_rows() == [{"file": "data/w.jsonl", "where": "line 3", "reason": skips.items[0].reason}]
    assert len(FileUniverse.from_files([path]).ids) == 2  # the old call form still works


def test_real_bibtex_and_ris_seed_entries(shared_data):
    bib = read_seed_entries(shared_data / "bibtex" / "scientopy-bibliography.bib")
    assert len(bib) == 304
    assert sum(e.doi is not None for e in bib) > 200
    assert all(e.doi is None or e.doi.startswith("10.") for e in bib)
    ris = read_seed_entries(shared_data / "ris" / "litstudy-ieee-example.ris")
    assert len(ris) == 25
    assert sum(e.doi is not None for e in ris) >= 20


def test_a_universe_read_from_the_sources_tables_reads_the_bundle_only_when_asked(tmp_path):
    """The seed job looks works up by ID, DOI and PMID, and chaining asks who cites whom: neither may
    hold the universe's tables (a million works' worth). Chaining reads the references' two ID columns,
    the records of some works only their rows; only the records of every work read the whole bundle
    (and give it without a copy). Each answer is the one of the universe held in memory."""
    import pandas as pd

    from bib2graph.tables import SOURCE_REFS, empty, write_table

    whole = FileUniverse.from_files([DEMO_ZIP])
    whole.bundle.write(tmp_path)
    write_table(empty(SOURCE_REFS), SOURCE_REFS, tmp_path / "cited.parquet")
    read = FileUniverse.read(tmp_path, tmp_path / "cited.parquet")
    doi = next(iter(whole.by_doi))
    assert read.ids == whole.ids and read.ids_for_dois([doi]) == {doi: whole.by_doi[doi]}
    assert read.all_ids() == whole.all_ids()
    assert "bundle" not in vars(read) and "refs" not in vars(read)      # nothing but the works' IDs read yet
    ids = sorted(read.ids)
    table = whole.bundle.references                     # the plain answers, in the table's order
    refs = {w: list(table.loc[table["work_id"] == w, "referenced_id"]) for w in ids + ["W0"]}
    citers = {w: list(table.loc[table["referenced_id"] == w, "work_id"]) for w in ids + ["W0"]}
    for ask in (ids[:5], ids, ids[::-1], ["W0", ids[0]]):
        for universe in (read, whole):
            assert universe.references(ask) == {w: refs[w] for w in ask}
            assert universe.reachable_references(ask) == {w: [r for r in refs[w] if r in whole.ids] for w in ask}
            assert universe.citing(ask) == {w: citers[w] for w in ask}
    assert sum(map(len, citers.values())) > 100                          # links to compare
    some = read.records(ids[::3])
    assert "bundle" not in vars(read) and "refs" not in vars(read)      # the rows of those works only
    for name in ("works", "authorships", "affiliations", "references", "terms"):
        pd.testing.assert_frame_equal(getattr(some, name), getattr(whole.bundle.subset(ids[::3]), name))
    everything = read.records(ids)
    for name in ("works", "authorships", "affiliations", "references", "terms"):
        pd.testing.assert_frame_equal(getattr(everything, name), getattr(whole.bundle.subset(ids), name))
    everything.works = everything.works.iloc[:0]          # the caller's copy: the universe keeps its works
    assert len(read.bundle.works) == len(whole.ids)


def test_a_pool_of_the_whole_universe_is_its_tables_copied_byte_for_byte(tmp_path):
    """seed.all without chaining pools every work: the chain job copies the universe's files unread, and
    they must be the bytes records() and Bundle.write give; any other pool is refused and nothing written."""
    from bib2graph.tables import SOURCE_REFS, empty, write_table

    universe = tmp_path / "sources"
    FileUniverse.from_files([DEMO_ZIP]).bundle.write(universe)
    write_table(empty(SOURCE_REFS), SOURCE_REFS, universe / "cited.parquet")
    read = FileUniverse.read(universe, universe / "cited.parquet")
    every = sorted(read.ids)
    assert not read.copy_whole(every[1:], tmp_path / "part") and not (tmp_path / "part").exists()
    assert not read.copy_whole(every + ["W0"], tmp_path / "more") and not (tmp_path / "more").exists()
    assert read.copy_whole(list(reversed(every)), tmp_path / "copied")
    assert "bundle" not in vars(read)                       # copied, not read
    read.records(every).write(tmp_path / "written")
    for name in ("works", "authorships", "affiliations", "references", "terms"):
        assert (tmp_path / "copied" / f"{name}.parquet").read_bytes() == (tmp_path / "written" / f"{name}.parquet").read_bytes()
