"""The GUI's cluster colours are the report's (bib2graph.palette): graph.ts's list, and the built bundle
`b2g gui` serves, hold the same colours in the same order, so a cluster has one colour everywhere."""

from __future__ import annotations

import re

from bib2graph.palette import CLUSTER_COLOURS, OTHER_COLOUR

from ..conftest import ROOT


def test_graph_ts_palette_is_palette_py():
    source = (ROOT / "frontend/src/graph.ts").read_text(encoding="utf-8")
    listed = re.search(r"export const PALETTE = \[(.*?)\];", source, re.S).group(1)
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', listed)) == CLUSTER_COLOURS
    assert re.search(r'export const SMALL_CLUSTER = "(#[0-9a-f]{6})"', source).group(1) == OTHER_COLOUR


def test_the_built_bundle_has_the_same_palette():
    bundle = (ROOT / "src/bib2graph/gui/static/assets/app.js").read_text(encoding="utf-8")
    quoted = ",".join(f"[`'\"]{c}[`'\"]" for c in CLUSTER_COLOURS)
    assert re.search(rf"\[{quoted}\]", bundle), "rebuild the GUI: make gui"
    assert OTHER_COLOUR in bundle
