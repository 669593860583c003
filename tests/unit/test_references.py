"""Cited references from real WoS and Scopus exports: every one parsed or None, fields as independent regexes
read them, one identity per cited work however it is written, different works kept apart."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from bib2graph.sources.exports.references import (ParsedRef, ReferenceResolver, SourceFolding, author_key,
                                                  identity_key, merge_identities, parse_reference, source_key,
                                                  style_for, work_keys)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
csv.field_size_limit(1 << 30)


def _plaintext_crs(path: Path) -> list[str]:
    """CR lines of a WoS plain-text file: the CR tag's line and its indented continuations."""
    refs, inside = [], False
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if line.startswith("CR "):
            inside = True
        elif not line.startswith("   "):
            inside = False
        if inside:
            refs.append(line[3:].strip())
    return refs


def _column(path: Path, column: str, delimiter: str) -> list[str]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
        rows = csv.DictReader(handle, delimiter=delimiter, quoting=quoting)
        return [ref for row in rows for ref in (row.get(column) or "").split("; ") if ref.strip()]


@pytest.fixture(scope="module")
def wos_refs() -> list[str]:
    return (_plaintext_crs(DATA / "wos" / "wos_plaintext.txt")
            + _column(DATA / "wos" / "scientopy-iot-gateway-wos.txt", "CR", "\t"))


@pytest.fixture(scope="module")
def scopus_refs() -> list[str]:
    return _column(DATA / "scopus" / "bibx-scopus.csv", "References", ",")


def _report(label: str, raws: list[str], parsed: list[ParsedRef | None]) -> dict[str, int]:
    kinds = defaultdict(int)
    for ref in parsed:
        kinds["none" if ref is None else identity_key(ref).split(":")[0]] += 1
    print(f"\n{label}: {len(raws)} references; " + ", ".join(f"{k} {v} ({v / len(raws):.1%})"
                                                         for k, v in sorted(kinds.items())))
    return kinds


def test_every_wos_reference_is_parsed_or_none_and_agrees_with_the_tagged_fields(wos_refs):
    assert len(wos_refs) > 6000
    parsed = [parse_reference(raw, "wos") for raw in wos_refs]
    _report("WoS CR", wos_refs, parsed)
    for raw, ref in zip(wos_refs, parsed):
        fields = [f.strip() for f in raw.split(", ")]
        year = next((int(f) for f in fields[1:2] if re.fullmatch(r"\d{4}", f)), None)
        doi = re.search(r"DOI (?:DOI )?\[?(10\.[^,\s\]]+)", raw)
        volume = re.search(r", V(\d+)(?:,|$)", raw)
        page = re.search(r", P(\d+)(?:,|$)", raw)
        assert ref is not None, raw
        assert ref.year == year, raw
        # a preprint named by its arXiv ID ("ARXIV10041632", the dot dropped) has the DOI arXiv registers
        arxiv = re.search(r"ARXIV(\d{4})(\d{4,5})\b", raw)
        preprint = f"10.48550/arxiv.{arxiv.group(1)}.{arxiv.group(2)}" if arxiv else None
        assert ref.doi == (doi.group(1).rstrip(";").lower() if doi else preprint), raw
        if volume:
            assert ref.volume == volume.group(1), raw
        if page:
            assert ref.page == page.group(1), raw


def test_wos_references_with_author_year_and_source_get_a_key_or_a_doi(wos_refs):
    """What bibliometrix and VOSviewer match on: every CR with author, a year field and a source is more
    than its raw string."""
    shaped = [raw for raw in wos_refs if re.match(r"^[^,\d][^,]*, \d{4}, [^,]*[A-Za-z]", raw)]
    assert len(shaped) / len(wos_refs) > 0.9
    raw_only = [raw for raw in shaped if identity_key(parse_reference(raw, "wos")).startswith("raw:")]
    assert raw_only == []


