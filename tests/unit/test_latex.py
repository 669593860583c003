"""LaTeX in BibTeX values: the plain path gives the very text pylatexenc gives, on values generated from
what exporters write and from the characters that could trip it; other values go to pylatexenc."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bib2graph.sources.exports import latex
from bib2graph.sources.exports.latex import latex_text

#: exporters' escapes, LaTeX's specials and ligature halves, and ordinary text
PIECES = ["a", "Z", "é", "1", " ", "  ", "\n", "\t", "\xa0", "-", "'", "~", "{", "}", "\\&", "\\%", "\\_", "\\#",
          "&", "%", "#", "_", ".", ",", ";", ":", "[", "]", "(", ")", "*", "/", "\"", "!", "?", "<", ">", "+",
          "=", "@", "|", "{[}", "{]}", "--", "''", "$", "\\$", "US$1.90"]


def pylatexenc(value: str) -> str:
    return latex._decoded(value)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_the_plain_path_gives_what_pylatexenc_gives(value):
    plain = latex._plain(latex._dollars(value))
    if "$" not in value:
        assert plain is not None                # every piece above is plain; two "$" may open math
    if plain is not None:
        assert plain == pylatexenc(value)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES + ["\\'e", "$x$", "$x^2$", "^", "`", "``", "!`", "\\textbf{b}", "\\\\", "\\{"]),
                max_size=25).map("".join))
def test_every_value_decodes_as_pylatexenc_decodes_it(value):
    expected = value if not latex._LATEX.search(value) else pylatexenc(value)
    assert latex_text(value) == expected


def test_what_exporters_write():
    assert (latex_text("Science \\& Engineering, pp. 322--331, 50\\% of")
            == "Science & Engineering, pp. 322\u2013331, 50% of")
    assert latex_text("DOI {[}10.1016/j.x\\_1, 10.2/y{]}") == "DOI [10.1016/j.x_1, 10.2/y]"
    assert latex_text("M{\\\"a}ntym{\\\"a}ki") == "M\u00e4ntym\u00e4ki"          # a macro: pylatexenc
    assert latex._plain("M{\\\"a}ntym{\\\"a}ki") is None
    assert latex._plain("-{}-") == "--" and latex._plain("{--}") == "\u2013"  # braces end a ligature
    assert latex_text("Smith & Sons #1 at 5%") == "Smith & Sons #1 at 5%"     # bare: the characters
    # a "$" is math only before another with math marks between: Scopus writes prices bare
    assert latex_text("living on US$1.90 a day, not $2") == "living on US$1.90 a day, not $2"
    assert latex_text("$\\alpha$-synuclein costs $5") == "\u03b1-synuclein costs $5"
