"""The counts python-wostools and python-bibx assert in their own tests, recomputed on the same WoS records
(tests/data/peers, see NOTICE.md and peer_counts.json for where each number is published)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bib2graph.skips import Skips
from bib2graph.sources.exports.references import (ReferenceResolver, identity_key, parse_reference,
                                                  work_keys)
from bib2graph.sources.exports.wos import read_wos

PEERS = Path(__file__).resolve().parents[1] / "data" / "peers"
FILE = PEERS / "wostools_cached_collection.txt"


def _published(library: str, name: str, records: int) -> int:
    """A count as peer_counts.json cites it from the library's tests."""
    sources = json.loads((PEERS / "peer_counts.json").read_text(encoding="utf-8"))["sources"]
    for source in sources:
        if source["library"].startswith(library):
            for count in source["counts"]:
                if count["name"] == name and len(count.get("records", [None])) == records:
                    return count["value"]
    raise KeyError((library, name, records))


@pytest.fixture(scope="module")
def records():
    skips = Skips()
    found = list(read_wos(FILE, FILE.name, skips))
    assert len(skips) == 0
    return found


def _pairs(records, keep=lambda ref: True) -> set[tuple[str, str]]:
    """(citing record, cited identity) pairs: what wostools calls citation pairs."""
    return {(r.ids["wos"], identity_key(ref)) for r in records for c in r.references
            if (ref := parse_reference(c.raw, "wos")) is not None and keep(ref)}


def test_one_record_gives_the_counts_wostools_and_bibx_publish(records):
    first = [r for r in records if r.ids["wos"].endswith("000401190100002")]
    pairs = _pairs(first)
    assert len(pairs) == _published("python-wostools", "citation_pairs", 1) == 37
    assert len(pairs) == _published("python-bibx", "citation_pairs", 1)
    # wostools iterates the record and every distinct cited work
    assert len(first) + len({cited for _, cited in pairs}) == _published("python-wostools",
                                                                          "articles_and_references", 1)


def test_two_records_differ_from_wostools_only_by_the_reference_without_a_year(records):
    """wostools drops CR lines its pattern cannot read (no year field: '*INTRS, LITH'); bib2graph keeps
    them as unresolved works named by their raw string."""
    assert len(records) == 2
    everything = _pairs(records)
    with_year = _pairs(records, keep=lambda ref: ref.year is not None)
    assert len(with_year) == _published("python-wostools", "citation_pairs", 2) == 68
    assert everything - with_year == {("WOS:000297604200016", "raw:INTRS LITH")}


def test_the_citation_between_the_two_records_resolves_to_the_corpus_record(records):
    """wostools checks that the pair polb.24346 → ma201967a carries the cited record's own data."""
    resolver = ReferenceResolver((r.ids["wos"], work_keys(r.authors[0].name, r.year, r.venue, r.venue_abbrev,
                                                          r.volume, r.first_page, r.doi)) for r in records)
    citing = {r.doi: r for r in records}["10.1002/polb.24346"]
    resolved = {resolver.resolve(parse_reference(c.raw, "wos")) for c in citing.references}
    assert ("WOS:000297604200016", "doi") in resolved
    assert resolved - {("WOS:000297604200016", "doi")} == {(None, None)}
    assert resolver.ambiguous == 0
