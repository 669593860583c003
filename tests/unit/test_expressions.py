import pytest

from bib2graph.errors import DataError
from bib2graph.expressions import compile_expression, normalize_text

TEXT = normalize_text("Object-in-context memory in rats: a novel object recognition review")


@pytest.mark.parametrize("expression,expected", [
    ("rats", True), ("rat", False), ("rat*", True), ("RATS", True),
    ("object AND context", True), ("object AND mouse", False), ("mouse OR rats", True),
    ("NOT review", False), ("NOT mouse", True), ('"object recognition"', True), ('"recognition object"', False),
    ('"object recog"*', True), ("rats AND NOT (mouse OR primate)", True), ("(mouse OR primate) AND rats", False),
    ("in-context", True),
])
def test_expressions_match_whole_words(expression, expected):
    assert compile_expression(expression)(TEXT) is expected


@pytest.mark.parametrize("bad", ["rats OR", "rats review", "(rats", '"unclosed', "AND"])
def test_malformed_expressions_name_their_place(bad):
    with pytest.raises(DataError) as info:
        compile_expression(bad, "filter.include")
    assert info.value.details["place"] == "filter.include" and "column" in info.value.message