def test_wos_variants_the_documentation_lists():
    ahuja = parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45, P425, DOI 10.2307/2667105", "wos")
    assert (ahuja.first_author, ahuja.year, ahuja.source, ahuja.volume, ahuja.page, ahuja.doi) == \
        ("Ahuja G", 2000, "ADMIN SCI QUART", "45", "425", "10.2307/2667105")
    assert author_key(parse_reference("[Anonymous], 2001, NATURE, V1, P2", "wos").first_author) == "ANONYMOUS"
    assert author_key(parse_reference("ANONYMOUS, 1998, SCIENCE", "wos").first_author) == "ANONYMOUS"
    corporate = parse_reference("*BRIT STAND I, 1990, BS 5750", "wos")
    assert (corporate.year, corporate.source) == (1990, "BS 5750")
    book = parse_reference("Burt R. S., 1992, STRUCTURAL HOLES SOC", "wos")
    assert (book.first_author, book.year, book.source, book.volume) == ("Burt R. S.", 1992,
                                                                        "STRUCTURAL HOLES SOC", None)
    listed = parse_reference("Yu HY, 2011, NAT METHODS, V8, P478, DOI [10.1038/nmeth.1597, 10.1038/NMETH.1597]",
                             "wos")
    assert listed.doi == "10.1038/nmeth.1597"
    article = parse_reference("Smith J, 2015, PLOS ONE, V10, ARTN e0123456, PII S1234", "wos")
    assert (article.volume, article.page, article.doi) == ("10", "e0123456", None)
    lower = parse_reference("Munoz-Torres MC, 2011, NUCLEIC ACIDS RES, v39, pD658, doi 10.1093/nar/gkq1145", "wos")
    assert (lower.volume, lower.page, lower.doi) == ("39", "D658", "10.1093/nar/gkq1145")
    no_year = parse_reference("LIU Y, WATER RESOURCE UNPUB", "wos")
    assert (no_year.first_author, no_year.year, no_year.source) == ("LIU Y", None, "WATER RESOURCE UNPUB")
    assert parse_reference("   ", "wos") is None


def test_every_scopus_reference_is_parsed_or_none_and_agrees_with_its_layout(scopus_refs):
    assert len(scopus_refs) > 16000
    parsed = [parse_reference(raw, "scopus") for raw in scopus_refs]
    kinds = _report("Scopus References", scopus_refs, parsed)
    assert kinds["none"] < 0.01 * len(scopus_refs)
    for raw, ref in zip(scopus_refs, parsed):
        ending = re.search(r"\((1[5-9]\d\d|20\d\d)\)$", raw)   # a year, not "(1445)", a volume
        numbers = re.search(r"(?:^|, )[^,]*[A-Za-z][^,]*, (\d+)(?:[-–]\d+)?, (?:[A-Za-z]?\d+(?:[-–]\d+)?, )?"
                            r"(?:pp?\. ([A-Za-z]?\d\w*)[^,]*, )?\(\d{4}\)$", raw)
        if ending:
            assert ref is not None and ref.year == int(ending.group(1)), raw
        if numbers and ref is not None:
            assert ref.volume == numbers.group(1), raw
            assert ref.page == numbers.group(2), raw
        first = re.match(r"^([A-Z][\w'\- ]+ (?:[A-Z]\.-?)+), ", raw)
        if first and ref is not None:
            assert ref.first_author == " ".join(first.group(1).split()), raw


def test_scopus_layouts_old_and_new():
    old = parse_reference("Ahuja G., Collaboration networks, structural holes, and innovation: A longitudinal "
                          "study, (2000) Administrative Science Quarterly, 45 (3), pp. 425-455. Cited 1200 times.",
                          "scopus")
    new = parse_reference("Ahuja G., Collaboration networks, structural holes, and innovation: A longitudinal "
                          "study, Administrative Science Quarterly, 45, 3, pp. 425-455, (2000)", "scopus")
    for ref in (old, new):
        assert (ref.first_author, ref.year, ref.source, ref.volume, ref.page) == \
            ("Ahuja G.", 2000, "Administrative Science Quarterly", "45", "425")
        assert ref.title == "Collaboration networks, structural holes, and innovation: A longitudinal study"
    wos = parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45, P425", "wos")
    assert identity_key(old) == identity_key(new) == identity_key(wos)
    with_doi = parse_reference("Ahuja G., Title, Administrative Science Quarterly, 45, 3, pp. 425-455, (2000), "
                               "DOI 10.2307/2667105", "scopus")
    assert with_doi.doi == "10.2307/2667105" and with_doi.year == 2000
    comma_author = parse_reference("Reich, S., (1999) SIAM J Numer Anal, 36, p. 1549", "scopus")
    assert (author_key(comma_author.first_author), comma_author.source, comma_author.volume,
            comma_author.page) == ("REICH S", "SIAM J Numer Anal", "36", "1549")
    assert parse_reference("We use the convention (Equation presented) and (Equation presented)", "scopus") is None


