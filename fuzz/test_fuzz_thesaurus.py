"""Fuzz the keywords thesaurus: any file raises only typed errors, and what is read has no chain left."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bib2graph import thesaurus

TERMS = [f"C{i}" for i in range(6)] + ["keywords/rat", " C1 ", "", "term_id", "replace_by", "#C2"]
term = st.one_of(st.sampled_from(TERMS), st.text(max_size=8))
pair = st.tuples(st.sampled_from(TERMS[:7]), st.sampled_from(TERMS[:7] + [""])).map("\t".join)
line = st.one_of(pair, pair, pair, st.lists(term, max_size=4).map("\t".join), st.just("# a comment"))


@st.composite
def tsv_files(draw) -> bytes:
    """Thesauri as people write them: header or not, any line ends, a few encodings, stray bytes."""
    lines = draw(st.lists(line, max_size=10))
    if draw(st.integers(0, 4)):
        lines.insert(0, "term_id\treplace_by")
    text = draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)
    data = text.encode(draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16"])), errors="surrogatepass")
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    return data


@given(st.one_of(tsv_files(), tsv_files(), st.binary(max_size=200)))
def test_read_any_file(scratch, typed, data):
    path = scratch / "thesaurus.tsv"
    path.write_bytes(data)
    mapping = typed(thesaurus.read, path)
    if mapping is not None:
        assert all(target == "" or target not in mapping for target in mapping.values())  # chains resolved
        assert all(term and term == term.strip() for term in mapping)
        table = thesaurus.read_thesaurus(path)
        assert dict(zip(table["term_id"], table["replace_by"])) == mapping
