import gzip
import json
import zipfile

import pytest

from bib2graph.errors import DataError
from bib2graph.sources.files import read_seed_entries, read_work_objects

WORKS = [{"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1/a"},
         {"id": "https://openalex.org/W2"}]


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


def test_broken_files_are_data_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match="not valid JSON"):
        list(read_work_objects(bad))
    with pytest.raises(DataError, match="does not exist"):
        list(read_work_objects(tmp_path / "missing.json"))
    odd = tmp_path / "works.csv"
    odd.write_text("id\n", encoding="utf-8")
    with pytest.raises(DataError, match="unknown kind"):
        list(read_work_objects(odd))


def test_real_bibtex_and_ris_seed_entries(shared_data):
    bib = read_seed_entries(shared_data / "bibtex" / "scientopy-bibliography.bib")
    assert len(bib) == 304
    assert sum(e.doi is not None for e in bib) > 200
    assert all(e.doi is None or e.doi.startswith("10.") for e in bib)
    ris = read_seed_entries(shared_data / "ris" / "litstudy-ieee-example.ris")
    assert len(ris) == 25
    assert sum(e.doi is not None for e in ris) >= 20
