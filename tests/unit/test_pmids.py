"""PMIDs as identities: their forms, seeds by PMID, decisions by PMID, labels by PMID, and duplicates by
PMID in the corpus, on the real works of the bundled demo (SYNERGY, whose OpenAlex records carry
``ids.pmid``). Expected values come from the raw Work objects, not from the code under test."""

from __future__ import annotations

import json
import zipfile

import pandas as pd
import pytest

from bib2graph.ids import normalize_issn, normalize_pmid, short_id
from bib2graph.screening import labels
from bib2graph.seed import resolve_seeds
from bib2graph.service.curate import resolve_one

from ..conftest import DEMO_ZIP


@pytest.fixture(scope="module")
def raw_works() -> dict[str, dict]:
    works = {}
    with zipfile.ZipFile(DEMO_ZIP) as archive:
        for name in sorted(archive.namelist()):
            for work in json.loads(archive.read(name)):
                works[short_id(work["id"])] = work
    return works


def _pmid(work) -> str | None:
    url = (work.get("ids") or {}).get("pmid") or ""
    digits = url.rstrip("/").rsplit("/", 1)[-1]
    return digits.lstrip("0") if digits.isdigit() else None


@pytest.mark.parametrize("raw, expected", [
    ("12345", "12345"), (12345, "12345"), ("PMID: 012345", "12345"), ("pmid:9", "9"),
    ("https://pubmed.ncbi.nlm.nih.gov/27919275", "27919275"), ("https://pubmed.ncbi.nlm.nih.gov/27919275/", "27919275"),
    ("W12345", None), ("10.1/12345", None), ("", None), (None, None), ("0", None), ("12a", None), (True, None),
    ("1" * 13, None),
])
def test_pmid_forms(raw, expected):
    assert normalize_pmid(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("0028-0836", "0028-0836"), ("00280836", "0028-0836"), ("1050-963x", "1050-963X"), ("ISSN 1050-963X", "1050-963X"),
    ("1050-963", None), ("abcd-efgh", None), ("", None), (None, None),
])
def test_issn_forms(raw, expected):
    assert normalize_issn(raw) == expected


def test_the_works_table_carries_pmid_issn_and_mesh(demo_universe, raw_works):
    works = demo_universe.bundle.works.set_index("work_id")
    with_pmid = {w: _pmid(x) for w, x in raw_works.items() if _pmid(x)}
    assert with_pmid and works.loc[sorted(with_pmid), "pmid"].tolist() == [with_pmid[w] for w in sorted(with_pmid)]
    issn = {w: (x.get("host_venue") or {}).get("issn_l") for w, x in raw_works.items()}
    assert all(works.loc[w, "issn"] == i.upper() for w, i in issn.items() if i)
    terms = demo_universe.bundle.terms
    mesh = terms[terms["field"] == "mesh"]
    expected = {(w, m["descriptor_name"].casefold()) for w, x in raw_works.items() for m in x.get("mesh") or []}
    assert set(zip(mesh["work_id"], mesh["term_id"])) == expected


def test_seeds_by_pmid_are_found_and_unknown_ones_reported(demo_universe, raw_works):
    wanted = sorted(w for w, x in raw_works.items() if _pmid(x))[:5]
    given = [f"PMID:{_pmid(raw_works[w])}" for w in wanted] + ["99999999999"]
    found = resolve_seeds(demo_universe, {"pmids": given}, [], [])
    assert sorted(found.seeds["work_id"]) == wanted
    assert set(found.seeds["seeded_by"]) == {"pmid"}
    assert found.unresolved == [{"seeded_by": "pmid", "value": "99999999999"}]


def test_a_decision_names_its_work_by_pmid():
    known = ({"W1", "W2"}, {"10.1/a": "W1"}, {"123": "W2"})
    assert resolve_one("PMID:123", known) == "W2"
    assert resolve_one("https://pubmed.ncbi.nlm.nih.gov/123/", known) == "W2"
    assert resolve_one("123", known) == "W2"
    assert resolve_one("124", known) is None
    assert resolve_one("10.1/A", known) == "W1" and resolve_one("W1", known) == "W1"
    assert resolve_one("PMID:123", None) is None   # before pooling only W-IDs are taken on trust


