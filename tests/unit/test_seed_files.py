"""Seed files: BibTeX and RIS read whatever their encoding; broken entries are skipped with their line."""

import codecs
import re

import pytest

from bib2graph.errors import DataError
from bib2graph.seed import resolve_seeds
from bib2graph.skips import Skips
from bib2graph.sources.files import SeedEntry, read_seed_entries

BOMS = {"utf-8": b"", "utf-8-sig": b"", "utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE}


def entries(path, name, strict=False):
    skips = Skips(strict=strict)
    return read_seed_entries(path, name, skips), skips


def skipped(path, name) -> list[tuple[str, str]]:
    """(where, reason) of every skip, after checking that strict turns the first into an error."""
    found, skips = entries(path, name)
    with pytest.raises(DataError) as caught:
        entries(path, name, strict=True)
    first = skips.items[0]
    assert caught.value.code == "RECORD_INVALID" and caught.value.exit_code == 2
    assert caught.value.details == {"file": name, "where": first.where, "reason": first.reason}
    assert all(s.file == name for s in skips.items)
    return [(s.where, s.reason) for s in skips.items]


@pytest.fixture(scope="module")
def ieee_ris(shared_data) -> str:
    return (shared_data / "ris" / "litstudy-ieee-example.ris").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def library(shared_data) -> str:
    return (shared_data / "bibtex" / "scientopy-bibliography.bib").read_text(encoding="utf-8")


@pytest.mark.parametrize("encoding", sorted(BOMS))
def test_ris_exports_read_alike_in_every_encoding(tmp_path, ieee_ris, encoding):
    path = tmp_path / "ieee.ris"
    path.write_bytes(BOMS[encoding] + ieee_ris.encode(encoding))
    found, skips = entries(path, "seeds/ieee.ris")
    assert len(found) == 25 and sum(e.doi is not None for e in found) == 24
    assert found[0] == SeedEntry(key="record 1", work_id=None, doi="10.1109/mcse.2018.2884139",
                                 title="The European Approach to the Exascale Challenge")
    assert skips.as_rows() == []   # IEEE's VO tag, outside the standard, loses a seed nothing


def test_broken_ris_records_are_skipped_with_their_line(tmp_path):
    path = tmp_path / "broken.ris"
    path.write_text("Provider: somebody\n"
                    "TY  - JOUR\nTI  - kept\nZZ  - odd\nUR  - https://doi.org/10.1000%2FAB\nER  - \n"
                    "TY  - JOUR\nTI  - unfinished\n"
                    "TY  - JOUR\nID  - key9\nDO  - 10.1/C\nER  - \n"
                    "TY  - BOOK\nTI  - no end\n", encoding="utf-8")
    found, _ = entries(path, "b.ris")
    assert [(e.key, e.doi, e.title) for e in found] == [("record 1", "10.1000/ab", "kept"), ("key9", "10.1/c", None)]
    assert skipped(path, "b.ris") == [
        ("line 1", "text outside a RIS record (TY … ER); ignored"),
        ("line 7", "RIS record without ER (a new one starts at line 9); skipped"),
        ("line 13", "RIS record without ER at the end of the file; skipped"),
    ]


def test_a_file_that_is_not_ris_at_all_is_an_error(tmp_path):
    path = tmp_path / "x.ris"
    path.write_text("@article{a, doi = {10.1/x}}\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        entries(path, "seeds/x.ris")
    assert caught.value.code == "FILE_INVALID" and caught.value.exit_code == 2
    assert caught.value.message.startswith("seeds/x.ris: not a RIS file")


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16-le", "utf-16-be"])
def test_the_real_bibtex_library_reads_in_any_encoding(tmp_path, library, encoding):
    path = tmp_path / "lib.bib"
    path.write_bytes(BOMS[encoding] + library.encode(encoding))
    found, skips = entries(path, "lib.bib")
    assert len(found) == 304 and not skips
    assert all(e.doi is None or re.fullmatch(r"10\.\S+", e.doi) for e in found)
    with_doi = sum(e.doi is not None for e in found)
    assert with_doi == len(re.findall(r"(?mi)^\s*doi\s*=", library)) == 250


def test_bibtex_dois_in_latex_and_urls(tmp_path):
    path = tmp_path / "dois.bib"
    path.write_text(r"""@article{escaped, doi = {10.1000/a\_b}}
@article{braced, doi = {{10.1000/Braced}}, title = {Kept}}
@article{fromurl, url = {https://doi.org/10.1000/XY%2Fz}}
@article{otherurl, url = {https://www.scopus.com/record.uri?doi=10.1%2fx}}
@article{openalex, openalex = {https://openalex.org/W42}}
@article{nothing, title = {No identifier}}
""", encoding="utf-8")
    found, skips = entries(path, "dois.bib")
    assert [(e.key, e.doi, e.work_id) for e in found] == [
        ("escaped", "10.1000/a_b", None), ("braced", "10.1000/braced", None), ("fromurl", "10.1000/xy/z", None),
        ("otherurl", None, None), ("openalex", None, "W42"), ("nothing", None, None)]
    assert not skips  # an entry without identifiers is the seeding's to report, by key


def test_broken_bibtex_blocks_are_skipped_with_their_line(tmp_path):
    path = tmp_path / "broken.bib"
    path.write_text("""@article{a, doi = {10.1/a}}
@article{a, doi = {10.1/again}}
@article{b, doi = {10.1/b}, doi = {10.1/c}}
@article{c, title = {never closed
@article{d, doi = {10.1/d}}
""", encoding="utf-8")
    found, _ = entries(path, "refs/broken.bib")
    assert [(e.key, e.doi) for e in found] == [("a", "10.1/a"), ("a", "10.1/again"), ("b", "10.1/b"), ("d", "10.1/d")]
    where = skipped(path, "refs/broken.bib")
    assert [w for w, _ in where] == ["line 3", "line 4"]        # a key is no identity: both a's are seeds
    assert "field(s) doi repeated with different values; the first of each read" in where[0][1]
    assert "field-value closing" in where[1][1]


def test_a_url_nested_too_deeply_for_latex_skips_its_entry_and_a_braced_doi_is_read(tmp_path):
    """A `url` is LaTeX-decoded (by pylatexenc when it holds a macro: RecursionError past some depth, the
    entry is skipped, not INTERNAL; braces alone are groups, read at any depth); a `doi` is read verbatim,
    its braces around the whole value dropped however many."""
    path = tmp_path / "deep.bib"
    path.write_text("@article{b, doi = {10.1/b}}\n@article{a, url = {" + "{" * 1000 + "\\relax https://doi.org/10.1/x"
                    + "}" * 1000 + "}}\n@article{c, doi = {" + "{" * 1000 + "10.1/c" + "}" * 1000 + "}}\n"
                    "@article{d, url = {" + "{" * 1000 + "https://doi.org/10.1/d" + "}" * 1000 + "}}\n",
                    encoding="utf-8")
    found, _ = entries(path, "deep.bib")
    assert [(e.key, e.doi) for e in found] == [("b", "10.1/b"), ("c", "10.1/c"), ("d", "10.1/d")]
    assert skipped(path, "deep.bib") == [("line 2", "BibTeX `doi` or `url` nested too deeply to read; skipped")]


def test_undecodable_and_empty_seed_files(tmp_path):
    bad = tmp_path / "bad.bib"
    bad.write_bytes(b"@article{a,\n title = {caf\xe9}}\n")
    with pytest.raises(DataError) as caught:
        entries(bad, "seeds/bad.bib")
    assert caught.value.code == "FILE_ENCODING" and caught.value.details == {
        "file": "seeds/bad.bib", "line": 2, "byte": 25, "encoding": "utf-8"}
    assert caught.value.message.startswith("seeds/bad.bib: line 2")
    empty = tmp_path / "empty.ris"
    empty.write_text("\n", encoding="utf-8")
    assert skipped(empty, "empty.ris") == [("", "holds no entries")]
    with pytest.raises(DataError) as caught:
        entries(tmp_path / "missing.bib", "seeds/missing.bib")
    assert caught.value.code == "FILE_MISSING" and "seeds/missing.bib" in caught.value.message


def test_seeding_passes_file_names_and_skips_on(tmp_path, demo_universe):
    doi = demo_universe.bundle.works.dropna(subset=["doi"]).doi.iloc[0]
    path = tmp_path / "s.bib"
    path.write_text(f"@article{{x, doi = {{{doi}}}}}\n@article{{y, title = {{never closed\n", encoding="utf-8")
    skips = Skips()
    result = resolve_seeds(demo_universe, {"ids": [], "dois": []}, [path], ["seeds/s.bib"], skips)
    assert len(result.seeds) == 1 and [(s.file, s.where) for s in skips.items] == [("seeds/s.bib", "line 2")]
