"""Merging the records of several export files into works, and resolving their cited references."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from bib2graph import report
from bib2graph.sources.ingest import ingest


def _wos(path: Path, records: list[dict[str, list[str] | str]]) -> Path:
    lines = ["FN Clarivate Analytics Web of Science", "VR 1.0"]
    for record in records:
        lines.append("PT J")
        for tag, value in record.items():
            values = value if isinstance(value, list) else [value]
            lines += [f"{tag if i == 0 else '  '} {v}" for i, v in enumerate(values)]
        lines.append("ER")
        lines.append("")
    lines.append("EF")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _scopus(path: Path, rows: list[dict[str, str]]) -> Path:
    header = ["Authors", "Author full names", "Title", "Year", "Source title", "Volume", "Page start", "DOI",
              "Abstract", "Author Keywords", "References", "Document Type", "EID"]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in header})
    return path


A = {"AU": ["Smith, J", "Lee, K"], "AF": ["Smith, John", "Lee, Kim"], "TI": "Networks of citing papers in review work",
     "SO": "JOURNAL OF TESTS", "J9": "J TESTS", "PY": "2010", "VL": "12", "BP": "100", "DI": "10.1000/a",
     "DE": "citation networks; reviews",
     "CR": ["Garfield E, 1955, SCIENCE, V122, P108, DOI 10.1126/science.122.3159.108",
            "Price DJD, 1965, SCIENCE, V149, P510"], "UT": "WOS:000000000000001"}
B = {"AU": "Zhang, ZW", "AF": "Zhang Zhi-Wei", "TI": "Another paper on citing", "SO": "JOURNAL OF TESTS",
     "PY": "2011", "DE": "citation networks",
     "CR": ["GARFIELD E, 1955, SCIENCE, V122, P108", "Price D. J. D., 1965, SCIENCE, V149, P510",
            "Smith J, 2010, J TESTS, V12, P100"], "UT": "WOS:000000000000002"}


def test_one_work_from_two_databases_takes_each_field_from_the_better_source(tmp_path):
    wos = _wos(tmp_path / "savedrecs.txt", [A, B])
    scopus = _scopus(tmp_path / "scopus.csv", [{
        "Authors": "Smith J.; Lee K.", "Author full names": "Smith, John (1); Lee, Kim (2)",
        "Title": "Networks of citing papers in review work", "Year": "2010", "Source title": "Journal of Tests",
        "DOI": "10.1000/A", "Abstract": "What Scopus says.", "Author Keywords": "bibliometrics",
        "Document Type": "Article", "EID": "2-s2.0-1"}])
    found = ingest([wos, scopus], ["savedrecs.txt", "scopus.csv"])
    works = found.bundle.works.set_index("work_id")
    assert list(works.index) == ["WOS:000000000000001", "WOS:000000000000002"]
    assert works.loc["WOS:000000000000001", "abstract"] == "What Scopus says."    # WoS gave none
    assert works.loc["WOS:000000000000001", "venue"] == "JOURNAL OF TESTS"        # WoS ranks first
    origins = found.origins.set_index(["work_id", "file"])
    assert "abstract" in origins.loc[("WOS:000000000000001", "scopus.csv"), "fields"].split(",")
    assert not origins.loc[("WOS:000000000000001", "scopus.csv"), "primary"]
    terms = found.bundle.terms[found.bundle.terms["work_id"] == "WOS:000000000000001"]
    assert {"citation networks", "reviews", "bibliometrics"} <= set(terms["term_id"])   # the union
    assert found.counts["files"] == [{"file": "savedrecs.txt", "records": 2, "duplicates": 0},
                                     {"file": "scopus.csv", "records": 1, "duplicates": 1}]


def test_references_written_two_ways_are_one_cited_work_and_corpus_works_are_matched(tmp_path):
    found = ingest([_wos(tmp_path / "savedrecs.txt", [A, B])], ["savedrecs.txt"])
    refs = found.bundle.references
    a, b = (set(refs.loc[refs["work_id"] == w, "referenced_id"]) for w in ("WOS:000000000000001",
                                                                          "WOS:000000000000002"))
    assert "WOS:000000000000001" in b                       # "Smith J, 2010, J TESTS, V12, P100" is work A
    shared = a & b
    assert len(shared) == 2 and all(r.startswith("REF:") for r in shared)   # Garfield with/without DOI; Price
    cited = found.cited.set_index("work_id").loc[sorted(shared)]
    assert set(cited["year"]) == {1955, 1965}
    assert found.counts["references"]["total"] == 5


def test_two_records_of_one_database_are_never_merged_by_title(tmp_path):
    twin = {**A, "DI": "10.1000/other", "UT": "WOS:000000000000003"}
    twin_without_doi = {k: v for k, v in A.items() if k != "DI"} | {"UT": "WOS:000000000000004"}
    found = ingest([_wos(tmp_path / "savedrecs.txt", [A, twin, twin_without_doi])], ["savedrecs.txt"])
    assert len(found.bundle.works) == 3


def test_a_record_without_doi_joins_the_work_with_its_title_year_and_first_author(tmp_path):
    wos = _wos(tmp_path / "savedrecs.txt", [A])
    scopus = _scopus(tmp_path / "scopus.csv", [{"Authors": "Smith J.", "Title": "Networks of Citing Papers in "
                                                "Review Work.", "Year": "2010", "EID": "2-s2.0-9"}])
    found = ingest([wos, scopus], ["savedrecs.txt", "scopus.csv"])
    assert list(found.bundle.works["work_id"]) == ["WOS:000000000000001"]


def test_markup_in_a_title_does_not_keep_its_work_apart(tmp_path):
    """Scopus keeps "CO<sub>2</sub>" (and "<inf>", OpenAlex "<i>") where Web of Science writes "CO2": a
    record without a DOI still joins its work by title, year and first author."""
    wos = _wos(tmp_path / "savedrecs.txt", [{**A, "TI": "Soil CO2 fluxes in review work"}])
    scopus = _scopus(tmp_path / "scopus.csv", [{"Authors": "Smith J.", "Title": "Soil CO<sub>2</sub> fluxes "
                                                "in <i>review</i> work", "Year": "2010", "EID": "2-s2.0-9"}])
    found = ingest([wos, scopus], ["savedrecs.txt", "scopus.csv"])
    assert list(found.bundle.works["work_id"]) == ["WOS:000000000000001"]


def test_a_surname_first_full_name_without_comma_keeps_its_surname(tmp_path):
    found = ingest([_wos(tmp_path / "savedrecs.txt", [B])], ["savedrecs.txt"])
    row = found.bundle.authorships.iloc[0]
    assert (row["author_name"], row["author_id"]) == ("Zhang, Zhi-Wei", "name:ZHANG-Z")


def test_the_same_files_give_the_same_tables(tmp_path):
    paths = [_wos(tmp_path / "savedrecs.txt", [A, B])]
    one, two = ingest(paths, ["x"]), ingest(paths, ["x"])
    for name in ("works", "authorships", "references", "terms"):
        pd.testing.assert_frame_equal(getattr(one.bundle, name), getattr(two.bundle, name))
    pd.testing.assert_frame_equal(one.cited, two.cited)


def test_a_source_thesaurus_folds_source_names_the_abbreviation_rule_misses(tmp_path):
    from bib2graph.sources.ingest import read_source_folding

    one = {**B, "CR": ["Smith J, 2001, PNAS"], "UT": "WOS:000000000000008"}
    two = {**A, "CR": ["SMITH J, 2001, PROC NATL ACAD SCI USA"], "UT": "WOS:000000000000009", "DI": "10.1/b"}
    paths = [_wos(tmp_path / "savedrecs.txt", [one, two])]

    def cited(found):
        return sorted(found.bundle.references["referenced_id"])

    apart = cited(ingest(paths, ["x"]))
    assert len(set(apart)) == 2
    thesaurus = tmp_path / "sources.txt"
    thesaurus.write_text("label\treplace by\nPNAS\tProceedings of the National Academy of Sciences\n",
                         encoding="utf-8")
    together = cited(ingest(paths, ["x"], fold=read_source_folding(thesaurus)))
    assert len(together) == 2 and len(set(together)) == 1


def test_a_file_whose_reference_lists_look_cut_is_named_in_the_manifest(tmp_path):
    """Scopus CSV exports of 2026 list at most 10 references a record: most records list exactly 10 and none
    more. Lists of every length, as real exports hold, say nothing."""
    def rows(lengths: list[int]) -> list[dict[str, str]]:
        return [{"Authors": "Smith, J.", "Title": f"Paper number {k}", "Year": "2020", "Source title": "J Tests",
                 "DOI": f"10.1000/p{k}", "EID": f"2-s2.0-{k:011d}", "Document Type": "Article",
                 "References": "; ".join(f"Ref{k}x{i}, A., Title {i} (2001) Journal, {i}, pp. {10 + i}-{20 + i}"
                                         for i in range(n))}
                for k, n in enumerate(lengths)]
    cut = _scopus(tmp_path / "cut.csv", rows([10] * 22 + [7, 3, 10, 9]))
    whole = _scopus(tmp_path / "whole.csv", rows(list(range(5, 35))))
    counts = ingest([cut, whole], ["cut.csv", "whole.csv"]).counts
    files = {f["file"]: f for f in counts["files"]}
    assert files["cut.csv"]["references_capped_at"] == 10
    assert "references_capped_at" not in files["whole.csv"]
    warnings = [part for part in report._sources(counts) if "warning" in part]   # the report says which file
    assert len(warnings) == 1 and "cut.csv" in warnings[0] and "exactly 10 cited references" in warnings[0]
    few = _scopus(tmp_path / "few.csv", rows([10] * 5))          # too few records to tell
    assert "references_capped_at" not in ingest([few], ["few.csv"]).counts["files"][0]
