"""The preflight remembers what it read: a file with the same bytes is not parsed again, a changed one is."""

from __future__ import annotations

import json

import pytest
import yaml

from bib2graph.errors import DataError
from bib2graph.paths import PREFLIGHT_CACHE
from bib2graph.service.init import init_workspace
from bib2graph.service.preflight import check_spec, read_inputs
from bib2graph.service.workspace import resolve

GOOD = "@article{kept,\n  doi = {10.1016/j.nlm.2011.11.007}\n}\n"
BROKEN = "@article{broken,\n  title = {never closed\n"


@pytest.fixture
def ws(tmp_path):
    init_workspace(tmp_path / "review")
    ws = resolve(str(tmp_path / "review"))
    spec = yaml.safe_load(ws.spec_path.read_text(encoding="utf-8"))
    spec["seed"]["files"] = ["seeds.bib"]
    ws.spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    (ws.root / "seeds.bib").write_text(GOOD + BROKEN, encoding="utf-8")
    return ws


def _set_strict(ws, strict: bool):
    spec = yaml.safe_load(ws.spec_path.read_text(encoding="utf-8"))
    spec["strict"] = strict
    ws.spec_path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return check_spec(ws)


def test_a_file_read_once_is_answered_from_the_cache_until_its_bytes_change(ws):
    spec = check_spec(ws)
    first = read_inputs(ws, spec)
    assert [w for w in first if w.startswith("seeds.bib: 1 record(s) skipped") and "line 4" in w]
    cache = ws.root / PREFLIGHT_CACHE
    entries = json.loads(cache.read_text(encoding="utf-8"))
    (key,) = [k for k in entries if "|seed_files|seeds.bib|" in k]
    assert entries[key][0]["where"] == "line 4"

    entries[key][0]["reason"] = "remembered"          # the cache, not the file, answers the same bytes
    cache.write_text(json.dumps(entries), encoding="utf-8")
    assert any("remembered" in w for w in read_inputs(ws, spec))

    (ws.root / "seeds.bib").write_text(GOOD + BROKEN + BROKEN.replace("broken", "again"), encoding="utf-8")
    again = read_inputs(ws, spec)                       # new bytes: read again
    assert any(w.startswith("seeds.bib: 2 record(s) skipped") for w in again), again
    assert not any("remembered" in w for w in again)
    assert len(json.loads(cache.read_text(encoding="utf-8"))) == len(entries)   # the old entry is gone


def test_strict_is_part_of_what_is_remembered(ws):
    read_inputs(ws, check_spec(ws))
    with pytest.raises(DataError) as caught:
        read_inputs(ws, _set_strict(ws, True))
    assert caught.value.code == "RECORD_INVALID" and caught.value.details["file"] == "seeds.bib"
