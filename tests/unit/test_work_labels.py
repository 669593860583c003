"""How works are named on maps: "First author (year) title", shortened deterministically, from what is known."""

from __future__ import annotations

import pandas as pd
import pytest

from bib2graph.cited import cited_table, cited_works, look_up
from bib2graph.networks.work_labels import MAX_CHARS, shorten, surname, work_label
from bib2graph.tables import CITED, conform

from ..conftest import DEMO_LABELS, included_ids

LONG = "Retroactive interference of object-in-context long-term memory: role of dorsal hippocampus and medial prefrontal cortex"


@pytest.mark.parametrize("name,expected", [
    ("María Martínez", "Martínez"), ("Smith, John", "Smith"), ("Martin Luther King Jr.", "King"),
    ("Henry Ford III", "Ford"), ("Plato", "Plato"), ("  John   Smith ", "Smith"), (None, ""), ("", ""),
])
def test_surname_is_the_family_name(name, expected):
    assert surname(name) == expected


def test_a_full_label_has_author_year_and_title():
    assert work_label("W1", "John Smith", 2019, "A short title", "Nature") == "Smith (2019) A short title"


@pytest.mark.parametrize("parts,expected", [
    (dict(first_author="John Smith", year=2019, title=None, venue="Nature"), "Smith (2019) Nature"),
    (dict(first_author=None, year=2019, title="Only a title"), "(2019) Only a title"),
    (dict(first_author="John Smith", year=None, title="A title"), "Smith A title"),
    (dict(first_author="John Smith", year=pd.NA, title=None, venue=None), "Smith"),
    (dict(first_author=None, year=None, title="  spaced\n title "), "spaced title"),
    (dict(first_author=float("nan"), year=None, title=None, venue=None), "W1"),
    (dict(), "W1"),
])
def test_missing_parts_are_left_out_and_nothing_known_gives_the_id(parts, expected):
    assert work_label("W1", **parts) == expected


@pytest.mark.parametrize("title,expected", [
    ("Network c-<i>fos</i> mapping", "Network c-fos mapping"),                     # OpenAlex's HTML
    ("CO<sub>2</sub> &amp; H<sub>2</sub>O", "CO2 & H2O"),
    ('<jats:title>A <jats:italic>mouse</jats:italic> model</jats:title>', "A mouse model"),  # Crossref's JATS
    ("<span class='x'>Rats</span><br/>and mice", "Ratsand mice"),
    ("p < 0.05 in <5% of rats", "p < 0.05 in <5% of rats"),                       # a < that opens no tag
    ("<i></i>", "W1"),                                                             # nothing left: the ID
])
def test_labels_leave_out_the_markup_titles_carry(title, expected):
    assert work_label("W1", None, None, title) == expected


def test_long_titles_are_cut_at_a_word_with_an_ellipsis_the_same_way_every_time():
    label = work_label("W1", "María Martínez", 2014, LONG)
    assert len(label) <= MAX_CHARS and label.endswith("…")
    assert label.startswith("Martínez (2014) Retroactive interference")
    assert LONG.startswith(label[len("Martínez (2014) "):-1])            # whole words of the title, in order
    assert label[-2] != " " and work_label("W1", "María Martínez", 2014, LONG) == label
    assert shorten("abcdefghijklmnop", 8) == "abcdefg…"                   # one long word is cut mid-word
    assert shorten("short", 8) == "short"


