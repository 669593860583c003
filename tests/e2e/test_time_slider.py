"""The map's time slider (issue 14): on a review with `time:` on, the slider steps through the slices of a
sliced network; each step shows exactly that slice's members, coloured by their cluster in the slice."""

from __future__ import annotations

from playwright.sync_api import expect, sync_playwright
import pytest

from tests.integration.conftest import copy_workspace

from .browser import gui_server, opened
from .test_gui import STATE_TIMEOUT, api

KIND = "keywords"

SHOWN = """() => {
  const s = window.__b2g.sigma, g = window.__b2g.graph;
  return g.nodes().filter((n) => !s.getNodeDisplayData(n).hidden).sort();
}"""
SHOWS_ALL = f"""(want) => {{
  const got = ({SHOWN})();
  return got.length === want.length && got.every((n, i) => n === want[i]);
}}"""
COLOURS = """() => {
  const s = window.__b2g.sigma, g = window.__b2g.graph, out = {};
  g.nodes().forEach((n) => { const d = s.getNodeDisplayData(n); if (!d.hidden) out[n] = d.color; });
  return out;
}"""


@pytest.mark.long
def test_time_slider_shows_each_slice(timed_demo, tmp_path):
    workspace = copy_workspace(timed_demo, tmp_path / "review")
    with gui_server(workspace, tmp_path / "gui.stderr") as server, sync_playwright() as playwright:
        url = server["url"]
        slices = api(url, f"api/networks/{KIND}/slices")["slices"]
        assert len(slices) >= 3
        with opened(playwright, url, STATE_TIMEOUT) as (page, errors):
            page.get_by_test_id("tab-map").click()
            page.get_by_test_id("network-select").select_option(KIND)
            stage = page.get_by_test_id("map")
            expect(stage).to_have_attribute("data-ready", "true")
            expect(stage).to_have_attribute("data-kind", KIND)
            slider, label = page.get_by_test_id("time-slider"), page.get_by_test_id("time-slice")
            expect(label).to_have_text("all years")
            everything = page.evaluate(SHOWN)
            for index, chosen in enumerate(slices):
                slider.fill(str(index))
                expect(label).to_have_text(f"{chosen['slice']} ({chosen['nodes']} nodes)")
                page.wait_for_function("name => window.__b2g.slice === name", arg=chosen["slice"])
                members = dict(chosen["members"])
                drawn = set(members) & set(everything)   # members the whole network also holds
                assert set(page.evaluate(SHOWN)) == drawn and drawn
                colours = page.evaluate(COLOURS)
                by_cluster: dict[int, set[str]] = {}
                for node, colour in colours.items():
                    by_cluster.setdefault(members[node], set()).add(colour)
                assert all(len(c) == 1 for c in by_cluster.values())   # one colour per slice cluster
            slider.fill("-1")
            expect(label).to_have_text("all years")
            page.wait_for_function(SHOWS_ALL, arg=everything)   # the label changes before sigma redraws
            assert page.evaluate(SHOWN) == everything
            assert errors == []
