"""`source.resolve: openalex`: a Web of Science export's cited references that carry a DOI become the
OpenAlex works of those DOIs, asked of the loopback OpenAlex server in batches through the real client
and kept in the raw store, in a real `b2g run`."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from bib2graph.ids import normalize_doi
from bib2graph.sources.exports.references import parse_reference

from ..openalex_server import OpenAlexTestServer, load_works
from ..wos_export import synergy_works, wos_export
from .helpers import b2g

def _records(text: str) -> list[dict[str, list[str]]]:
    """The fields of each PT…ER record, read independently of the reader under test."""
    records, record, tag = [], {}, None
    for line in text.splitlines():
        if line == "ER":
            records.append(record)
            record, tag = {}, None
        elif line[:2].strip() and line[2:3] == " ":
            tag = line[:2]
            record.setdefault(tag, []).append(line[3:])
        elif line.startswith("   ") and tag:
            record[tag].append(line[3:])
    return records


FAST = {"B2G_OPENALEX_BACKOFF": "0.01", "B2G_OPENALEX_RATE": "0"}


@pytest.mark.long
def test_cited_dois_take_their_openalex_ids_and_are_asked_once(shared_data, tmp_path):
    zips = [shared_data / "synergy/Donners_2021/works_1.zip"]
    served = synergy_works(zips)
    with_doi = [served[w] for w in sorted(served) if normalize_doi(served[w].get("doi"))]
    text, _ = wos_export(with_doi[-80:], served)   # the newest: they cite older works the export lacks
    root = tmp_path / "review"
    assert b2g("init", str(root), "--json").returncode == 0
    (root / "data").mkdir()
    (root / "data/savedrecs.txt").write_text(text, encoding="utf-8")
    spec = {"source": {"kind": "files", "files": ["data/savedrecs.txt"], "resolve": "openalex"},
            "seed": {"all": True}, "chain": {"direction": "none"}, "networks": {"citation": {}}}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    plan = b2g("plan", "--json", "--workspace", str(root)).envelope["data"]   # priced before anything is asked
    assert plan["source"] == "files" and plan["requests"]["list"] >= 1
    with OpenAlexTestServer(load_works(zips), retry_after=0) as server:
        env = {"B2G_OPENALEX_URL": server.url, "OPENALEX_API_KEY": "secret-test-key", **FAST}
        run = b2g("run", "--cores", "1", "--json", "seed", "--workspace", str(root), env=env)
        assert run.returncode == 0, run.stderr[-3000:]
        asked = len(server.requests())
        assert 1 <= asked <= plan["requests"]["list"]      # DOI look-ups in batches, as the plan priced
        again = b2g("run", "--cores", "1", "--json", "seed", "--forcerun", "sources", "--workspace", str(root),
                    env=env)
        assert again.returncode == 0, again.stderr[-3000:]
        assert len(server.requests()) == asked            # the raw store answered the second time
    # every CR line with a DOI of a served work now points at that work's OpenAlex ID
    by_doi = {normalize_doi(w.get("doi")): wid for wid, w in served.items() if normalize_doi(w.get("doi"))}
    works = pd.read_parquet(root / "results/sources/works.parquet")
    refs = pd.read_parquet(root / "results/sources/references.parquet")
    own = dict(zip(works["doi"], works["work_id"]))
    expected = set()
    for record in _records(text):
        citing = own[normalize_doi(record["DI"][0])]
        for raw in record.get("CR", []):
            parsed = parse_reference(raw, "wos")
            if parsed is not None and parsed.doi in by_doi and own.get(parsed.doi, by_doi[parsed.doi]) != citing:
                expected.add((citing, own.get(parsed.doi, by_doi[parsed.doi])))
    got = set(zip(refs["work_id"], refs["referenced_id"]))
    assert expected and expected <= got
    cited = pd.read_parquet(root / "results/sources/cited.parquet")
    assert not cited.loc[cited["work_id"].str.startswith("REF:"), "doi"].isin(set(by_doi)).any()
    counts = json.loads((root / "results/sources/manifest.json").read_text(encoding="utf-8"))["counts"]
    assert counts["references"]["openalex"]["resolved"] > 0
    assert (root / "resources/openalex").is_dir() and any((root / "resources/openalex").rglob("*.json"))
