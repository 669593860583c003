"""The snapshot partition job's fast paths (issue 24: the part jobs against a bare gzip + orjson read) give
what the plain rules give: a JSON line read by orjson where it can and by the standard library where it
cannot, OpenAlex IDs shortened, abstracts rebuilt from their inverted index (shared positions included)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from bib2graph.ids import _OPENALEX_PREFIXES
from bib2graph.ids import short_id
from bib2graph.sources.files import _loads
from bib2graph.sources.records import abstract_from_index

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                     max_leaves=20)


@pytest.mark.long
@settings(max_examples=500, deadline=None)
@given(value=_JSON)
def test_a_json_line_reads_as_the_standard_library_reads_it(value):
    line = json.dumps(value)
    assert _loads(line) == json.loads(line)
    assert repr(_loads(line)) == repr(json.loads(line))   # int stays int, -0.0 stays -0.0


def test_what_orjson_refuses_the_standard_library_reads_or_refuses():
    for line in ['{"a": NaN}', '{"n": 123456789012345678901234567890}', '{"t": "\\ud800x"}', '[1, Infinity]',
                 "[" * 2000 + "]" * 2000, '{"a": 1, "a": 2}']:
        try:
            want = json.loads(line)
        except (ValueError, RecursionError) as exc:
            want = type(exc)
        try:
            got = _loads(line)
        except (ValueError, RecursionError) as exc:
            got = type(exc)
        assert repr(got) == repr(want), line


def _plain_short_id(value):
    """short_id as it was written before its fast path."""
    if not value:
        return None
    value = str(value).strip()
    for prefix in _OPENALEX_PREFIXES:
        if value.lower().startswith(prefix):
            value = value[len(prefix):]
            break
    if value[:1].lower() in "wacitsp" and value[1:].isdigit():
        value = value[0].upper() + value[1:]
    return value or None


@settings(max_examples=500, deadline=None)
@given(prefix=st.sampled_from(["", *_OPENALEX_PREFIXES, "HTTPS://OpenAlex.org/", " https://openalex.org/", "İ"]),
       rest=st.one_of(st.from_regex(r"[wWaAkK][0-9]{0,6}", fullmatch=True), st.text(max_size=8)))
def test_short_ids_are_the_plain_rules(prefix, rest):
    assert short_id(prefix + rest) == _plain_short_id(prefix + rest)


def _plain_abstract(index):
    placed = sorted((pos, word) for word, positions in (index if isinstance(index, dict) else {}).items()
                    if isinstance(word, str) for pos in (positions if isinstance(positions, list) else [])
                    if type(pos) is int and pos >= 0)
    return " ".join(word for _, word in placed) or None


_POSITION = st.one_of(st.integers(-2, 12), st.just(True), st.just(1.0), st.just("3"), st.none())


@settings(max_examples=500, deadline=None)
@given(index=st.one_of(st.dictionaries(st.text(max_size=4), st.one_of(st.lists(_POSITION, max_size=5), st.none(),
                                                                       st.integers()), max_size=8),
                       st.none(), st.lists(st.integers())))
def test_abstracts_are_the_plain_rebuild(index):
    assert abstract_from_index(index) == _plain_abstract(index)