def test_labels_match_by_pmid_when_id_and_doi_do_not(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("openalex_id,doi,pmid,label_included\n,,https://pubmed.ncbi.nlm.nih.gov/77,1\n"
                    ",10.9/none,0077,1\n,,78,0\n", encoding="utf-8")
    found = labels.read(path, {"W1", "W2"}, {"pmid:77": "W2"})
    assert found.table.to_dict("list") == {"work_id": ["W2"], "label": [1]}
    assert (found.rows, found.unmatched) == (3, 1)


def test_labels_find_pooled_works_by_pmid(tmp_path, demo_universe, raw_works):
    pool = tmp_path / "works.parquet"
    demo_universe.bundle.works.to_parquet(pool)
    identifiers = labels.pool_identifiers(pool)
    for work_id, work in raw_works.items():
        if _pmid(work):
            assert identifiers[f"pmid:{_pmid(work)}"] == work_id


def test_works_sharing_a_pmid_are_duplicates_unless_their_dois_differ():
    from bib2graph.corpus import _duplicates

    works = pd.DataFrame({"work_id": ["W1", "REC:A", "REC:B", "W2", "W3"],
                          "doi": ["10.1/a", None, "10.1/b", None, "10.1/c"],
                          "pmid": ["5", "5", "5", "6", "6"]})
    origins = pd.DataFrame({"work_id": works["work_id"], "origin": ["seed", "chain", "chain", "chain", "seed"],
                            "round": [0, 1, 1, 1, 0]})
    assert _duplicates(works, origins) == {"REC:A": "W1", "W2": "W3"}


def test_ris_records_give_the_pmid_ovid_medline_and_pmid_accessions_write(tmp_path):
    from bib2graph.skips import Skips
    from bib2graph.sources.exports.ris import read_ris

    path = tmp_path / "ovid.ris"
    path.write_text(
        "TY  - JOUR\nID  - 31234567\nT1  - An Ovid MEDLINE record\nA1  - Smith, J.\nY1  - 2019\n"
        "UR  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=medl&NEWS=N&AN=31234567\nER  - \n\n"
        "TY  - JOUR\nAN  - PMID: 30000001\nT1  - An accession written as a PMID\nY1  - 2018\nER  - \n\n"
        "TY  - JOUR\nID  - 31234568\nT1  - A plain reference-manager record\nY1  - 2019\nER  - \n\n"
        # EndNote's export of PubMed records (IEBH/Reflib's blue-light.ris): the PMID in AN, "DP  - NLM"
        "TY  - JOUR\nAN  - 29657938\nC2  - PMC5887696\nDO  - 10.4103/abr.abr_99_17\nDP  - NLM\n"
        "TI  - An EndNote record from PubMed\nPY  - 2018\nER  - \n\n"
        "TY  - JOUR\nAN  - 29657939\nC2  - PMC5887697\nTI  - The same without a provider\nPY  - 2018\nER  - \n\n"
        # Ovid MEDLINE without ID or AN (CiteSource's medline_84.ris): the PMID only in the link
        "TY  - JOUR\nT1  - An Ovid MEDLINE record\nY1  - 2024\n"
        "L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=medp&NEWS=N&AN=39012781\nER  - \n\n"
        "TY  - JOUR\nT1  - An Ovid PsycINFO record\nY1  - 2024\n"
        "L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=psyc&NEWS=N&AN=2024-12345-001\nER  - \n\n"
        # Web of Science's RIS: a label in ID, the UT in AN
        "TY  - JOUR\nAN  - WOS:000471694800003\nID  - 84\nTI  - A Web of Science record\nPY  - 2019\nER  - \n",
        encoding="utf-8")
    records = list(read_ris(path, "ovid.ris", Skips()))
    assert [r.ids.get("pmid") for r in records] == ["31234567", "30000001", None, "29657938", None, "39012781",
                                                    None, None]
    assert [r.ids.get("pmcid") for r in records] == [None] * 3 + ["PMC5887696"] + [None] * 4
    assert [r.ids.get("wos") for r in records] == [None] * 7 + ["WOS:000471694800003"]
    assert records[-1].ids["ris"] == "84"


@pytest.mark.parametrize("written", [
    "10.1037/a0018", "https://doi.org/10.1037/A0018", "http://dx.doi.org/10.1037/a0018", "https://www.doi.org/10.1037/a0018",
    "doi.org/10.1037/a0018", "dx.doi.org/10.1037/a0018", "doi:10.1037/a0018", "DOI: 10.1037/a0018", "DOI 10.1037/a0018",
    "https://doi.org/10.1037%2Fa0018", "10.1037%2Fa0018", " 10.1037/a0018 ", "10.1037/a0018<br />",
    "https://doi.org/10.1037/a0018</a>", "10.1037/A0018 <BR/>"])
def test_every_common_form_of_a_doi_is_the_doi(written):
    """`seed.dois` takes "DOIs, any common form": www.doi.org and scheme-less resolver URLs, a label
    without colon, percent-escaped slashes were unresolved without a word."""
    from bib2graph.ids import normalize_doi

    assert normalize_doi(written) == "10.1037/a0018"


def test_a_resolver_url_is_decoded_as_a_url_and_a_bare_doi_keeps_its_percent_signs():
    from bib2graph.ids import normalize_doi

    sici = "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0"
    assert normalize_doi("https://doi.org/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID-ASI4%3E3.0.CO;2-0") == sici
    assert normalize_doi("10.1002/abc%20def") == "10.1002/abc%20def"
    assert [normalize_doi(v) for v in ("doi", "https://example.org/10.1/x", "", None, "11.1/x")] == [None] * 5
