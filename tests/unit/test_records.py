import json

from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import abstract_from_index, bundle_from_works, normalize_doi, short_id

from ..conftest import DEMO_ZIP


def test_short_id_and_doi_forms():
    assert short_id("https://openalex.org/W2741809807") == "W2741809807"
    assert short_id("w12") == "W12"
    assert short_id("https://openalex.org/keywords/machine-learning") == "keywords/machine-learning"
    assert normalize_doi("https://doi.org/10.1371/JOURNAL.pone.0249102") == "10.1371/journal.pone.0249102"
    assert normalize_doi("doi:10.1/x") == "10.1/x"
    assert normalize_doi("not a doi") is None


def test_abstract_is_rebuilt_in_position_order():
    assert abstract_from_index({"world": [1], "hello": [0], "again": [2]}) == "hello world again"
    assert abstract_from_index(None) is None


def test_2023_schema_real_works_keep_author_order():
    works = list(read_work_objects(DEMO_ZIP))
    bundle = bundle_from_works(works)
    assert len(bundle.works) == 271
    first = works[0]
    wid = short_id(first["id"])
    rows = bundle.authorships[bundle.authorships.work_id == wid].sort_values("position")
    assert list(rows.author_id) == [short_id(a["author"]["id"]) for a in first["authorships"]]
    assert set(bundle.terms.field) == {"concepts"}  # 2023 records carry concepts only
    internal = bundle.references.referenced_id.isin(set(bundle.works.work_id)).sum()
    assert internal == 413  # within-set citation links stated by the data's README


def test_current_schema_real_api_response(shared_data):
    path = shared_data / "openalex-api" / "extracted" / "A5015201707.interaction02.json"
    body = json.loads(path.read_text(encoding="utf-8"))
    results = body["results"]
    bundle = bundle_from_works(results)
    assert len(bundle.works) == len({r["id"] for r in results})
    with_source = [r for r in results if (r.get("primary_location") or {}).get("source")]
    if with_source:
        wid = short_id(with_source[0]["id"])
        venue = bundle.works.set_index("work_id").loc[wid, "venue"]
        assert venue == with_source[0]["primary_location"]["source"]["display_name"]
    fields = set(bundle.terms.field)
    assert fields & {"keywords", "topics"}


def test_a_work_seen_twice_keeps_the_newer_record():
    old = {"id": "W1", "title": "old", "updated_date": "2020-01-01"}
    new = {"id": "W1", "title": "new", "updated_date": "2024-01-01"}
    assert bundle_from_works([new, old]).works.title.tolist() == ["new"]
    assert bundle_from_works([old, new]).works.title.tolist() == ["new"]
