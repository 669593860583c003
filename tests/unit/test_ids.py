"""Identifier forms people paste: DOIs from PDFs and web pages."""

from __future__ import annotations

import pytest

from bib2graph.ids import normalize_doi


@pytest.mark.parametrize("pasted", ["10.1016/j.jad.2020-01.001", "10.1016/j.jad.2020\u201001.001",
                                    "10.1016/j.jad.2020\u201101.001", "10.1016/j.jad.2020\u201301.001",
                                    "https://doi.org/10.1016/J.JAD.2020\u221201.001",
                                    "doi:10.1016/j.jad.2020\u201201.001"])
def test_a_doi_with_a_typographic_dash_is_the_doi_with_a_hyphen(pasted):
    assert normalize_doi(pasted) == "10.1016/j.jad.2020-01.001"


def test_no_doi_is_still_none():
    assert normalize_doi("\u2010 10.1/x") is None and normalize_doi("") is None
