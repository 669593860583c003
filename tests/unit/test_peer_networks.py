"""metaknowledge's WoS test file read by our reader, its networks counted by our builders and compared
with the counts metaknowledge's own tests assert (tests/data/peers: NOTICE.md, peer_counts.json).

The definitions differ in who a node is, never in how pairs are counted, so each peer count is
recomputed by our builders on tables whose IDs follow metaknowledge's rule, from the fields our reader
and reference parser extract. metaknowledge's rules (recordCollection.py and citation.py at 0af450c):

* a cited reference is its first author (upper case, dots removed), year and journal exactly as
  written (`Citation.getID`): volume, page and DOI are ignored;
* "[ANONYMOUS]" references are dropped;
* a citing record is a node of the citation network under the same rule (first AU, PY, J9), so a record
  and a reference to it written with the same author, year and journal are one node;
* an author is the AF string exactly as written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from bib2graph.networks.item_networks import build_coauthorship
from bib2graph.networks.work_networks import build_citation, build_cocitation
from bib2graph.skips import Skips
from bib2graph.sources.exports.references import parse_reference
from bib2graph.sources.exports.wos import read_wos
from bib2graph.sources.ingest import ingest
from bib2graph.tables import REFERENCES, WORKS, Bundle, conform

PEERS = Path(__file__).resolve().parents[1] / "data" / "peers"
FILE = PEERS / "metaknowledge_testFile.isi"
ANONYMOUS = "[ANONYMOUS]"


def _source() -> dict:
    sources = json.loads((PEERS / "peer_counts.json").read_text(encoding="utf-8"))["sources"]
    return next(s for s in sources if s["library"].startswith("metaknowledge"))


def _published(name: str) -> int:
    """A count metaknowledge's tests assert, as peer_counts.json cites it."""
    return next(c["value"] for c in _source()["counts"] if c["name"] == name)


@pytest.fixture(scope="module")
def records():
    skips = Skips()
    found = list(read_wos(FILE, FILE.name, skips))
    assert len(skips) == 0
    return found


@pytest.fixture(scope="module")
def bundle():
    return ingest([FILE], [FILE.name], ["wos"]).bundle


def _peer_id(author: str | None, year: int | None, journal: str | None) -> str:
    """metaknowledge's Citation ID: author, year and journal as written, upper case, dots removed."""
    fold = lambda s: " ".join(s.upper().replace(".", "").split()) if s else ""   # noqa: E731
    return f"{fold(author)}|{year or ''}|{fold(journal)}"


def _cited(record, keep_anonymous: bool = False) -> list[str]:
    """The peer IDs of a record's references, in order and with repeats, from our parsed fields."""
    ids = []
    for ref in record.references:
        parsed = parse_reference(ref.raw, "wos")
        assert parsed is not None, ref.raw
        if keep_anonymous or (parsed.first_author or "").upper() != ANONYMOUS:
            ids.append(_peer_id(parsed.first_author, parsed.year, parsed.source))
    return ids


def _head(record) -> str:
    """A record as metaknowledge cites it (Record.createCitation): first AU without commas, PY, J9."""
    return _peer_id(record.authors[0].name.replace(",", ""), record.year, record.venue_abbrev or record.title)


def _bundle(pairs: set[tuple[str, str]], works: set[str]) -> Bundle:
    """Tables holding only `works` (every one a corpus work) and the `(work, referenced)` pairs."""
    refs = pd.DataFrame(sorted(pairs), columns=["work_id", "referenced_id"])
    n = Counter(refs["work_id"])
    table = pd.DataFrame({"work_id": sorted(works)})
    table["n_references"] = [n.get(w, 0) for w in table["work_id"]]
    table["is_retracted"] = False
    empty = Bundle.empty()
    return Bundle(works=conform(table, WORKS), authorships=empty.authorships, affiliations=empty.affiliations,
                  references=conform(refs, REFERENCES), terms=empty.terms)


def test_every_record_is_read_and_the_peer_record_counts_hold(records):
    assert hashlib.sha256(FILE.read_bytes()).hexdigest() == _source()["sha256"]   # the file as vendored
    text = FILE.read_text(encoding="utf-8-sig")
    assert len(records) == len(re.findall(r"^PT ", text, re.M)) == len(re.findall(r"^ER$", text, re.M)) == 32
    parsed = [[parse_reference(c.raw, "wos") for c in r.references] for r in records]
    assert sum(any(p.year == 1970 for p in refs) for refs in parsed) == _published("records_citing_1970")
    assert sum(any((p.first_author or "").upper() == ANONYMOUS for p in refs) for refs in parsed) \
        == _published("records_citing_anonymous")
    assert sum(any("MELLER" in (p.first_author or "").upper() for p in refs) for refs in parsed) \
        == _published("records_citing_meller")
    assert len({r.title for r in records}) == _published("distinct_titles")