def test_a_scopus_reference_dated_inside_its_source_keeps_its_pages_and_title():
    """Real Scopus references (dse-citan): "et al.." ends the authors, and a proceedings' "(2014)" comes
    before the pages; both are the same work as the reference written the usual way."""
    odd = parse_reference("Anderson P., et al.., An undergraduate degree in data science: Curriculum and a decade of "
                          "implementation experience, SIGCSE 2014-Proceedings of the 45th ACM Technical Symposium on "
                          "Computer Science Education (2014), pp. 145-150", "scopus")
    usual = parse_reference("Anderson P., Bowring J., McCauley R., Pothering G., Starr C., An undergraduate degree in "
                            "data science: Curriculum and a decade of implementation experience, SIGCSE 2014-"
                            "Proceedings of the 45th ACM Technical Symposium on Computer Science Education, pp. "
                            "145-150, (2014)", "scopus")
    for ref in (odd, usual):
        assert (ref.first_author, ref.year, ref.page) == ("Anderson P.", 2014, "145")
        assert ref.title == ("An undergraduate degree in data science: Curriculum and a decade of implementation "
                             "experience")
    assert identity_key(odd) == identity_key(usual)


def test_old_scopus_layout_of_a_real_export_agrees_with_its_fields():
    """litstudy's Scopus CSV writes references "Surname, I., Title (1984) Source, 45 (3), pp. 1-9"."""
    refs = _column(DATA / "scopus" / "litstudy-scopus.csv", "References", ",")
    assert len(refs) > 400
    parsed = [parse_reference(raw, "scopus") for raw in refs]
    _report("Scopus References (old layout)", refs, parsed)
    checked = 0
    for raw, ref in zip(refs, parsed):
        m = re.match(r"^([^,(]+), ((?:[A-Z]\.-?)+), .*?\((1[5-9]\d\d|20\d\d)\) ([^,]+), (\d+)(?: \(\w+\))?, ", raw)
        if m:
            checked += 1
            assert author_key(ref.first_author) == author_key(f"{m.group(1)}, {m.group(2)}"), raw
            assert (ref.year, ref.source, ref.volume) == (int(m.group(3)), m.group(4).rstrip("."), m.group(5)), raw
    assert checked > 100


def test_generic_style_reads_both_shapes():
    assert parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45, P425", "generic").source == "ADMIN SCI QUART"
    assert parse_reference("Reich, S., (1999) SIAM J Numer Anal, 36, p. 1549", "generic").volume == "36"
    new = parse_reference("Van Vleck J., Ferromagnetic resonance, Physica, 17, (1951)", "generic")
    assert (new.first_author, new.title, new.source, new.year) == ("Van Vleck J.", "Ferromagnetic resonance",
                                                                   "Physica", 1951)
    assert parse_reference("Doi T, 2005, J NEUROSCI, V25, P950", "generic").first_author == "Doi T"
    with pytest.raises(ValueError):
        parse_reference("x", "apa")
    assert [style_for(f) for f in ("wos", "wos-tab", "scopus-csv", "scopus-ris", "ris", "bibtex", "lens-csv")] \
        == ["wos", "wos", "scopus", "scopus", "generic", "generic", "lens"]


