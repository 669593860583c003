"""BibTeX seed files built from the entries of a real library plus made-up ones (LaTeX DOIs, doi.org
URLs, duplicate keys and fields, odd blocks), with tricky text spliced in, encodings varied, bytes
flipped and files truncated: `read_seed_entries` returns well-typed entries or raises a B2GError with
exit code 2..5; never another exception."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from damage import damaged

from bib2graph.errors import B2GError
from bib2graph.skips import Skips
from bib2graph.sources.files import read_seed_entries

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
LIBRARY = (SHARED / "bibtex" / "scientopy-bibliography.bib").read_text(encoding="utf-8")
ENTRIES = re.split(r"(?m)^(?=@)", LIBRARY)[1:40]

VALUES = st.sampled_from([
    r"10.1000/a\_b", "{10.1000/Braced}", "https://doi.org/10.1000/x%2Fy", "http://dx.doi.org/10.1/{B}", "doi:10.1/x",
    r"10.1/50\%", "not a doi", "", "{", "}", "\\", "%", "10.1/é", r"\'{e}", "$x^2$", r"\url{https://doi.org/10.1/u}",
    "https://openalex.org/W123", "W5", "#", "@", "{{{{{{{{{{x}}}}}}}}}}", "\\" * 7, "a # b", r"\begin{x}", "~",
]) | st.text(max_size=20)
NAMES = st.sampled_from(["doi", "DOI", "url", "Url", "openalex", "title", "author", "x", "", "1", "doi doi"])
SNIPPETS = ["@", "{", "}", "\\", "%", '"', "=", ",", "#", "\x00", "\ufeff", "\r", "\n", "@string{s = {v}}",
            "@comment{", "@preamble{", "@article{a,", "{" * 500, "\u2028", "\udc80"]
ENCODINGS = ["utf-8"] * 6 + ["utf-8-sig", "utf-16", "utf-16-be", "utf-32", "latin-1"]


@st.composite
def made_up(draw) -> str:
    kind = draw(st.sampled_from(["article", "book", "misc", "string", "comment", "preamble", "ARTICLE", ""]))
    key = draw(st.sampled_from(["a", "b", "a", "k:1", "", " ", "é"]))
    left, right = draw(st.sampled_from([("{", "}"), ('"', '"'), ("", ""), ("{{", "}}")]))
    fields = draw(st.lists(st.tuples(NAMES, VALUES), max_size=4))
    body = ",\n  ".join(f"{name} = {left}{value}{right}" for name, value in fields)
    return f"@{kind}{{{key},\n  {body}\n}}\n"


@st.composite
def bibtex_files(draw) -> bytes:
    blocks = draw(st.lists(st.sampled_from(ENTRIES) | made_up(), max_size=5))
    text = "".join(blocks)
    return damaged(draw, text, SNIPPETS, ENCODINGS)


@given(data=bibtex_files(), strict=st.booleans())
def test_bibtex_reads_or_fails_typed(tmp_path_factory, data, strict):
    path = tmp_path_factory.getbasetemp() / "seeds.bib"
    path.write_bytes(data)
    try:
        entries = read_seed_entries(path, "fuzz.bib", Skips(strict=strict))
    except B2GError as exc:
        assert 2 <= exc.exit_code <= 5, exc
        assert "fuzz.bib" in exc.message, exc
        return
    for entry in entries:
        assert isinstance(entry.key, str)
        assert entry.doi is None or entry.doi.startswith("10.")
        for text in (entry.key, entry.doi, entry.work_id, entry.title):
            assert text is None or isinstance(text, str) and text.encode("utf-8") is not None  # no surrogates
