"""The public side in Chromium, without signing in — on a phone (390 px) in Spanish and on a
desktop (1280 px) in English: the register of petitions and a petition, a district's page and
a published year, the district's data package downloaded and validated, and an owner's
estimate. Every page is checked (its language, no sideways scroll, no serious axe finding)
and photographed. Screenshots go to ``TID_SCREENSHOTS`` when set (tests/browser/harness.py)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from frictionless import validate
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    Checker,
    Site,
    new_page,
    screenshots_folder,
    set_language,
    shoot,
    t,
)
from tid.demo import ACCOUNT_DISTRICT

pytestmark = pytest.mark.xdist_group("public")


def _journey(page: Page, site: Site, language: str, checker: Checker, shots: Path) -> None:
    page.goto(site.base + "/publico")
    set_language(page, site, language)
    checker.check(page, "public index", language)
    shoot(page, shots, "public-index")
    main = page.locator("main")
    # the register of petitions and one petition
    main.locator('a[href^="/publico/municipios/"]').first.click()
    checker.check(page, "public register", language)
    shoot(page, shots, "public-register")
    main.get_by_role("link", name=ACCOUNT_DISTRICT).last.click()  # the one published
    expect(main.get_by_text(t(language, "Ordinance published"))).to_be_visible()
    checker.check(page, "public petition", language)
    shoot(page, shots, "public-petition")
    # the petition still before the legislature, past its clock: its badge fits a phone
    page.go_back()
    main.get_by_role("link", name=ACCOUNT_DISTRICT).first.click()
    expect(main.locator(".badge.bad")).to_be_visible()
    checker.check(page, "public petition past its clock", language)
    shoot(page, shots, "public-petition-past-its-clock")
    # a district and a year
    page.goto(site.base + "/publico")
    main.get_by_role("link", name=ACCOUNT_DISTRICT).click()
    expect(main.locator("svg.chart")).to_be_visible()
    checker.check(page, "public district", language)
    shoot(page, shots, "public-district")
    with page.expect_download() as download:
        main.get_by_role(
            "link", name=t(language, "Download the data (ZIP: CSV and datapackage.json)")
        ).click()
    archive = shots / f"data-{language}.zip"
    download.value.save_as(archive)
    folder = shots / f"data-{language}"
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(folder)
    report = validate(str(folder / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])
    main.get_by_role("link", name="2025-26").first.click()
    expect(main.get_by_role("heading", level=1)).to_contain_text("2025-26")
    checker.check(page, "public year", language)
    shoot(page, shots, "public-year")
    # the owner's estimate
    page.go_back()
    main.get_by_role("link", name=t(language, "Estimate your impost")).click()
    main.get_by_label(t(language, "assessed value").capitalize()).fill("250,000.00")
    main.get_by_label(t(language, "use class").capitalize()).select_option("hospederia")
    main.get_by_label(t(language, "rooms").capitalize()).fill("40")
    main.get_by_role("button", name=t(language, "Estimate")).click()
    expect(main.locator("#result-title")).to_contain_text("$3,725.00")
    checker.check(page, "public estimate", language)
    shoot(page, shots, "public-estimate")


def test_the_public_journey_on_a_phone_and_a_desktop(
    site: Site, browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shots = screenshots_folder(tmp_path_factory.mktemp("screenshots"))
    checker = Checker(shots)
    for width, language in ((390, "es"), (1280, "en")):
        context, page = new_page(browser, width, language)
        try:
            _journey(page, site, language, checker, shots)
        finally:
            context.close()
    assert checker.problems == []