def test_a_lens_reference_is_the_cited_works_lens_id():
    """Lens writes each reference as the cited work's Lens ID: that ID is its identity, a work of the
    files with that Lens ID is what it resolves to, and nothing else (a key, a DOI) is taken for it."""
    from bib2graph.sources.exports.references import ReferenceResolver, identity_key, names_a_work, work_keys

    ref = parse_reference(" 117-031-178-616-22x ", "lens")
    assert (ref.native, identity_key(ref), names_a_work(ref)) == ("lens:117-031-178-616-22X",) * 2 + (True,)
    assert parse_reference("Smith J, 2000, J APPL PHYS, V5, P10", "lens").first_author == "Smith J"
    resolver = ReferenceResolver([("W1", work_keys("Smith J", 2000, None, None, None, None, "10.1/a",
                                                   native=["lens:117-031-178-616-22X"])),
                                  ("W2", work_keys("Smith J", 2000, None, None, None, None, "10.1/b"))])
    assert resolver.resolve(ref) == ("W1", "id")
    assert resolver.resolve(parse_reference("000-000-000-000-000", "lens")) == (None, None)


@pytest.mark.parametrize("names", [("Smith J", "SMITH JA", "Smith, J.A.", "Smith John", "SMITH J."),
                                   ("[Anonymous]", "ANONYMOUS", "Anon.", "anonymous"),
                                   ("de Nooy W.", "DE NOOY W", "deNooy W")])
def test_author_forms_fold(names):
    assert len({author_key(name) for name in names}) == 1


@pytest.mark.parametrize("forms", [("Journal of Applied Physics", "J APPL PHYS", "J. Appl. Phys."),
                                   ("Physical Review B", "PHYS REV B", "Phys. Rev. B"),
                                   ("IEEE Transactions on Magnetics", "IEEE T MAGN", "IEEE Trans. Magn."),
                                   ("Cochrane Database of Systematic Reviews", "COCHRANE DATABASE SY")])
def test_full_and_abbreviated_sources_fold(forms):
    assert len({source_key(form) for form in forms}) == 1


def test_real_pairs_written_two_ways_fold(wos_refs):
    """Pairs found in the shared files by equal DOI or equal author, year, volume and page."""
    vaquero = [r for r in wos_refs if r.startswith(("Vaquero LM, 2009", "Vaquero L. M., 2009"))]
    assert len(set(vaquero)) == 2
    assert len({identity_key(parse_reference(r, "wos")) for r in vaquero}) == 1
    gubbi = [r for r in wos_refs if re.match(r"(?i)gubbi j\.?, 2013", r)]
    assert len(set(gubbi)) == 3
    assert len({identity_key(parse_reference(r, "wos")) for r in gubbi}) == 1
    atzori = [parse_reference(r, "wos") for r in set(wos_refs) if re.match(r"(?i)atzori l\.?, 2010", r)]
    merged = merge_identities(atzori)
    assert {merged.get(identity_key(r), identity_key(r)) for r in atzori} == {"doi:10.1016/j.comnet.2010.05.010"}


def test_merging_follows_a_partial_citation_through_its_full_form_to_the_doi():
    forms = ["Atzori L, 2010, COMPUT NETW, V54, P2787, DOI 10.1016/j.comnet.2010.05.010",
             "Atzori L., 2010, ELSEVIER COMPUTER NE, V54, P2787", "Atzori L., 2010, ELSEVIER COMPUTER NE, V54"]
    refs = [parse_reference(form, "wos") for form in forms]
    merged = merge_identities(refs)
    assert {merged.get(identity_key(r), identity_key(r)) for r in refs} == {"doi:10.1016/j.comnet.2010.05.010"}


def test_scopus_references_with_and_without_pages_fold(scopus_refs):
    """Jiles & Atherton 1986 is cited in bibx-scopus.csv with pages, without, with full and ISO titles."""
    jiles = [parse_reference(r, "scopus") for r in set(scopus_refs) if re.match(r"Jiles D\. ?C\., Atherton", r)]
    by_year = defaultdict(set)
    merged = merge_identities(jiles)
    for ref in jiles:
        by_year[ref.year].add(merged.get(identity_key(ref), identity_key(ref)))
    assert len([r for r in jiles if r.year == 1986]) >= 3
    assert by_year[1986] == {"key:JILES D|1986||61|48"}
    assert by_year[1984] != by_year[1986]