def test_cited_works_come_from_the_pool_or_the_lookup_capped_by_citations(demo_universe):
    seeds = included_ids(DEMO_LABELS)[:6]
    pool = demo_universe.bundle.subset(seeds)
    refs = pool.references
    counts = refs.groupby("referenced_id").size()
    held = set(demo_universe.ids) - set(seeds)
    asked: list[list[str]] = []

    def lookup(ids):
        asked.append(list(ids))
        return look_up(demo_universe, ids)

    table, report = cited_works(pool.works, pool.authorships, refs, 1, None, lookup)
    pd.testing.assert_frame_equal(conform(table, CITED), table)
    outside = [w for w in counts.index if w not in set(seeds)]
    assert sorted(asked[0]) == sorted(outside)
    assert asked[0] == sorted(outside, key=lambda w: (-counts[w], w))     # most cited first, ties by ID
    found = table[~table["in_pool"]]
    assert set(found["work_id"]) == set(outside) & held and report["found"] == len(found) > 0
    works = demo_universe.bundle.works.set_index("work_id")
    assert (found["title"].to_numpy() == works.loc[found["work_id"], "title"].to_numpy()).all()
    assert (found["citing"].to_numpy() == counts[found["work_id"]].to_numpy()).all()

    capped, report = cited_works(pool.works, pool.authorships, refs, 1, 3, lookup)
    assert asked[-1] == asked[0][:3] and report["beyond_max_works"] == len(outside) - 3
    offline, report = cited_works(pool.works, pool.authorships, refs, 1, None, None)
    assert len(asked) == 2 and not (~offline["in_pool"]).any() and report["fetch"] is False


@pytest.mark.long
def test_a_cited_work_openalex_merged_is_named_by_the_id_the_pool_cites(tmp_path, demo_universe):
    from bib2graph.sources.openalex_source import OpenAlexSource

    from ..openalex_server import OpenAlexTestServer, load_works
    from ..conftest import DEMO_ZIP

    seeds = included_ids(DEMO_LABELS)[:2]
    pool = demo_universe.bundle.subset(seeds)
    target = sorted(demo_universe.ids - set(seeds))[0]
    refs = pd.concat([pool.references, pd.DataFrame({"work_id": seeds, "referenced_id": ["W11", "W11"]})])
    with OpenAlexTestServer(load_works([DEMO_ZIP]), merged={"W11": target}) as srv:
        source = OpenAlexSource.open({"base_url": srv.url}, root=tmp_path)
        try:
            table, report = cited_works(pool.works, pool.authorships, refs, 2, None, lambda ids: look_up(source, ids))
        finally:
            source.close()
    row = table.set_index("work_id").loc["W11"]
    works = demo_universe.bundle.works.set_index("work_id")
    assert row["title"] == works.loc[target, "title"] and row["citing"] == 2 and not row["in_pool"]
    assert report["asked"] == report["outside_pool"] and srv.requests("singleton")   # the 301 was followed


@pytest.mark.long
def test_cited_works_nobody_fetched_are_named_by_what_the_citing_records_say():
    """A real Web of Science export, offline: the co-cited references outside the universe take their
    first author, year and source from the parsed CR lines, and their labels say so."""
    from pathlib import Path

    from bib2graph.cited import citing_counts
    from bib2graph.networks import build
    from bib2graph.sources.ingest import ingest

    path = Path(__file__).resolve().parents[3] / "shared/data/wos/scientopy-iot-gateway-wos.txt"
    found = ingest([path], [path.name])
    refs = found.bundle.references
    table, report = cited_table(found.bundle.works, found.bundle.authorships, citing_counts(refs, 2), None, None,
                                found.cited)
    parsed = found.cited.set_index("work_id")
    described = table[~table["in_pool"]]
    assert report["from_references"] == len(described) > 0 and report["fetch"] is False
    assert set(described["work_id"]) <= set(parsed.index)
    for row in described.itertuples(index=False):
        said = parsed.loc[row.work_id]
        assert (row.first_author, row.venue) == (said["first_author"], said["venue"])
        assert (pd.isna(row.year) and pd.isna(said["year"])) or row.year == said["year"]
    net = build("cocitation", found.bundle, {"min_occurrences": 2}, {"stability_runs": 1}, cited=table)
    labels = net.nodes.set_index("node_id")["label"]
    outside = [w for w in described["work_id"] if w in labels.index]
    assert outside and all(labels[w] != w for w in outside)     # no bare REF: IDs among them
    row = described.set_index("work_id").loc[outside[0]]
    assert labels[outside[0]] == work_label(outside[0], row["first_author"], row["year"], row["title"], row["venue"])
