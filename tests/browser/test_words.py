"""The pages that name records, as a browser lays them out: a record's history fits the
desktop page (a fingerprint or a list of notice numbers wraps in its cell, never past the
page), and on a phone a journal entry is one card holding its lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.harness import (
    AUDITOR,
    Site,
    log_in,
    new_page,
    screenshots_folder,
    shoot,
)
from tid.demo import ACCOUNT_USER

pytestmark = pytest.mark.xdist_group("words")


def test_a_history_fits_the_page_and_a_journal_entry_is_one_card(
    site: Site, browser: Browser, tmp_path: Path
) -> None:
    folder = screenshots_folder(tmp_path)
    context, page = new_page(browser, 1280, "es")
    log_in(page, site, AUDITOR, "es")
    page.goto(f"{site.base}/audit/notice_batch/1")
    assert page.get_by_role("heading", level=1).inner_text().endswith("Tanda de avisos 1")
    width = page.evaluate("document.documentElement.scrollWidth")
    shoot(page, folder, "history")
    assert width <= 1280, f"the history is {width} px wide at 1280 px"
    context.close()

    context, page = new_page(browser, 390, "en")
    log_in(page, site, ACCOUNT_USER, "en")
    page.get_by_role("link", name="Special account").first.click()
    page.get_by_role("link", name="Journal").first.click()
    # the click returns once the journal's address is committed, not once it is parsed: wait
    # for the page (a state), then for an entry and its second line
    page.wait_for_load_state()
    entry = page.locator("tbody.entry").first
    rows = entry.locator("tr")
    expect(rows.nth(1)).to_be_attached()
    card = entry.bounding_box()
    assert card is not None
    for i in range(rows.count()):
        row = rows.nth(i).bounding_box()
        assert row is not None
        # every line inside the entry's one card (its border around them all)
        assert card["y"] <= row["y"] and row["y"] + row["height"] <= card["y"] + card["height"]
    border = entry.evaluate("e => getComputedStyle(e).borderTopStyle")
    assert border == "solid"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, folder, "journal")
    context.close()
