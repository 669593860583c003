"""`source.resolve: openalex` on a PubMed XML export whose cited references carry only a PMID: those
outside the export become the OpenAlex works of their PMIDs (the `ids.pmid` filter), asked of the
loopback OpenAlex server in batches through the real client and kept in the raw store, in a real
`b2g run`; a second run asks nothing (issue 23, acceptance 3). An OpenAlex file beside it shares works
with the export: PRISMA names the duplicates of each file."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from bib2graph.ids import short_id

from ..openalex_server import OpenAlexTestServer, load_works
from ..pubmed_export import efetch_xml, pmid_of
from ..wos_export import synergy_works
from .helpers import b2g

FAST = {"B2G_OPENALEX_BACKOFF": "0.01", "B2G_OPENALEX_RATE": "0"}


@pytest.mark.long
def test_cited_pmids_take_their_openalex_ids_and_are_asked_once(shared_data, tmp_path):
    zips = [shared_data / "synergy/Donners_2021/works_1.zip"]
    served = synergy_works(zips)
    with_pmid = [served[w] for w in sorted(served, key=lambda w: int(w[1:])) if pmid_of(served[w])]
    exported = with_pmid[-80:]                       # the newest: they cite older works the export lacks
    also_openalex = exported[:10]                    # the same works as OpenAlex records, in a second file
    root = tmp_path / "review"
    assert b2g("init", str(root), "--json").returncode == 0
    (root / "data").mkdir()
    (root / "data/pubmed.xml").write_text(efetch_xml(exported, served), encoding="utf-8")
    (root / "data/openalex.json").write_text(json.dumps(also_openalex), encoding="utf-8")
    spec = {"source": {"kind": "files", "files": ["data/pubmed.xml", "data/openalex.json"], "resolve": "openalex"},
            "seed": {"all": True}, "chain": {"direction": "none"}, "networks": {"citation": {}}}
    (root / "config/research.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    plan = b2g("plan", "--json", "--workspace", str(root)).envelope["data"]   # priced before anything is asked
    assert plan["basis"]["cited_pmids"] >= 1 and plan["requests"]["list"] >= 1
    with OpenAlexTestServer(load_works(zips), retry_after=0) as server:
        env = {"B2G_OPENALEX_URL": server.url, "OPENALEX_API_KEY": "secret-test-key", **FAST}
        run = b2g("run", "--cores", "1", "--json", "corpus", "--workspace", str(root), env=env)
        assert run.returncode == 0, run.stderr[-3000:]
        asked = server.requests()
        assert any("ids.pmid:" in str(r) for r in asked)
        assert 1 <= len(asked) <= plan["requests"]["list"]     # PMID look-ups in batches, as the plan priced
        again = b2g("run", "--cores", "1", "--json", "seed", "--forcerun", "sources", "--workspace", str(root),
                    env=env)
        assert again.returncode == 0, again.stderr[-3000:]
        assert len(server.requests()) == len(asked)             # the raw store answered the second time
    # every reference of an exported work to a served work with a PMID points at that work's OpenAlex ID
    by_pmid = {pmid_of(w): wid for wid, w in served.items() if pmid_of(w)}
    works = pd.read_parquet(root / "results/sources/works.parquet")
    refs = pd.read_parquet(root / "results/sources/references.parquet")
    own = dict(zip(works["pmid"], works["work_id"]))
    expected = set()
    twice = {short_id(w["id"]) for w in also_openalex}     # these take their references from OpenAlex's record
    for work in exported:
        citing = own[pmid_of(work)]
        if citing in twice:
            expected |= {(citing, short_id(r)) for r in work.get("referenced_works") or []} - {(citing, citing)}
            continue
        for ref in work.get("referenced_works") or []:
            cited = served.get(short_id(ref))
            if cited is not None and pmid_of(cited):
                target = own.get(pmid_of(cited), by_pmid[pmid_of(cited)])
                if target != citing:
                    expected.add((citing, target))
    got = set(zip(refs["work_id"], refs["referenced_id"]))
    assert len(expected) >= 20 and expected == got
    outside = {t for c, t in expected if c not in twice} - set(works["work_id"])
    assert outside and all(t.startswith("W") for t in outside)    # resolved outside the export, by PMID alone
    counts = json.loads((root / "results/sources/manifest.json").read_text(encoding="utf-8"))["counts"]
    assert counts["references"]["openalex"]["asked_pmids"] >= len(outside)
    assert counts["references"]["openalex"]["resolved"] >= len(outside)
    # PRISMA: the records of each file and the duplicates removed from each
    prisma = json.loads((root / "results/corpus/prisma.json").read_text(encoding="utf-8"))
    files = {f["file"]: f for f in prisma["sources"]["files"]}
    assert files["data/openalex.json"]["records"] == 10 and files["data/pubmed.xml"]["records"] == 80
    assert files["data/openalex.json"]["duplicates"] + files["data/pubmed.xml"]["duplicates"] == 10
    assert prisma["sources"]["duplicates_removed"] == 10 and len(works) == 80