def test_cocitation_counts_metaknowledge_publishes(records):
    """Same pairs, other nodes. metaknowledge names a reference by author, year and journal as written;
    we name it by DOI, else author–year–volume–page (docs/networks.md), so the same file gives us more
    nodes (526 at the time of writing: two papers by one author in one year and journal stay apart) and
    metaknowledge also keeps a self-loop when a record cites two references with one ID, which a set of
    references cannot hold. Counted by our builder on the peer's IDs, the numbers are the published ones."""
    cited = {r.ids["wos"]: _cited(r) for r in records}
    pairs = {(w, ref) for w, refs in cited.items() for ref in refs}
    loops = {ref for refs in cited.values() for ref, n in Counter(refs).items() if n > 1}
    net = build_cocitation(_bundle(pairs, set(cited)), {"min_occurrences": 1, "min_weight": 1})
    assert len(net.nodes) == _published("cocitation_nodes")
    assert len(net.source) + len(loops) == _published("cocitation_edges")
    assert len(loops) == 23


def test_cocitation_threshold_one_keeps_every_cited_reference(bundle):
    """With min_occurrences 1 (metaknowledge has no threshold) every distinct cited work is a node."""
    net = build_cocitation(bundle, {"min_occurrences": 1, "min_weight": 1})
    assert len(net.nodes) == bundle.references["referenced_id"].nunique()
    default = build_cocitation(bundle, {"min_occurrences": 2, "min_weight": 1})
    assert len(default.nodes) == int((bundle.references.groupby("referenced_id").size() >= 2).sum())


def test_coauthorship_counts_metaknowledge_publishes(bundle):
    """metaknowledge's authors are AF strings as written; ours are folded surname + first initial, so
    'Flory, F' and 'FLORY, F' are one author for us and two for metaknowledge. The edges agree."""
    params = {"min_occurrences": 1, "min_weight": 1, "counting": "full"}
    ours = build_coauthorship(bundle, params)
    as_written = bundle.authorships.assign(author_id=bundle.authorships["author_name"])
    peer = build_coauthorship(Bundle(bundle.works, as_written, bundle.affiliations, bundle.references,
                                     bundle.terms), params)
    assert len(peer.nodes) == _published("coauthorship_nodes")
    assert len(peer.source) == len(ours.source) == _published("coauthorship_edges")
    names = bundle.authorships["author_name"].drop_duplicates()
    assert len(ours.nodes) == names.str.upper().nunique() == len(peer.nodes) - 1


@pytest.mark.parametrize("keep_anonymous, nodes, edges", [
    (False, "citation_nodes", "citation_edges"),
    (True, "citation_nodes_anonymous_kept", "citation_edges_anonymous_kept")])
def test_citation_counts_metaknowledge_publishes(records, keep_anonymous, nodes, edges):
    """metaknowledge's citation network holds the records *and* everything they cite (record → reference);
    ours holds corpus works only (references outside the corpus are nodes of co-citation and coupling).
    Counted by our builder with every cited reference made a work, on the peer's IDs, the numbers are the
    published ones (our builder ignores self-citations, which metaknowledge would keep; here there are
    none)."""
    arcs = {(_head(r), ref) for r in records if r.references for ref in _cited(r, keep_anonymous)}
    ids = {a for a, _ in arcs} | {b for _, b in arcs} | {_head(r) for r in records if r.references}
    loops = {a for a, b in arcs if a == b}
    net = build_citation(_bundle(arcs, ids), {"min_occurrences": 0, "min_weight": 1})
    assert len(net.nodes) == _published(nodes)
    assert len(net.source) + len(loops) == _published(edges)


def test_citations_between_corpus_records_agree(records, bundle):
    """Where the definitions agree, the arcs between corpus records: metaknowledge matches a reference to a
    record by author, year and journal, we by DOI or author–year–volume–page; both find the same arcs.
    (Two of the 32 records, a JOSA meeting abstract without DOI and the Opt Commun article of the same
    title, year and author, are one work for us: neither is cited, so no arc depends on it.)"""
    heads = {_head(r): r.ids["wos"] for r in records}
    peer = {(r.ids["wos"], heads[ref]) for r in records for ref in _cited(r) if ref in heads}
    ours = build_citation(bundle, {"min_occurrences": 0, "min_weight": 1})
    node = ours.nodes["node_id"].to_numpy()
    assert {(node[i], node[j]) for i, j in zip(ours.source, ours.target)} == peer
    assert len(peer) == 29   # metaknowledge's own code gives 29 arcs between records (docs/networks.md)
