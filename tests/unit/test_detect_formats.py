"""Export files are recognised by what they hold, whatever they are called."""

from __future__ import annotations

import json
import shutil

import pytest

from bib2graph.errors import DataError
from bib2graph.sources.exports.detect import FORMATS, detect_format

EXPECTED = {"wos/wos_plaintext.txt": "wos", "wos/wos_tab_delimited_win_utf8.txt": "wos-tab",
            "wos/wos_tab_delimited_win_utf16.txt": "wos-tab", "wos/scientopy-iot-gateway-wos.txt": "wos-tab",
            "scopus/bibx-scopus.csv": "scopus-csv", "scopus/litstudy-scopus.csv": "scopus-csv",
            "scopus/scientopy-iot-gateway-scopus.csv": "scopus-csv", "ris/litstudy-ieee-example.ris": "ris",
            "bibtex/scientopy-bibliography.bib": "bibtex", "synergy/Sep_2021/works_1.zip": "openalex-json"}


def test_every_shared_export_is_recognised(shared_data):
    folders = ("wos", "scopus", "ris", "bibtex")
    on_disk = {f"{p.parent.name}/{p.name}" for folder in folders for p in (shared_data / folder).iterdir()}
    assert on_disk <= EXPECTED.keys(), "a new file in ../shared/data needs its expected format here"
    for name, expected in EXPECTED.items():
        assert detect_format(shared_data / name) == expected, name
        assert expected in FORMATS


def test_names_do_not_decide(shared_data, tmp_path):
    """Databases call every export savedrecs.txt or export.csv: the content decides."""
    for name, expected in EXPECTED.items():
        if expected == "openalex-json":
            continue
        renamed = tmp_path / f"{expected}-{name.replace('/', '-')}.dat"
        shutil.copyfile(shared_data / name, renamed)
        assert detect_format(renamed) == expected, name


@pytest.mark.parametrize("header, expected", [
    # Lens.org scholarly works export and OpenAlex's web-interface CSV export, by their documented columns
    ("Lens ID,Title,Date Published,Publication Year,Publication Type,Source Title,DOI,Author/s", "lens-csv"),
    ("id,doi,title,display_name,publication_year,publication_date,type,authorships.author.display_name",
     "openalex-csv"),
    ("name,age,city", None),
])
def test_csv_exports_by_header(tmp_path, header, expected):
    path = tmp_path / "export.csv"
    path.write_text(header + "\n", encoding="utf-8-sig")
    assert detect_format(path) == expected


def test_csl_json_is_told_from_openalex_json(shared_data, tmp_path):
    csl = [{"id": "smith2001", "type": "article-journal", "title": "A title", "author": [{"family": "Smith"}],
            "issued": {"date-parts": [[2001]]}, "DOI": "10.1/x"}]
    (tmp_path / "library.json").write_text(json.dumps(csl), encoding="utf-8")
    (tmp_path / "library.csljson").write_text(json.dumps(csl), encoding="utf-8")
    assert detect_format(tmp_path / "library.json") == "csl-json"
    assert detect_format(tmp_path / "library.csljson") == "csl-json"
    works = shared_data / "openalex-api" / "extracted"
    assert {detect_format(p) for p in works.glob("*.json")} == {"openalex-json"}


def test_csl_json_whose_first_item_says_little_or_outgrows_the_sample(shared_data, tmp_path):
    """manubot's CSL files: a Crossref item with 555 references (longer than the 64 KiB looked at) and a
    library whose first item is a placeholder ({"id", "type"} alone) are CSL-JSON; an OpenAlex work longer
    than the sample stays OpenAlex."""
    from bib2graph.sources.exports.detect import SAMPLE_BYTES

    item = {"id": "deep-review", "type": "article-journal", "title": "Opportunities and obstacles",
            "issued": {"date-parts": [[2018, 4, 4]]}, "DOI": "10.1098/rsif.2017.0387"}
    crossref = {"indexed": {"date-parts": [[2018, 8, 7]]}, "reference-count": 3000,
                "reference": [{"key": f"ref{k}", "unstructured": "A reference " * 4} for k in range(3000)], **item}
    placeholder = [{"id": "raw:blank", "type": "entry"}, item]
    work = json.loads(next((shared_data / "openalex-api" / "extracted").glob("*.json")).read_text(encoding="utf-8"))
    work = (work.get("results") or [work])[0] if isinstance(work, dict) else work[0]
    long_work = {**work, "abstract_inverted_index": {f"w{k}": [k] for k in range(SAMPLE_BYTES // 8)}}
    for name, value, expected in (("crossref.json", [crossref], "csl-json"), ("placeholder.json", placeholder, "csl-json"),
                                  ("work.json", [long_work], "openalex-json")):
        (tmp_path / name).write_text(json.dumps(value, indent=2), encoding="utf-8")
        assert len(json.dumps(value, indent=2)) > SAMPLE_BYTES or name == "placeholder.json"
        assert detect_format(tmp_path / name) == expected, name


def test_unknown_and_missing_files(shared_data, tmp_path):
    (tmp_path / "notes.txt").write_text("Just some notes\nabout a review\n", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(bytes(range(256)) * 64)
    assert detect_format(tmp_path / "notes.txt") is None
    assert detect_format(tmp_path / "image.png") is None
    with pytest.raises(DataError):
        detect_format(tmp_path / "missing.txt")


def test_the_spec_schema_names_every_format_a_reader_reads():
    from bib2graph import spec as spec_mod
    from bib2graph.sources.exports.readers import FORMATS

    formats = spec_mod.schema()["properties"]["source"]["properties"]["formats"]["additionalProperties"]["enum"]
    assert sorted(formats) == sorted(FORMATS)


def test_a_file_of_no_known_format_says_how_to_declare_one(tmp_path):
    """The FILE_INVALID of an unknown file names the spec's `source.formats` entry that would declare it,
    in a form the spec accepts (a mapping of the file as written to its format)."""
    from bib2graph.sources.exports.detect import file_format

    (tmp_path / "notes.txt").write_text("Just some notes\nabout a review\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        file_format(tmp_path / "notes.txt", "data/notes.txt")
    assert info.value.code == "FILE_INVALID"
    assert 'source.formats: {"data/notes.txt": <format>}' in info.value.message
    assert all(f in info.value.message for f in FORMATS)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"],
                         ids=["empty", "blank lines", "BOM", "BOM and a line end"])
def test_an_empty_file_beside_others_holds_no_records_and_is_said(shared_data, tmp_path, content):
    """An empty file (or white space, or a byte-order mark alone) holds no records, whatever its name: the
    other files are read and the empty one reported; `strict` makes it an error naming the file."""
    from bib2graph.skips import Skips
    from bib2graph.sources.ingest import ingest

    good = shared_data / "ris" / "litstudy-ieee-example.ris"
    (tmp_path / "empty.ris").write_bytes(content)
    alone = ingest([good], ["good.ris"], skips=Skips())
    skips = Skips()
    both = ingest([tmp_path / "empty.ris", good], ["empty.ris", "good.ris"], skips=skips)
    assert both.bundle.works.equals(alone.bundle.works)
    assert [(s.file, s.reason) for s in skips.items] == [("empty.ris", "is empty: holds no records")]
    with pytest.raises(DataError, match="empty.ris"):
        ingest([tmp_path / "empty.ris", good], ["empty.ris", "good.ris"], skips=Skips(strict=True))
