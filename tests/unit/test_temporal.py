"""Slices, cluster alignment, themes and data guards: their definitions on small, hand-checked inputs."""

from __future__ import annotations

import pandas as pd

from bib2graph.tables import Bundle
from bib2graph.temporal import guards, slices, themes


def test_spans_cover_the_range_with_a_shorter_last_slice():
    assert slices.spans(2000, 2009, 4) == [(2000, 2003), (2004, 2007), (2008, 2009)]
    assert slices.spans(2000, 2000, 3) == [(2000, 2000)]
    assert slices.spans(2001, 2000, 3) == []
    years = pd.Series([1999, 2000, 2005, None, 2009])
    assert slices.slice_of(years, slices.spans(2000, 2009, 4)).tolist() == [pd.NA, 0, 1, pd.NA, 2]


def test_yearly_matrix_counts_works_not_rows():
    works = pd.DataFrame({"work_id": ["a", "b", "c", "d"], "year": [2000, 2000, 2002, None]})
    rows = pd.DataFrame({"work_id": ["a", "a", "b", "c", "d"], "item": ["x", "x", "x", "y", "x"]})
    items, r, d = slices.yearly_matrix(rows, works, 2000, 2002)
    assert items == ["x", "y"]
    assert r.tolist() == [[2, 0, 0], [0, 0, 1]]
    assert d.tolist() == [2, 0, 1]
    assert slices.yearly_matrix(rows, works, 2000, 2002, min_total=2)[0] == ["x"]


def test_alignment_names_continuation_split_merge_emergence_and_dissolution():
    before = pd.DataFrame({"node_id": list("abcdefgh"), "cluster": [1, 1, 1, 2, 2, 2, 3, 3]})
    after = pd.DataFrame({"node_id": list("abcdeyzq"), "cluster": [1, 1, 1, 2, 3, 4, 4, 4]})
    links = slices.align(before, after, threshold=0.2)
    assert links[["from_cluster", "to_cluster", "shared"]].values.tolist() == [[1, 1, 3], [2, 2, 1], [2, 3, 1]]
    assert links["jaccard"].tolist() == [1.0, round(1 / 3, 6), round(1 / 3, 6)]
    ev = slices.events(links, [1, 2, 3], [1, 2, 3, 4])
    got = {(s, c): e for s, c, e in ev[["side", "cluster", "event"]].values}
    assert got == {("from", 1): "continues", ("from", 2): "splits", ("from", 3): "dissolves",
                   ("to", 1): "continues", ("to", 2): "splits", ("to", 3): "splits", ("to", 4): "emerges"}
    merged = slices.events(pd.DataFrame({"from_cluster": [1, 2], "to_cluster": [5, 5]}), [1, 2], [5])
    assert set(merged["event"]) == {"merges"}


def test_strategic_diagram_centrality_density_and_quadrants():
    nodes = pd.DataFrame({"node_id": list("abcdef"), "label": list("ABCDEF"), "occurrences": [5, 4, 3, 9, 1, 2],
                          "cluster": [1, 1, 2, 2, 3, 3]})
    edges = pd.DataFrame({"source": ["a", "c", "e", "a", "b"], "target": ["b", "d", "f", "c", "e"],
                          "weight": [4.0, 1.0, 0.5, 2.0, 1.0]})
    table = themes.strategic_diagram(nodes, edges)
    assert table["label"].tolist() == ["A; B", "D; C", "F; E"]
    assert table["centrality"].tolist() == [3.0, 2.0, 1.0]
    assert table["density"].tolist() == [2.0, 0.5, 0.25]
    assert table["quadrant"].tolist() == ["motor", "motor", "emerging or declining"]


def test_flows_use_weighted_inclusion():
    a = pd.DataFrame({"node_id": ["x", "y", "z"], "occurrences": [4, 2, 6], "cluster": [1, 1, 2]})
    b = pd.DataFrame({"node_id": ["x", "z", "w"], "occurrences": [1, 3, 5], "cluster": [7, 7, 8]})
    out = themes.flows(a, b)
    # theme 1 → 7 share x: min(4, 1) / min(6, 4); theme 2 → 7 share z: min(6, 3) / min(6, 4)
    assert out.values.tolist() == [[1, 7, 1, 0.25], [2, 7, 1, 0.75]]


def test_guards_count_each_work_once_under_its_first_failure():
    works = pd.DataFrame({"work_id": ["w1", "w2", "w3", "w4"], "year": [2020, None, 2021, 2022],
                          "publication_date": ["2020-01-01", None, "2021-05-01", "2024-01-01"],
                          "updated_date": ["2023-01-01T00:00:00", "2023-01-01", "2023-01-01", "2023-06-30T10:00:00"]})
    terms = pd.DataFrame({"work_id": ["w2", "w2", "w2", "w3", "w3", "w3", "w1"],
                          "field": ["topics"] * 7, "term_id": ["T14423", "T13154", "T14235"] * 2 + ["T1"],
                          "term": ["t"] * 7, "score": [0.5] * 7})
    empty = Bundle.empty()
    bundle = Bundle(works, empty.authorships, empty.affiliations, empty.references, terms)
    reasons = guards.excluded(bundle)
    assert [None if pd.isna(reasons[w]) else reasons[w] for w in ["w1", "w2", "w3", "w4"]] == \
        [None, "no_year", "topic_triple", "dated_after_update"]
    assert guards.counts(reasons) == {"no_year": 1, "topic_triple": 1, "dated_after_update": 1, "kept": 1}


def test_rpys_counts_the_citations_of_the_works_in_the_range(tmp_path):
    """`time.range` bounds what trends cover: RPYS counted every corpus work's citations, those of works
    published before the range too, while the bursts kept to it."""
    import json

    from bib2graph import phases
    from bib2graph.sources.records import bundle_from_works

    def work(k: int, year: int, cites: list[int]) -> dict:
        return {"id": f"https://openalex.org/W{k}", "title": f"T{k}", "publication_year": year,
                "updated_date": "2024-01-01", "referenced_works": [f"https://openalex.org/W{c}" for c in cites]}

    works = [work(1, 1980, []), work(2, 1985, []), work(3, 1988, [1, 2]),     # 1988: before the range
             work(4, 1995, [1, 3]), work(5, 2000, [2, 3, 4]), work(6, 2001, [1])]
    folder = tmp_path / "corpus"
    folder.mkdir()
    bundle_from_works(works).write(folder)
    time = {"range": {"start": 1990, "end": None}, "networks": [],
            "bursts": {"items": ["references"], "s": 2.0, "gamma": 1.0, "min_duration": 2, "min_works": 3},
            "rpys": {"top": 5}}
    params = json.dumps({"time": time, "terms_field": "auto", "networks": []})
    out = {name: str(tmp_path / f"{name}.parquet") for name in ("bursts", "rpys", "rpys_top")}
    out["manifest"] = str(tmp_path / "manifest.json")
    inputs = {"corpus": [str(folder / p.name) for p in sorted(folder.iterdir())], "known": []}
    counts = phases.run("trends", None, params, inputs, out)
    spectrum = pd.read_parquet(out["rpys"]).set_index("year")["citations"]
    # W4 (1995), W5 (2000) and W6 (2001) cite: 1980 ×2, 1985 ×1, 1988 ×2, 1995 ×1; W3's two (1988) not
    assert counts["rpys"]["citations"] == 6 and counts["years"] == [1990, 2001]
    assert spectrum.get(1980) == 2 and spectrum.get(1985) == 1 and spectrum.get(1988) == 2
