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

import hashlib
import zipfile
import json

import pytest

from bib2graph.networks.builders import build_coupling
from bib2graph.sources.exports.names import split_name
from bib2graph.sources.ingest import ingest
from bib2graph.sources.records import bundle_from_works
from bib2graph.ids import normalize_doi, short_id
from bib2graph.tables import Bundle

STOP = {"OF", "THE", "AND", "IN", "FOR", "ON", "&", "A", "AN"}


def _works(shared_data):
    works = {}
    for path in sorted(shared_data.glob("synergy/*/works_*.zip")):
        with zipfile.ZipFile(path) as archive:
            for name in sorted(archive.namelist()):
                for work in json.loads(archive.read(name)):
                    works[short_id(work["id"])] = work
    return works


def _pick(key: str, n: int) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % n


def _venue(work) -> str | None:
    location = work.get("primary_location") or {}
    source = (location.get("source") or {}) if isinstance(location, dict) else {}
    return source.get("display_name") or (work.get("host_venue") or {}).get("display_name")


def _abbrev(venue: str) -> str:
    """A WoS J9-like abbreviation: non-stop words cut to four letters, upper case."""
    return " ".join(w[:4] for w in venue.upper().replace(",", " ").split() if w not in STOP)[:20]


def _author(work, style: int) -> str | None:
    authors = work.get("authorships") or []
    if not authors or not (authors[0].get("author") or {}).get("display_name"):
        return None
    surname, given = split_name(authors[0]["author"]["display_name"])
    initials = "".join(p[0] for p in given.replace("-", " ").split() if p[:1].isalpha())
    if style == 0:
        return f"{surname} {initials}"
    if style == 1:
        return f"{surname.upper()} {initials[:1]}"
    return f"{surname} {'. '.join(initials)}."   # "Burt R. S.", as WoS writes some


def _cr_line(cited, citing_id: str) -> str | None:
    """One WoS CR line for `cited`, varied by the citing work so that one cited work is written in
    several forms across the export."""
    year = cited.get("publication_year")
    style = _pick(citing_id + cited["id"], 6)
    author = _author(cited, style % 3)
    if not author or not year:
        return None
    biblio = cited.get("biblio") or {}
    venue = _venue(cited) or ""
    parts = [author, str(year)]
    if venue:
        parts.append(_abbrev(venue) if style != 5 else venue.upper())
    if biblio.get("volume"):
        parts.append(f"V{biblio['volume']}")
    if biblio.get("first_page"):
        parts.append(f"P{biblio['first_page']}")
    doi = normalize_doi(cited.get("doi"))
    if doi and style not in (1, 4):      # a third of the lines carry no DOI, as older WoS references
        parts.append(f"DOI {doi.upper() if style == 3 else doi}")
    return ", ".join(parts)


def _wos_record(work, works) -> tuple[list[str], set[str]]:
    """The lines of one WoS record and the cited works it holds a CR line for."""
    wid = short_id(work["id"])
    lines = ["PT J"]
    names = [(a.get("author") or {}).get("display_name") for a in work.get("authorships") or []]
    names = [n for n in names if n]
    for tag, form in (("AU", lambda s, g: f"{s}, {''.join(p[0] for p in g.split())}"), ("AF", lambda s, g: f"{s}, {g}")):
        for i, name in enumerate(names):
            lines.append(f"{tag if i == 0 else '  '} {form(*split_name(name))}")
    lines.append(f"TI {work.get('title') or work.get('display_name') or 'Untitled'}")
    if _venue(work):
        lines.append(f"SO {_venue(work).upper()}")
    cited_lines, cited = [], set()
    for ref in sorted(short_id(r) for r in work.get("referenced_works") or []):
        if ref in works:
            line = _cr_line(works[ref], wid)
            if line:
                cited_lines.append(line)
                cited.add(ref)
    for i, line in enumerate(cited_lines):
        lines.append(f"{'CR' if i == 0 else '  '} {line}")
    if work.get("publication_year"):
        lines.append(f"PY {work['publication_year']}")
    if normalize_doi(work.get("doi")):
        lines.append(f"DI {normalize_doi(work['doi'])}")
    lines.append(f"UT WOS:{int(wid[1:]):015d}")
    lines.append("ER")
    return lines, cited


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
    works = _works(shared_data)
    by_doi = {}   # OpenAlex holds a few works twice under one DOI, which a WoS export would not
    for wid in sorted(works):
        by_doi.setdefault(normalize_doi(works[wid].get("doi")), works[wid])
    review = [w for doi, w in by_doi.items() if doi]
    lines, kept = ["FN Clarivate Analytics Web of Science", "VR 1.0"], {}
    for work in sorted(review, key=lambda w: short_id(w["id"])):
        record, cited = _wos_record(work, works)
        lines += record
        kept[short_id(work["id"])] = cited
    lines.append("EF")
    path = tmp_path_factory.mktemp("pair") / "savedrecs.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
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
