import json

import pandas as pd
import pyarrow as pa
import pytest

from bib2graph.errors import DataError
from bib2graph.skips import Skips
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import abstract_from_index, bundle_from_works, normalize_doi, short_id
from bib2graph.tables import BUNDLE_TABLES

from ..conftest import DEMO_ZIP


def test_short_id_and_doi_forms():
    assert short_id("https://openalex.org/W2741809807") == "W2741809807"
    assert short_id("w12") == "W12"
    assert short_id("https://openalex.org/keywords/machine-learning") == "keywords/machine-learning"
    for url in ("https://api.openalex.org/works/W2741809807", "https://openalex.org/works/w2741809807",
                "api.openalex.org/W2741809807"):                        # the API's and the site's URLs
        assert short_id(url) == "W2741809807", url
    assert short_id("https://api.openalex.org/authors/A5") == "A5"
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
    assert set(bundle.terms.field) == {"concepts", "mesh"}  # 2023 records carry concepts and MeSH only
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


def one(work) -> dict:
    """The works row of one Work object, through the tables' schemas."""
    return bundle_from_works([{"id": "W1", **work}]).works.iloc[0].to_dict()


@pytest.mark.parametrize("value,year", [
    (2001, 2001), ("2001", 2001), (" 2001 ", 2001), (2001.0, 2001), (2001.5, None), ("abc", None), (True, None),
    (None, None), ([2001], None), ({"y": 2001}, None), (10**30, None), ("9" * 5000, None), (float("nan"), None),
])
def test_years_of_any_json_type(value, year):
    got = one({"publication_year": value})["year"]
    assert (pd.isna(got) and year is None) or got == year


@pytest.mark.parametrize("value,count", [(5, 5), ("12", 12), (-3, None), ("-3", None), (False, None), ("x", None)])
def test_cited_by_counts_are_non_negative_or_missing(value, count):
    got = one({"cited_by_count": value})["cited_by_count"]
    assert (pd.isna(got) and count is None) or got == count


def test_odd_types_never_break_the_tables():
    odd = {
        "ids": "W9", "doi": 10.1, "title": ["not", "text"], "display_name": 5, "type": {}, "language": True,
        "publication_date": 20010101, "updated_date": None, "is_retracted": "false",
        "authorships": [{"author": "Jane", "institutions": "MIT"}, "Joe", 3,
                        {"author": {"id": 5, "display_name": ["x"]}, "raw_author_name": "Raw",
                         "institutions": [{"id": "I1"}, {"id": "I1"}, "I2", None, {"id": ["I3"]}]}],
        "referenced_works": ["W2", 3, None, {"id": "W4"}, ["W5"], "https://openalex.org/W2", ""],
        "keywords": "machine learning", "topics": [None, 1, {"id": 7, "display_name": None}],
        "concepts": [{"id": "C1", "score": "0.5"}, {"id": "C1", "score": True}, {"display_name": "Dup"},
                     {"display_name": "dup", "score": 1e400}, "C2", {"id": "C3", "score": [1]}],
        "primary_location": {"source": "S1"}, "host_venue": {"id": 5, "display_name": "Venue"},
        "abstract_inverted_index": {"late": [10**12], "first": [0, "1", 2.0, True, -1], "odd": 3, "none": None},
    }
    bundle = bundle_from_works([{"id": "W1", **odd}])
    row = bundle.works.iloc[0]
    assert all(pd.isna(row[c]) for c in ("title", "doi", "type", "language", "publication_date", "venue_id"))
    assert not row.is_retracted
    assert row.venue == "Venue" and row.abstract == "first late"
    assert list(bundle.references.referenced_id) == ["W2"] and row.n_references == 1
    authors = bundle.authorships.to_dict("records")
    assert [a["position"] for a in authors] == [0, 1] and authors[1]["author_name"] == "Raw"
    assert pd.isna(authors[0]["author_name"]) and pd.isna(authors[1]["author_id"])
    assert list(bundle.affiliations.institution_id) == ["I1"]
    terms = bundle.terms.to_dict("records")
    assert [(t["field"], t["term_id"]) for t in terms] == [
        ("concepts", "C1"), ("concepts", "C2"), ("concepts", "C3"), ("concepts", "concepts/dup")]
    assert terms[0]["score"] == 0.5 and all(pd.isna(t["score"]) for t in terms[1:])


def test_absurd_abstract_positions_cost_nothing():
    index = {f"w{i}": [10**12 + i] for i in range(3)} | {"start": [0]}
    assert abstract_from_index(index) == "start w0 w1 w2"
    assert abstract_from_index({"a": "0"}) is None and abstract_from_index([["a", 0]]) is None


def test_api_records_without_an_id_are_skipped_as_the_apis():
    skips = Skips()
    bundle = bundle_from_works([{"id": "W1"}, {"title": "no id"}, "W3", {"id": 4}, {"ids": {"openalex": "W5"}}],
                               skips)
    assert list(bundle.works.work_id) == ["W1", "W5"]
    assert [(s.file, s.where) for s in skips.items] == [("OpenAlex API", "record 2"), ("OpenAlex API", "record 3"),
                                                        ("OpenAlex API", "record 4")]
    with pytest.raises(DataError) as caught:
        bundle_from_works([{"id": "W1"}, {"title": "no id"}], Skips(strict=True))
    assert caught.value.code == "RECORD_INVALID" and caught.value.details["where"] == "record 2"


def test_api_surrogates_are_repaired_and_reported():
    skips = Skips()
    works = [{"id": "W1", "title": "a\udc80", "concepts": [{"id": "C\ud800"}, {"id": "C\ud801"}]}]
    bundle = bundle_from_works(works, skips)
    assert bundle.works.title.tolist() == ["a\ufffd"] and bundle.terms.term_id.tolist() == ["C\ufffd"]
    assert skips.as_rows() == [{"file": "OpenAlex API", "where": "work W1",
                                "reason": "3 lone UTF-16 surrogate(s) replaced by U+FFFD"}]
    for name in BUNDLE_TABLES:
        pa.Table.from_pandas(getattr(bundle, name))  # what the Parquet writer needs


def test_a_work_listing_itself_loses_that_reference_whichever_way_it_is_read(tmp_path):
    """Self-references count in no network: the OpenAlex reader and the files ingest drop them alike."""
    from bib2graph.sources.ingest import ingest

    works = list(read_work_objects(DEMO_ZIP))[:30]
    own = [w for w in works if w.get("referenced_works")][:3]
    for work in own:
        work["referenced_works"] = list(work["referenced_works"]) + [work["id"]]
    expected = {short_id(w["id"]): {short_id(r) for r in w["referenced_works"]} - {short_id(w["id"])} for w in own}
    path = tmp_path / "works.json"
    path.write_text(json.dumps(works), encoding="utf-8")
    for bundle in (bundle_from_works(works), ingest([path], ["works.json"]).bundle):
        refs = bundle.references
        assert not (refs["work_id"] == refs["referenced_id"]).any()
        for wid, cited in expected.items():
            assert set(refs.loc[refs["work_id"] == wid, "referenced_id"]) == cited
            assert int(bundle.works.set_index("work_id").loc[wid, "n_references"]) == len(cited)
