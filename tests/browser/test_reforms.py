"""A reform of the Equalization Fund in Chromium: the clerk writes one (a wrong value first,
refused next to its field), saves it, and another person — not signed in, in the other
language, at the other width — opens its address, the fund municipality by municipality and
the reform note. Key pages photographed at 390 px in Spanish and 1280 px in English
(``TID_SCREENSHOTS`` to keep them); every page checked as tests/browser/harness.py does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.harness import (
    CLERK,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    shoot,
    t,
)
from tid.rules import fund_example

pytestmark = pytest.mark.xdist_group("reforms")

LOTTERY = "equalization.lottery_share_rate"
THRESHOLD = "equalization.hold_harmless.threshold"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return screenshots_folder(tmp_path_factory.mktemp("screenshots"))


def test_a_reform_of_the_fund_is_built_and_opened_by_anyone(
    site: Site, browser: Browser, folder: Path
) -> None:
    checker = Checker(folder)
    logins = Logins(site)
    # The clerk, on a phone, in Spanish.
    context, page = new_page(browser, 390, "es", logins.state(CLERK, "es"))
    page.goto(site.base + "/reforms/new")
    page.get_by_label(t("es", "Title")).fill("Lotería al 40 % y garantía desde el 45 %")
    page.get_by_label(t("es", "Description")).fill(
        "Más de la Lotería para el fondo; más municipios protegidos."
    )
    page.select_option("#f-change-0-parameter", LOTTERY)
    page.fill("#f-change-0-from", "2025-07-01")
    page.fill("#f-change-0-value", "1.40")
    page.select_option("#f-change-1-parameter", THRESHOLD)
    page.fill("#f-change-1-from", "2025-07-01")
    page.fill("#f-change-1-value", "0.45")
    page.get_by_role("button", name=t("es", "Save the reform")).click()
    # Refused next to the field that is wrong, naming the parameter by its description (its
    # code in small print beside the field); nothing saved.
    expect(page.locator("#e-change-0-value")).to_contain_text(
        t("es", "Share of the Additional Lottery System's annual net income for the fund")
    )
    expect(page.locator("#e-change-0-value")).not_to_contain_text(LOTTERY)
    expect(page.locator("small.code-name code").first).to_have_text(LOTTERY)
    expect(page.locator(".error-summary")).to_be_visible()
    checker.check(page, "reform editor refused", "es")
    shoot(page, folder, "reform-editor-refused")
    page.fill("#f-change-0-value", "0.40")
    page.get_by_role("button", name=t("es", "Save the reform")).click()
    expect(page).to_have_url(re.compile(r"/reforms/[A-Za-z0-9_-]{12}$"))
    address = page.url
    expect(page.locator("h1")).to_have_text("Lotería al 40 % y garantía desde el 45 %")
    expect(page.locator("main")).to_contain_text("35 %")
    checker.check(page, "reform", "es")
    shoot(page, folder, "reform")
    context.close()

    # Someone else, not signed in, on a desktop, in English, with the address alone.
    context, page = new_page(browser, 1280, "en", logins.state(None, "en"))
    page.goto(address)
    expect(page.locator("h1")).to_have_text("Lotería al 40 % y garantía desde el 45 %")
    expect(page.locator("main")).not_to_contain_text(CLERK)
    checker.check(page, "reform", "en")
    shoot(page, folder, "reform")
    page.get_by_role("link", name="The Equalization Fund, municipality by municipality").click()
    expect(page.locator("main")).to_contain_text("Invented figures.")
    rows = page.locator("#side-by-side tbody tr")
    expect(rows).to_have_count(len(fund_example.MUNICIPALITIES))
    expect(page.locator("#side-by-side")).to_contain_text("held harmless under the reform only")
    # Sorted by name, then by the largest loss first.
    page.locator("#side-by-side thead").get_by_role("link", name="Municipality").click()
    expect(rows.first.locator("th")).to_contain_text("Adjuntas")
    checker.check(page, "fund by municipality", "en")
    shoot(page, folder, "reform-fund")
    with page.expect_download() as download:
        page.goto(address)
        page.get_by_role("link", name="Download the reform note (PDF)").click()
    download.value.save_as(folder / "reform-note-en.pdf")
    context.close()

    # The fund on a phone, in Spanish, not signed in.
    context, page = new_page(browser, 390, "es", logins.state(None, "es"))
    page.goto(address + "/fund")
    expect(page.locator("main")).to_contain_text("Cifras inventadas.")
    checker.check(page, "fund by municipality", "es")
    shoot(page, folder, "reform-fund")
    context.close()
    assert not checker.problems, "\n".join(checker.problems)
