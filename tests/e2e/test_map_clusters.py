"""The map's cluster legend, cluster table and density view (issue 22, acceptance 3): the real `b2g gui` on
a copy of the built demo in headless Chromium. The legend lists each cluster's colour and label as the API
gives them and the nodes wear those colours; a legend entry picks its cluster (only its nodes shown) and
a second click clears it; the table lists each cluster's terms and works to read; the density view lays
the server's grid under the graph where sigma draws the grid's cells, following the camera. Every wait is
on the page's state, never a sleep."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page, expect, sync_playwright

from bib2graph.palette import cluster_colour

from .browser import gui_server, opened
from .test_gui import STATE_TIMEOUT, api
from .test_time_slider import COLOURS, SHOWN

KIND = "coupling"          # a document network of the demo with several clusters

pytestmark = pytest.mark.integration

LEGEND = """els => els.map((e) => ({cluster: Number(e.dataset.cluster), colour: e.dataset.colour,
  label: e.querySelector('[data-testid=legend-label]').textContent,
  size: Number(e.querySelector('[data-testid=legend-size]').textContent)}))"""
SHOWS = """ids => { const s = window.__b2g.sigma, g = window.__b2g.graph;
  const shown = g.nodes().filter((n) => !s.getNodeDisplayData(n).hidden).sort();
  return shown.length === ids.length && shown.every((n, i) => n === ids[i]); }"""
EDGES_SHOWN = """() => { const s = window.__b2g.sigma, g = window.__b2g.graph;
  return g.edges().filter((e) => !s.getEdgeDisplayData(e).hidden).length; }"""
# The density canvas's pixel drawn where sigma draws the centre of grid cell (row r from the bottom, column c)
PIXEL = """([r, c, lo, hi, n]) => {
  const s = window.__b2g.sigma, canvas = document.querySelector('[data-testid=density-layer]');
  const cell = (hi - lo) / n, p = s.graphToViewport({x: lo + (c + 0.5) * cell, y: lo + (r + 0.5) * cell});
  const stage = document.querySelector('[data-testid=map]').getBoundingClientRect();
  const box = canvas.getBoundingClientRect();
  const u = Math.floor((stage.left + p.x - box.left) / box.width * canvas.width);
  const v = Math.floor((stage.top + p.y - box.top) / box.height * canvas.height);
  return [u, v, ...canvas.getContext('2d').getImageData(u, v, 1, 1).data];
}"""
TOP = [253, 231, 37, 255]   # viridis at 1 (graph.ts), opaque
NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def open_map(page: Page) -> None:
    page.get_by_test_id("tab-map").click()
    page.get_by_test_id("network-select").select_option(KIND)
    stage = page.get_by_test_id("map")
    expect(stage).to_have_attribute("data-kind", KIND)
    expect(stage).to_have_attribute("data-ready", "true")


@pytest.mark.long
def test_legend_lists_the_clusters_and_picks_one(demo, tmp_path):
    with gui_server(demo, tmp_path / "gui.stderr") as server, sync_playwright() as playwright:
        network = api(server["url"], f"api/networks/{KIND}?edges=0")
        clusters = network["clusters"]
        members = {c["cluster"]: sorted(n["id"] for n in network["nodes"] if n["cluster"] == c["cluster"])
                   for c in clusters}
        assert len(clusters) >= 2 and all(c["colour"] == cluster_colour(c["cluster"]) for c in clusters)
        with opened(playwright, server["url"], STATE_TIMEOUT) as (page, errors):
            open_map(page)
            entries = page.locator('[data-testid^="legend-item-"]')
            expect(entries).to_have_count(len(clusters))
            assert entries.evaluate_all(LEGEND) == [
                {"cluster": c["cluster"], "colour": c["colour"], "label": c["label"] or "–", "size": c["size"]}
                for c in clusters]
            # each node wears its cluster's legend colour
            colours = page.evaluate(COLOURS)
            for c in clusters:
                assert {colours[n] for n in members[c["cluster"]]} == {c["colour"]}, c["cluster"]
            # the filter lists the labels too
            options = page.get_by_test_id("cluster-filter").locator("option").all_inner_texts()
            assert options[1:] == [f"{c['cluster']}: {c['label'] or ''} ({c['size']})" for c in clusters]

            everything = sorted(page.evaluate(SHOWN))
            picked = clusters[1]["cluster"]
            entry = page.get_by_test_id(f"legend-item-{picked}")
            entry.click()
            expect(entry).to_have_attribute("aria-pressed", "true")
            expect(page.get_by_test_id("cluster-filter")).to_have_value(str(picked))
            page.wait_for_function(SHOWS, arg=members[picked])
            assert members[picked] != everything
            entry.click()                                       # a second click clears it
            expect(entry).to_have_attribute("aria-pressed", "false")
            expect(page.get_by_test_id("cluster-filter")).to_have_value("")
            page.wait_for_function(SHOWS, arg=everything)
            page.get_by_test_id(f"legend-item-{clusters[0]['cluster']}").click()
            page.wait_for_function(SHOWS, arg=members[clusters[0]["cluster"]])
            page.get_by_test_id("legend-all").click()           # and so does "all"
            page.wait_for_function(SHOWS, arg=everything)

            # the cluster table: a row per cluster with its terms and the works to read first
            page.get_by_test_id("cluster-table-toggle").click()
            rows = page.get_by_test_id("cluster-row")
            expect(rows).to_have_count(len(clusters))
            for c, row in zip(clusters, rows.all()):
                assert row.get_attribute("data-cluster") == str(c["cluster"])
                expect(row.locator('[data-field="size"]')).to_have_text(str(c["size"]))
                terms = row.get_by_test_id("cluster-term")
                expect(terms).to_have_count(len(c["terms"]))
                shown_scores = terms.evaluate_all("els => els.map((e) => e.dataset.score)")
                assert [float(s) if s else None for s in shown_scores] == [t["score"] for t in c["terms"]]
                assert row.get_by_test_id("cluster-central").evaluate_all("els => els.map((e) => e.dataset.id)") \
                    == [w["node_id"] for w in c["central"]]
                assert row.get_by_test_id("cluster-cited").evaluate_all("els => els.map((e) => e.dataset.id)") \
                    == [w["node_id"] for w in c["cited"]]
            listing = [i for i, c in enumerate(clusters) if c["central"]]
            assert listing, "no cluster lists its most central works"
            rows.nth(listing[0]).get_by_test_id("cluster-central").first.get_by_role("button").click()
            expect(page.get_by_test_id("details")).to_have_attribute(
                "data-id", clusters[listing[0]]["central"][0]["node_id"])
            assert not errors, errors


@pytest.mark.long
def test_density_view_lays_the_grid_under_the_graph(demo, tmp_path):
    with gui_server(demo, tmp_path / "gui.stderr") as server, sync_playwright() as playwright:
        grid = api(server["url"], f"api/networks/{KIND}/density?metric=strength")
        values = np.array(grid["values"])
        n, (lo, hi) = grid["size"], grid["extent"]
        assert values.shape == (n, n) and values.max() == 1.0 and values.min() >= 0.0 and lo < hi
        assert grid["weighted"] is True and grid["nodes"] > 0
        r, c = (int(i) for i in np.unravel_index(values.argmax(), values.shape))
        assert values[n - 1 - r, c] < 0.9        # the grid upside down would not show its peak there
        with opened(playwright, server["url"], STATE_TIMEOUT) as (page, errors):
            open_map(page)
            assert page.evaluate(EDGES_SHOWN) > 0
            page.get_by_test_id("overlay-density").check()
            layer = page.get_by_test_id("density-layer")
            expect(layer).to_be_visible()
            expect(layer).to_have_attribute("data-metric", "strength")
            expect(layer).to_have_attribute("data-size", str(n))
            expect(layer).to_have_attribute("data-placed", "true")
            expect(page.get_by_test_id("legend")).to_have_count(0)
            page.wait_for_function(f"() => ({EDGES_SHOWN})() === 0")   # the density alone, no links
            u, v, *pixel = page.evaluate(PIXEL, [r, c, lo, hi, n])
            assert 0 <= u < n and 0 <= v < n and pixel == TOP, (u, v, pixel)
            # zoomed in, the grid follows the camera
            page.get_by_role("button", name="Zoom in").click()
            page.wait_for_function("() => Math.abs(window.__b2g.sigma.getCamera().ratio - 1 / 1.5) < 1e-9")
            page.evaluate(NEXT_FRAMES)                       # sigma renders the last camera state
            u, v, *pixel = page.evaluate(PIXEL, [r, c, lo, hi, n])
            assert pixel == TOP, (u, v, pixel)
            # another size metric, another grid
            page.get_by_test_id("size-metric").select_option("pagerank")
            expect(layer).to_have_attribute("data-metric", "pagerank")
            page.get_by_test_id("overlay-clusters").check()
            expect(layer).to_have_count(0)
            expect(page.get_by_test_id("legend")).to_be_visible()
            page.wait_for_function(f"() => ({EDGES_SHOWN})() > 0")
            assert not errors, errors
