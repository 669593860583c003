"""The screening view end to end (issue 21, acceptance 4): the real `b2g gui` on a copy of the built
demo (SYNERGY's Sep_2021 works), driven in headless Chromium by the keyboard alone. A reviewer screens 20
works as the review's labels say (A accept, R + reason + Enter reject) and sees the queue ranked by the
model once there is an exclude, the order change after decisions, why each work ranks where it does, and
the stopping rule's verdict. Every wait is on the page's state, never a sleep."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from bib2graph import curation

from .browser import gui_server, opened
from .test_gui import STATE_TIMEOUT, api

LABELS = Path(__file__).resolve().parents[2] / "src/bib2graph/data/synergy/Sep_2021/labels.csv"
SCREENED = 20

pytestmark = pytest.mark.integration


def labels() -> dict[str, int]:
    with LABELS.open(encoding="utf-8") as handle:
        return {row["openalex_id"].rsplit("/", 1)[-1]: int(row["label_included"]) for row in csv.DictReader(handle)}


def shown(page: Page) -> list[str]:
    """The work on screen and the next ones listed, in the order the page shows them."""
    first = page.get_by_test_id("candidate").get_attribute("data-id")
    return [first] + page.locator('[data-testid="queue-next"] li').evaluate_all("els => els.map(e => e.dataset.id)")


@pytest.mark.long
def test_screen_twenty_by_keyboard_and_the_queue_learns(demo, tmp_path):
    truth = labels()
    with gui_server(demo, tmp_path / "gui.stderr") as server, sync_playwright() as playwright:
        url = server["url"]
        with opened(playwright, url, STATE_TIMEOUT) as (page, errors):
            page.get_by_test_id("tab-screening").click()
            candidate, notice = page.get_by_test_id("candidate"), page.get_by_test_id("screening-notice")
            order = page.get_by_test_id("queue-order-by")
            expect(candidate).to_have_attribute("data-id", re.compile(r"^W\d+$"))
            expect(order).to_have_attribute("data-by", "work_id")          # seeds are includes, no exclude yet
            before = shown(page)
            assert before == sorted(before)
            expect(page.get_by_test_id("stopping-head")).to_have_text("Keep screening")
            # the verdict's own first phrase is the heading, said once
            assert page.get_by_test_id("stopping").inner_text().lower().count("keep screening") == 1

            changed = 0
            decided: dict[str, str] = {}
            for step in range(SCREENED):
                page.wait_for_function("() => document.querySelector('[data-testid=screening]').dataset.busy === 'false'")
                seen = shown(page)
                work = seen[0]
                if truth.get(work, 0):
                    page.keyboard.press("a")
                    decided[work] = "accept"
                else:
                    page.keyboard.press("r")
                    expect(page.get_by_test_id("reason-input")).to_be_focused()
                    page.keyboard.type("off topic")
                    page.keyboard.press("Enter")
                    decided[work] = "reject"
                expect(notice).to_contain_text(f"{decided[work]}ed {work}")
                expect(candidate).not_to_have_attribute("data-id", work)
                page.wait_for_function("() => document.querySelector('[data-testid=screening]').dataset.busy === 'false'")
                after = shown(page)
                # the order changed beyond the decided work leaving the top: the model re-ranked
                changed += after[:len(seen) - 2] != [w for w in seen if w != work][:len(seen) - 2]
                if step == 0 and decided[work] == "reject":
                    expect(order).to_have_attribute("data-by", "model")

            expect(order).to_have_attribute("data-by", "model")
            assert changed >= 1
            final = shown(page)
            assert final != sorted(final)                                  # not in work ID order
            ranked = [w["work_id"] for w in api(url, f"api/queue?limit={len(final)}")["works"]]
            assert final == ranked                                          # the page shows the model's order
            why = page.get_by_test_id("why-ranked")
            expect(why).to_be_visible()
            expect(page.get_by_test_id("why-terms")).not_to_be_empty()
            stop = page.get_by_test_id("stopping")
            expect(stop).to_contain_text(f"{SCREENED} of")
            expect(stop).to_have_attribute("title", re.compile("hypergeometric"))
            expect(page.get_by_test_id("pending-count")).to_have_text(str(api(url, "api/queue?limit=1")["pending"]))

            recorded = curation.read(demo / "config/curation.tsv")
            assert {w: d.decision for w, d in recorded.items() if d.decided_by == "gui"} == decided
            assert len(decided) == SCREENED
            assert not errors, errors
