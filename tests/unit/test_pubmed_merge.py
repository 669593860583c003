"""A PubMed export and an OpenAlex file of overlapping works merge into one work per PMID or DOI, with
the duplicates named per file (issue 23, acceptance 2). The PubMed file is written from the same real
SYNERGY records (tests/pubmed_export.py), some of them without their DOI, so that only the PMID joins
them; expected counts come from the raw records."""

from __future__ import annotations

import json

import pytest

from bib2graph.ids import normalize_doi
from bib2graph.sources.exports.detect import detect_format
from bib2graph.sources.ingest import ingest

from ..pubmed_export import efetch_xml, medline, pmid_of
from ..wos_export import synergy_works


@pytest.fixture(scope="module")
def donners(shared_data):
    works = synergy_works([shared_data / "synergy/Donners_2021/works_1.zip"])
    return [works[w] for w in sorted(works)]


@pytest.mark.parametrize("form", ["medline", "xml"])
def test_pubmed_and_openalex_records_merge_per_pmid_and_doi(tmp_path, donners, form):
    openalex, pubmed = donners[:150], donners[100:]
    no_doi = {w["id"].rsplit("/", 1)[-1] for w in pubmed[:25]}      # joined by PMID alone
    oa_path = tmp_path / "openalex.json"
    oa_path.write_text(json.dumps(openalex), encoding="utf-8")
    if form == "medline":
        pm_path = tmp_path / "pubmed.txt"
        pm_path.write_text(medline(pubmed, drop_doi=no_doi), encoding="utf-8")
    else:
        pm_path = tmp_path / "pubmed.xml"
        stripped = [{**w, "doi": None} if w["id"].rsplit("/", 1)[-1] in no_doi else w for w in pubmed]
        pm_path.write_text(efetch_xml(stripped, {}), encoding="utf-8")
    assert detect_format(pm_path) == ("pubmed" if form == "medline" else "pubmed-xml")

    found = ingest([oa_path, pm_path], ["openalex.json", pm_path.name])
    works = found.bundle.works
    in_pubmed = [w for w in pubmed if pmid_of(w)]
    overlap = [w for w in in_pubmed if w in openalex]
    assert len(overlap) >= 20 and any(w["id"].rsplit("/", 1)[-1] in no_doi for w in overlap)
    assert len(works) == len(openalex) + len(in_pubmed) - len(overlap)
    # one work per PMID and per DOI; an overlapping work keeps its OpenAlex ID and its DOI
    assert works["pmid"].dropna().is_unique and works["doi"].dropna().is_unique
    by_pmid = dict(zip(works["pmid"], works["work_id"]))
    for work in overlap:
        assert by_pmid[pmid_of(work)] == work["id"].rsplit("/", 1)[-1]
    by_id = works.set_index("work_id")
    for work in openalex:
        if normalize_doi(work.get("doi")):
            assert by_id.loc[work["id"].rsplit("/", 1)[-1], "doi"] == normalize_doi(work["doi"])
    # the duplicates are named per file: every PubMed record of a work the OpenAlex file holds
    files = {f["file"]: f for f in found.counts["files"]}
    assert files[pm_path.name] == {"file": pm_path.name, "records": len(in_pubmed), "duplicates": len(overlap),
                                   **{k: v for k, v in files[pm_path.name].items()
                                      if k not in ("file", "records", "duplicates")}}
    assert files["openalex.json"]["duplicates"] == 0
    origins = found.origins
    merged = origins[origins["file"] == pm_path.name]
    assert int((~merged["primary"]).sum()) == len(overlap)

