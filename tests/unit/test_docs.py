"""The docs say what the code does: every default docs/spec.md states is the schema's default."""

from __future__ import annotations

import json
import re

from bib2graph import spec

from ..conftest import ROOT

ROW = re.compile(r"^\| `([a-z_.]+)` \| `([^`]*)` \|")


def _default(place: str):
    keys = place.split(".")
    return spec.schema_defaults(*keys[:-1])[keys[-1]] if len(keys) > 1 else spec.schema_defaults()[keys[0]]


def test_every_default_in_the_spec_docs_is_the_schemas():
    rows = [m.groups() for line in (ROOT / "docs/spec.md").read_text(encoding="utf-8").splitlines()
            if (m := ROW.match(line))]
    assert len(rows) >= 25
    for place, shown in rows:
        expected = _default(place)
        value = json.loads(shown) if shown in ("true", "false", "null") or shown[:1] in "[{0123456789" else shown
        assert value == expected, (place, shown, expected)


def test_the_keyword_defaults_are_the_networks_module_defaults():
    from bib2graph.networks import COMMUNITY_DEFAULTS, DEFAULTS

    assert DEFAULTS["keywords"] == spec.schema_defaults("networks", "keywords")
    from bib2graph.networks.params import label_defaults

    assert {**COMMUNITY_DEFAULTS, "labels": label_defaults()} == spec.schema_defaults("communities")
