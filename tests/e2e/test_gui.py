"""The GUI end to end (issue 10, acceptance 1): the real `b2g gui` on a copy of the built demo, driven in
headless Chromium. Search a work and open its details, ask why it is linked to a neighbour, reject it
from the screening view with a reason (undo withdraws it, then reject again), run the pipeline from the
overview, and see the corpus shrink and the work leave the map. Every wait is on the page's state (Playwright's auto-waiting `expect`),
never a sleep. A screenshot of the map is kept in the test's folder and in .artifacts/gui-map.png."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect, sync_playwright

from bib2graph.export.common import doi_url
from tests.integration.conftest import keep_networks

from .browser import gui_server, opened

ROOT = Path(__file__).resolve().parents[2]
KIND = "coupling"          # the network of the corpus works: a rejected work leaves it
RUN_TIMEOUT = 180_000      # ms: the run redoes the corpus and one network on a loaded machine
# ms a state may take to show: the status runs Snakemake's planner, seconds on a busy machine (a wait
# ends as soon as the state shows; only a failure waits this long)
STATE_TIMEOUT = 60_000
REASON = "off topic (e2e)"

pytestmark = pytest.mark.integration


def api(url: str, path: str) -> dict:
    """One read through the API, as the page makes it: the token as a Bearer header."""
    base, token = url.split("/?token=")
    response = httpx.get(f"{base}/{path}", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def pick_work(url: str) -> dict:
    """A pending candidate that is on the map with at least one link: the work the test follows."""
    queue = api(url, "api/queue?limit=200")["works"]
    network = api(url, f"api/networks/{KIND}?edges=200000")
    linked = {e["source"] for e in network["edges"]} | {e["target"] for e in network["edges"]}
    for position, work in enumerate(queue):
        if work["work_id"] in linked and work["title"] and "<" not in work["title"] and work["doi"]:
            return {**work, "position": position}
    raise AssertionError(f"no pending work of the demo is linked in the {KIND} network")


def on_map(page: Page, work_id: str) -> bool:
    return page.evaluate("id => !!(window.__b2g && window.__b2g.graph && window.__b2g.graph.hasNode(id))", work_id)


@pytest.mark.long
def test_search_explain_reject_run(demo, tmp_path):
    keep_networks(demo, KIND)  # one network to rebuild: the run stays short
    with gui_server(demo, tmp_path / "gui.stderr") as server, sync_playwright() as playwright:
        url = server["url"]
        work = pick_work(url)
        with opened(playwright, url, STATE_TIMEOUT) as (page, errors):

            # the overview reads the status: the corpus count before
            corpus = page.get_by_test_id("count-corpus")
            expect(corpus).to_have_text(re.compile(r"^\d+$"))
            before = int(corpus.inner_text())

            # the map: search the work by its title, open its details
            page.get_by_test_id("tab-map").click()
            page.get_by_test_id("network-select").select_option(KIND)
            stage = page.get_by_test_id("map")
            expect(stage).to_have_attribute("data-ready", "true")
            expect(stage).to_have_attribute("data-kind", KIND)
            said = json.loads((demo / f"results/networks/{KIND}/stability/stability.json").read_text())["reproducibility"]
            expect(page.get_by_test_id("reproducibility")).to_have_text(said)   # the clusters' stability, in words
            assert on_map(page, work["work_id"])
            page.get_by_test_id("search-input").fill(" ".join(work["title"].split()[:8]))
            page.locator(f'[data-testid="search-hit"][data-id="{work["work_id"]}"]').click()
            details = page.get_by_test_id("details")
            expect(details).to_have_attribute("data-id", work["work_id"])
            expect(page.get_by_test_id("details-title")).to_have_text(work["title"])
            expect(page.get_by_test_id("openalex-link")).to_have_attribute(
                "href", f"https://openalex.org/{work['work_id']}")
            expect(page.get_by_test_id("doi-link")).to_have_attribute("href", doi_url(work["doi"]))  # as exports link
            expect(details).to_have_attribute("data-on-map", "true")

            # why linked: the documents behind its strongest link
            page.get_by_test_id("why-linked").first.click()
            evidence = page.get_by_test_id("evidence")
            expect(evidence.get_by_test_id("evidence-doc").first).to_be_visible()
            assert int(evidence.get_attribute("data-count")) >= 1

            # screening: skip to the work (S), reject it (R) with a reason
            page.get_by_test_id("tab-screening").click()
            candidate = page.get_by_test_id("candidate")
            expect(candidate).to_have_attribute("data-id", re.compile(r"^W\d+$"))
            for _ in range(work["position"]):
                current = candidate.get_attribute("data-id")
                page.keyboard.press("s")
                expect(candidate).not_to_have_attribute("data-id", current)
            expect(candidate).to_have_attribute("data-id", work["work_id"])
            expect(page.get_by_test_id("why-here")).not_to_be_empty()
            expect(page.get_by_test_id("screening")).to_have_attribute("data-busy", "false")
            page.keyboard.press("r")
            page.get_by_test_id("reason-input").fill(REASON)
            page.get_by_test_id("reason-confirm").click()
            expect(page.get_by_test_id("screening-notice")).to_contain_text(f"rejected {work['work_id']}")
            expect(candidate).not_to_have_attribute("data-id", work["work_id"])
            # undo (U) brings it back and withdraws the decision: pending again, no row in curation.tsv
            pending = int(page.get_by_test_id("pending-count").inner_text())
            page.keyboard.press("u")
            expect(candidate).to_have_attribute("data-id", work["work_id"])
            expect(page.get_by_test_id("screening-notice")).to_contain_text("withdrawn")
            expect(page.get_by_test_id("pending-count")).to_have_text(str(pending + 1))
            decisions = (demo / "config/curation.tsv").read_text(encoding="utf-8")
            assert not re.search(rf"^{work['work_id']}\t", decisions, re.M), decisions
            expect(page.get_by_test_id("screening")).to_have_attribute("data-busy", "false")   # R waits for the re-rank
            page.keyboard.press("r")                                  # and reject it for good
            page.get_by_test_id("reason-input").fill(REASON)
            page.get_by_test_id("reason-confirm").click()
            expect(page.get_by_test_id("pending-count")).to_have_text(str(pending))
            expect(candidate).not_to_have_attribute("data-id", work["work_id"])
            decisions = (demo / "config/curation.tsv").read_text(encoding="utf-8")
            assert re.search(rf"^{work['work_id']}\treject\t{re.escape(REASON)}\t", decisions, re.M), decisions

            # the overview: corpus and what follows are stale; run up to the networks
            page.get_by_test_id("tab-overview").click()
            expect(page.get_by_test_id("phase-corpus")).to_have_attribute("data-state", "stale")
            expect(page.get_by_test_id("phase-networks")).to_have_attribute("data-state", "stale")
            page.get_by_test_id("run-target").select_option("networks")
            page.get_by_test_id("run-button").click()
            run_state = page.get_by_test_id("run-state")
            expect(run_state).to_have_attribute("data-state", re.compile("succeeded|failed|cancelled"),
                                                timeout=RUN_TIMEOUT)
            job = api(url, "api/run")["job"]                           # the run as the server tells it
            assert job["state"] == "succeeded", (job["result"], job["log"][-40:])
            expect(run_state).to_have_attribute("data-state", "succeeded")
            expect(corpus).to_have_text(str(before - 1))
            expect(page.get_by_test_id("phase-corpus")).to_have_attribute("data-state", "complete")

            # the map again: the work is gone
            page.get_by_test_id("tab-map").click()
            expect(stage).to_have_attribute("data-ready", "true")
            expect(stage).to_have_attribute("data-kind", KIND)
            page.wait_for_function("id => window.__b2g.ready && window.__b2g.graph && !window.__b2g.graph.hasNode(id)",
                                   arg=work["work_id"])
            assert int(stage.get_attribute("data-nodes")) >= 1
            shot = tmp_path / "gui-map.png"
            page.screenshot(path=str(shot))
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            artifacts = ROOT / ".artifacts"
            artifacts.mkdir(exist_ok=True)
            shutil.copyfile(shot, artifacts / "gui-map.png")
            assert not errors, errors
