"""Fuzz the research spec: mutations of the real config/research.yaml, random YAML documents and YAML-ish
text go through `spec.load` (strict reading, then validation) and raise only typed errors."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from bib2graph import spec

REAL = (Path(__file__).resolve().parents[1] / "config" / "research.yaml").read_bytes()
TOKENS = [b"&a ", b"*a", b"<<: ", b"\t", b": ", b"- ", b"{", b"}", b"[", b"]", b"!!int ", b"!!binary ", b"!!set ",
          b"!!timestamp ", b"? ", b"---\n", b"...\n", b"%YAML 1.1\n", b"\xff", b"\x00", b"\xef\xbb\xbf", b"'", b'"',
          b"\\", b"#", b"|\n", b">-\n", b"~", b"yes", b"1e999", b".nan", b"0x", b"0o", b"2020-13-45", b"9" * 5000,
          b"\n  ", b"\n    depth: 1", b"\nchain:\n", b"1: ", b"null: ", b"\r", "\u2028".encode()]


@st.composite
def mutations(draw) -> bytes:
    """The real spec after a few edits: bytes or YAML tokens inserted, ranges deleted or repeated."""
    data = REAL
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["token", "bytes", "delete", "repeat"]))
        if kind == "token":
            data = data[:at] + draw(st.sampled_from(TOKENS)) + data[at:]
        elif kind == "bytes":
            data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
        else:
            end = min(len(data), at + draw(st.integers(1, 200)))
            data = data[:at] + (data[at:end] * 2 if kind == "repeat" else b"") + data[end:]
    return data


KEYS = ["name", "strict", "source", "kind", "files", "openalex", "base_url", "per_page", "seed", "ids", "dois",
        "query", "max_results", "chain", "direction", "depth", "max_candidates", "min_links", "max_citing",
        "min_new", "filter", "year_min", "year_max", "types", "networks", "coupling", "keywords", "thesaurus",
        "min_weight", "normalization", "counting", "field", "communities", "algorithm", "resolution", "export",
        "formats", "unknown"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.floats(allow_nan=True),
                    st.sampled_from(["files", "both", "W1", "raw", "leiden", "graphml", "full", "auto"]),
                    st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=20)
documents = st.one_of(st.dictionaries(st.sampled_from(KEYS), values, max_size=8), values)
REAL_DOCUMENT = yaml.safe_load(REAL)


@st.composite
def edited_documents(draw) -> dict:
    """The real spec's document with a few values replaced, added or removed, two levels deep."""
    document = copy.deepcopy(REAL_DOCUMENT)
    for _ in range(draw(st.integers(1, 4))):
        section = draw(st.sampled_from(sorted(document) + ["unknown"]))
        node = document.get(section)
        if isinstance(node, dict) and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(map(str, node)) + KEYS))
            node[key] = draw(values)
        elif draw(st.integers(0, 4)) == 0:
            document.pop(section, None)
        else:
            document[section] = draw(values)
    return document
yamlish = st.lists(st.sampled_from(TOKENS + [k.encode() for k in KEYS] + [b"\n", b" ", b"1", b"W1"]),
                   max_size=30).map(b"".join)


def _load(scratch, typed, data: bytes) -> None:
    path = scratch / "research.yaml"
    path.write_bytes(data)
    loaded = typed(spec.load, path)
    if loaded is not None:
        assert isinstance(loaded, dict) and spec.validate(loaded) == loaded


@given(mutations())
def test_mutated_real_spec(scratch, typed, data):
    _load(scratch, typed, data)


@given(st.one_of(edited_documents(), documents))
def test_random_documents(scratch, typed, document):
    _load(scratch, typed, yaml.safe_dump(document, allow_unicode=True).encode())


@given(st.one_of(yamlish, st.binary(max_size=300)))
def test_yamlish_text(scratch, typed, data):
    _load(scratch, typed, data)
