"""The network job reads the corpus without the works' abstracts, and only the tables its kind uses
(issue 24: every job reads only the columns it uses): each network built from that reading equals the one
built from the whole corpus."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bib2graph.networks import KINDS, build
from bib2graph.phases import NETWORK_TABLES, NETWORK_UNREAD
from bib2graph.sources.files import read_work_objects
from bib2graph.sources.records import bundle_from_works
from bib2graph.tables import Bundle

SEP = Path(__file__).resolve().parents[2] / "src/bib2graph/data/synergy/Sep_2021/works_1.zip"
OFF = {"betweenness": {"enabled": False}, "eigenvector": {"enabled": False}}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    bundle_from_works(read_work_objects(SEP)).write(out)
    return out


def test_the_network_reading_leaves_the_abstracts_out(folder):
    whole, read = Bundle.read(folder), Bundle.read(folder, without=NETWORK_UNREAD)
    assert whole.works["abstract"].notna().any()          # there were abstracts to leave out
    assert "abstract" not in read.works.columns
    pd.testing.assert_frame_equal(read.works, whole.works.drop(columns="abstract"))
    for name in ("authorships", "affiliations", "references", "terms"):
        pd.testing.assert_frame_equal(getattr(read, name), getattr(whole, name))


def test_tables_a_kind_does_not_read_stand_empty(folder):
    read = Bundle.read(folder, without=NETWORK_UNREAD, tables=NETWORK_TABLES["cocitation"])
    whole = Bundle.read(folder)
    assert read.terms.empty and read.affiliations.empty and not whole.terms.empty and not whole.affiliations.empty
    assert list(read.terms.columns) == list(whole.terms.columns)
    pd.testing.assert_frame_equal(read.references, whole.references)
    assert set(NETWORK_TABLES) == set(KINDS)


@pytest.mark.long
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_network_is_the_same_without_the_abstracts_and_other_tables(folder, kind):
    def network(corpus):   # as the network job builds it: cluster names are the clusters job's
        return build(kind, corpus, {}, {"stability_runs": 1}, metrics=OFF, name=False)
    whole = network(Bundle.read(folder))
    read = network(Bundle.read(folder, without=NETWORK_UNREAD, tables=NETWORK_TABLES[kind]))
    pd.testing.assert_frame_equal(read.nodes, whole.nodes)
    pd.testing.assert_frame_equal(read.edges, whole.edges)
    assert read.metrics == whole.metrics


@pytest.mark.parametrize("kind,limit", [("coupling", None), ("cocitation", 0), ("keywords", None)])
def test_a_network_written_as_built_has_the_bytes_of_one_checked_again(folder, tmp_path, kind, limit):
    """The network job writes its tables as `build` conformed them (`conformed=True`), without a second
    check and sort: the same bytes as writing them through `conform` again (an evidence table built, and
    one left empty)."""
    net = build(kind, Bundle.read(folder), {}, {"stability_runs": 1}, metrics=OFF, name=False,
                evidence_limit=limit)
    for name, conformed in (("checked", False), ("as_built", True)):
        net.write(tmp_path / name, graph=tmp_path / name / "graph", conformed=conformed)
    files = sorted(p.relative_to(tmp_path / "checked") for p in (tmp_path / "checked").rglob("*") if p.is_file())
    assert len(files) == 4 and (limit != 0 or net.evidence.empty)
    for file in files:
        assert (tmp_path / "as_built" / file).read_bytes() == (tmp_path / "checked" / file).read_bytes(), file
