"""Languages as exports name them become ISO 639-1 codes."""

from __future__ import annotations

import pytest

from bib2graph.sources.exports.languages import language_code


@pytest.mark.parametrize("name, code", [("English", "en"), ("Chinese", "zh"), ("Portuguese", "pt"),
                                        ("Greek", "el"), ("Malay", "ms"), ("English; French", "en"),
                                        ("Multi-Language", None), ("Unspecified", None), ("", None),
                                        (None, None)])
def test_language_names(name, code):
    assert language_code(name) == code