def test_different_works_stay_apart(wos_refs, scopus_refs):
    newman = [parse_reference(r, "wos") for r in set(wos_refs) if r.startswith("Newman MEJ, 2001, PHYS REV E, V64")]
    assert len({r.doi for r in newman}) == 2
    assert len({identity_key(r) for r in newman}) == 2
    assert not any(v.startswith("doi:10.1103/physreve.64") for v in merge_identities(newman).values())
    # every two references with different years, volumes or pages (by regex) get different keys
    seen: dict[str, tuple] = {}
    for raw in wos_refs:
        m = re.match(r"^([^,]+), (\d{4}), [^,]+, V(\d+), P(\d+)(?:,|$)", raw)
        if m and "DOI" not in raw:
            fields = (m.group(1).split()[0].upper()[:5], m.group(2), m.group(3), m.group(4))
            assert seen.setdefault(identity_key(parse_reference(raw, "wos")), fields)[1:] == fields[1:], raw


def test_key_leaves_the_source_out_when_volume_and_page_are_there():
    full = ParsedRef(raw="", first_author="Smith J", year=2000, source="Journal of Applied Physics",
                     volume="88", page="12")
    assert identity_key(full) == "key:SMITH J|2000||88|12"
    assert identity_key(replace(full, page=None)) == "key:SMITH J|2000|JAP|88|"
    assert identity_key(replace(full, source=None, volume=None, page=None)).startswith("raw:")


def test_thesaurus_maps_sources_before_their_initials():
    fold = SourceFolding.from_thesaurus("label\treplace by\nSENSORS-BASEL\tSensors\nignored\t\n")
    ref = ParsedRef(raw="", first_author="Khan MK", year=2010, source="SENSORS-BASEL", volume="10")
    assert identity_key(ref) == "key:KHAN M|2010|SB|10|"
    assert identity_key(ref, fold) == "key:KHAN M|2010|S|10|"
    with pytest.raises(ValueError):
        SourceFolding.from_thesaurus("term_id\treplace_by\n")


def test_resolver_matches_by_doi_then_key_and_refuses_ambiguous_keys():
    works = [("W1", work_keys("Ahuja, G", 2000, "ADMINISTRATIVE SCIENCE QUARTERLY", "ADMIN SCI QUART", "45",
                              "425", "10.2307/2667105")),
             ("W2", work_keys("Burt R.S.", 1992, "Structural Holes: The Social Structure of Competition", None,
                              None, None, None)),
             ("W3", work_keys("Lee, K", 2001, "Nature", "NATURE", "5", "1", None)),
             ("W4", work_keys("Lee, Kim", 2001, "Nature", "NATURE", "5", "1", None))]
    resolver = ReferenceResolver(works)
    assert resolver.resolve(parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45, P425, DOI 10.2307/2667105",
                                            "wos")) == ("W1", "doi")
    assert resolver.resolve(parse_reference("Ahuja G., Collaboration networks, (2000) Administrative Science "
                                            "Quarterly, 45 (3), pp. 425-455.", "scopus")) == ("W1", "key")
    assert resolver.resolve(parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45", "wos")) == ("W1", "key")
    assert resolver.resolve(parse_reference("Burt R. S., 1992, STRUCTURAL HOLES SOC", "wos")) == ("W2", "key")
    # a reference with another DOI is another work, even with the same author, year, volume and page
    assert resolver.resolve(parse_reference("Ahuja G, 2000, ADMIN SCI QUART, V45, P425, DOI 10.1234/other", "wos")) \
        == (None, None)
    assert resolver.ambiguous == 0
    assert resolver.resolve(parse_reference("LEE K, 2001, NATURE, V5, P1", "wos")) == (None, None)
    assert resolver.ambiguous == 1
