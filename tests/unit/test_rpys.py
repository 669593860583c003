"""RPYS on real Web of Science exports against a direct count of their CR fields."""

from __future__ import annotations

import csv
import re
import statistics
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from bib2graph.sources.ingest import ingest
from bib2graph.temporal import rpys

WOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "wos"
YEAR = re.compile(r"[^,]*, (\d{4}),")


def plaintext_refs(path: Path) -> list[list[str]]:
    records, current, tag = [], None, None
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if line.startswith("ER"):
            records.append(current)
            current = None
            continue
        if line[:2].strip():
            tag = line[:2]
        if line.startswith("PT "):
            current = []
        if tag == "CR" and current is not None:
            current.append(line[3:].strip())
    return records


def tab_refs(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [[cr.strip() for cr in (row.get("CR") or "").split(";") if cr.strip()] for row in rows]


def direct_spectrum(records: list[list[str]]) -> tuple[Counter, Counter, dict[int, Counter], Counter, Counter]:
    """N(y) counted from the CR lines (each distinct line of a record once), the lines that repeat an
    author and year already cited by the same record (the only ones an identity can merge within a year),
    the lines per year, and the lines an identity can move to a year next to theirs or from one: those
    whose author, volume and page some line of the file gives a year earlier or later (online first, then
    in print)."""
    counts, repeats, lines, placed = Counter(), Counter(), {}, []
    for refs in records:
        seen = set()
        for cr in dict.fromkeys(r.upper() for r in refs):
            match = YEAR.match(cr)
            if match:
                year = int(match.group(1))
                counts[year] += 1
                author_year = tuple(cr.split(", ")[:2])
                repeats[year] += author_year in seen
                seen.add(author_year)
                lines.setdefault(year, Counter())[cr] += 1
                volume, page = re.search(r", V(\d+)", cr), re.search(r", P(\d+)", cr)
                if volume and page:
                    placed.append((start(cr)[0], volume.group(1), page.group(1), year))
    years = {}
    for author, volume, page, year in placed:
        years.setdefault((author, volume, page), set()).add(year)
    moved_out, moved_in = Counter(), Counter()
    for author, volume, page, year in placed:
        near = years[(author, volume, page)] & {year - 1, year + 1}
        moved_out[year] += bool(near)
        for other in near:
            moved_in[other] += 1
    return counts, repeats, lines, moved_out, moved_in


def start(cr: str) -> tuple[str, ...]:
    """Author (letters only) and year of a CR line."""
    author, _, rest = cr.upper().partition(", ")
    return re.sub(r"[^A-Z ]", "", author).strip(), rest[:4]


def direct_peaks(counts: dict[int, int]) -> list[int]:
    years = list(range(min(counts), max(counts) + 1))
    n = [counts.get(y, 0) for y in years]
    dev = [n[i] - statistics.median(n[max(0, i - 2): i + 3]) for i in range(len(n))]
    return [years[i] for i in range(len(n))
            if dev[i] > 0 and (i == 0 or dev[i] >= dev[i - 1]) and (i == len(n) - 1 or dev[i] >= dev[i + 1])]


@pytest.mark.parametrize("name,reader", [("wos_plaintext.txt", plaintext_refs),
                                         ("scientopy-iot-gateway-wos.txt", tab_refs)])
def test_peaks_are_the_years_a_direct_count_finds(name, reader):
    path = WOS / name
    found = ingest([path], [name])
    bundle = found.bundle
    citations = rpys.cited_years(bundle.references, bundle.works, found.cited)
    table = rpys.spectrum(citations["year"])
    counts, repeats, lines, moved_out, moved_in = direct_spectrum(reader(path))
    assert table["year"].tolist() == list(range(min(counts), max(counts) + 1))
    for year, n in zip(table["year"], table["citations"]):
        # one citation per cited work and citing record: only lines repeating an author and year can merge,
        # and lines of one author, volume and page a year apart can move to the year of their one work
        assert counts[year] - repeats[year] - moved_out[year] <= n <= counts[year] + moved_in[year], year
    assert sum(counts.values()) - table["citations"].sum() <= 0.01 * sum(counts.values())
    peaks = rpys.peaks(table)
    assert peaks == direct_peaks(counts) and len(peaks) >= 3
    cited = found.cited.set_index("work_id")
    records = reader(path)
    checked_doi = 0
    for year in peaks:
        top = rpys.top_cited(citations, year, limit=3)
        assert top["citations"].sum() <= counts[year]
        assert set(citations.loc[citations["referenced_id"].isin(top["referenced_id"]), "year"]) == {year}
        # merged spellings of one reference only ever add up: the leader has at least the best raw line
        assert top["citations"].iat[0] >= max(lines[year].values())
        identity = cited["identity"].get(top["referenced_id"].iat[0], "")
        if identity.startswith("doi:"):   # a DOI is counted directly: the records whose CR lines give it
            doi = identity[4:].upper()
            with_doi = sum(any(f"DOI {doi}" in cr.upper() for cr in refs) for refs in records)
            author, year_text = start(cited["raw"][top["referenced_id"].iat[0]])
            near = {(author, str(int(year_text) + y)) for y in (-1, 0, 1)}   # a line a year apart may join it
            same_start = sum(any(start(cr) in near for cr in refs) for refs in records)
            # lines without the DOI join it (the fuller citation's identity), but never other works' lines
            assert with_doi <= top["citations"].iat[0] <= same_start
            checked_doi += 1
    assert checked_doi >= 1


def test_spectrum_fills_gaps_and_uses_centred_median():
    table = rpys.spectrum(pd.Series([2000, 2000, 2000, 2003, None]))
    assert table["year"].tolist() == [2000, 2001, 2002, 2003]
    assert table["citations"].tolist() == [3, 0, 0, 1]
    assert table["median"].tolist() == [0.0, 0.5, 0.5, 0.0]   # windows [3,0,0] [3,0,0,1] [3,0,0,1] [0,0,1]
    assert rpys.peaks(table) == [2000, 2003]
    assert rpys.spectrum(pd.Series([], dtype=float)).empty
