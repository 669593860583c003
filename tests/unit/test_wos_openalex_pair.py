"""The same review as a Web of Science export and as OpenAlex records gives the same coupling network.

There is no real WoS export of works the shared OpenAlex data holds (no DOI in common), so the pair is
built: the OpenAlex works of the five SYNERGY reviews are written out as a WoS plain-text export, each
reference as a WoS `CR` line made from the cited work's own OpenAlex record, in the forms WoS varies
between (DOI present or not, upper-case or mixed-case surnames, initials with or without dots, the
source abbreviated or not). A WoS line can only be written for a cited work whose metadata the data
holds, so both sides count the references to works of the SYNERGY universe: the OpenAlex side keeps
those of its `referenced_works`, the WoS side has no others. The check is what a lab would see:
coupling edges among the works present in both (matched by DOI) agree at ≥ 95% (Jaccard of the edge
sets), and their counts agree too.
"""

from __future__ import annotations

import pytest

from bib2graph.ids import normalize_doi, short_id
from bib2graph.networks.work_networks import build_coupling
from bib2graph.sources.ingest import ingest
from bib2graph.sources.records import bundle_from_works
from bib2graph.tables import Bundle

from ..wos_export import synergy_works, wos_export


def _edges(bundle: Bundle, rename: dict[str, str] | None = None) -> dict[tuple[str, str], float]:
    raw = build_coupling(bundle, {"min_occurrences": 0, "min_weight": 1})
    ids = raw.nodes["node_id"].to_numpy()
    out = {}
    for i, j, c in zip(raw.source, raw.target, raw.count):
        a, b = ids[i], ids[j]
        if rename is not None:
            if a not in rename or b not in rename:
                continue
            a, b = rename[a], rename[b]
        out[tuple(sorted((a, b)))] = float(c)
    return out


@pytest.fixture(scope="module")
def pair(shared_data, tmp_path_factory):
    works = synergy_works(shared_data.glob("synergy/*/works_*.zip"))
    by_doi = {}   # OpenAlex holds a few works twice under one DOI, which a WoS export would not
    for wid in sorted(works):
        by_doi.setdefault(normalize_doi(works[wid].get("doi")), works[wid])
    review = [w for doi, w in by_doi.items() if doi]
    text, kept = wos_export(review, works)
    path = tmp_path_factory.mktemp("pair") / "savedrecs.txt"
    path.write_text(text, encoding="utf-8")
    wos = ingest([path], ["savedrecs.txt"], ["wos"])
    restricted = []
    for work in review:   # OpenAlex's references to the works a WoS line could be written for
        copy = dict(work)
        copy["referenced_works"] = sorted(kept[short_id(work["id"])])
        restricted.append(copy)
    return wos, bundle_from_works(restricted), len(review)


def test_every_record_of_the_built_export_is_read(pair):
    wos, openalex, n = pair
    assert len(wos.bundle.works) == n == len(openalex.works)
    assert wos.counts["references"]["unparsed"] == 0


def test_coupling_from_wos_and_openalex_agree(pair):
    wos, openalex, _ = pair
    by_doi = dict(zip(openalex.works["doi"], openalex.works["work_id"]))
    rename = {w: by_doi[d] for w, d in zip(wos.bundle.works["work_id"], wos.bundle.works["doi"]) if d in by_doi}
    assert len(rename) == len(openalex.works)
    from_wos, from_openalex = _edges(wos.bundle, rename), _edges(openalex)
    assert len(from_openalex) > 1000          # a network worth comparing
    both = from_wos.keys() & from_openalex.keys()
    agreement = len(both) / len(from_wos.keys() | from_openalex.keys())
    print(f"coupling edges: WoS {len(from_wos)}, OpenAlex {len(from_openalex)}, agreement {agreement:.4f}")
    assert agreement >= 0.95, (agreement, len(from_wos), len(from_openalex))
    same_count = sum(from_wos[e] == from_openalex[e] for e in both) / len(both)
    assert same_count >= 0.95, same_count
