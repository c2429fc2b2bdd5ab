"""The formula studio in Chromium: the clerk studies two formula variants on the demo's
roll (the Condado's) for the Condado petition under study, and saves the study with the
petition; its report is the archived PDF the petition's page links to. In Spanish at
1280 px, its pages photographed at 1280 and 390 px, then read again in English.

Its own demo and browser (xdist group "studio"); screenshots under the module's tmp dir,
or ``TID_SCREENSHOTS`` when set."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.harness import (
    CLERK,
    DESKTOP,
    PHONE,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    shoot,
    t,
)
from tid.demo.petitions import CONDADO

pytestmark = pytest.mark.xdist_group("studio")

PROPOSED = "max(100.00, 0.015 * assessed_value)"
BY_VALUE = "expected_amount * assessed_value / sum(assessed_value)"


def test_a_clerk_studies_two_variants_and_saves_the_report_with_the_petition(
    site: Site, browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = screenshots_folder(tmp_path_factory.mktemp("screenshots"))
    checker = Checker(folder)
    logins = Logins(site)
    context, page = new_page(browser, 1280, "es", logins.state(CLERK, "es"))
    try:
        page.goto(site.base + "/petitions/")
        page.get_by_role("link", name=CONDADO).first.click()
        page.get_by_role("link", name=t("es", "Try formulas on the roll")).click()
        checker.check(page, "studio", "es")
        main = page.locator("main")
        # The form opens on the Condado's roll with the formula in force as a start.
        expect(main.get_by_label(t("es", "Roll to try the formulas on"))).to_contain_text("Condado")
        first = main.locator("fieldset").nth(1)
        first.get_by_label(t("es", "Name")).fill("Propuesta de la petición")
        first.get_by_label(t("es", "Formula")).fill(PROPOSED)
        second = main.locator("fieldset").nth(2)
        second.get_by_label(t("es", "Name")).fill("Reparto por valor tasado")
        second.get_by_label(t("es", "Formula")).fill(BY_VALUE)
        main.get_by_label(t("es", "Title of the study (to save it)")).fill(
            "Estudio para la vista pública"
        )
        main.get_by_role("button", name=t("es", "Try the formulas")).click()
        expect(page.locator("#compare-1-h")).to_be_visible()
        checker.check(page, "studio-result", "es")
        expect(main).to_contain_text("Reparto por valor tasado")
        shoot(page, folder, "studio-result")
        page.set_viewport_size(PHONE)
        checker.check(page, "studio-result", "es")
        shoot(page, folder, "studio-result")
        page.set_viewport_size(DESKTOP)
        main.get_by_role("button", name=t("es", "Save the study with the petition")).click()
        # saved by a job: its page shows the progress, then the study
        page.locator("a.job-result").click(timeout=120_000)
        expect(page.locator("h1")).to_have_text("Estudio para la vista pública")
        checker.check(page, "study", "es")
        shoot(page, folder, "study")
        report = page.locator("main a", has_text=t("es", "Study report (PDF)")).first
        pdf = page.request.get(site.base + str(report.get_attribute("href")))
        assert pdf.ok and pdf.body().startswith(b"%PDF")
        (folder / "study-report-es.pdf").write_bytes(pdf.body())
        # The petition's page lists the study and links its archived report.
        page.get_by_role("link", name=CONDADO).first.click()
        studies = page.locator("#studies + table")
        expect(studies).to_contain_text("Estudio para la vista pública")
        expect(studies.get_by_role("link", name=t("es", "Study report (PDF)"))).to_be_visible()
        study_url = site.base + str(
            studies.get_by_role("link", name="Estudio para la vista pública").get_attribute("href")
        )
    finally:
        context.close()
    # Read again in English, at both widths.
    context, page = new_page(browser, 390, "en", logins.state(CLERK, "en"))
    try:
        page.goto(study_url)
        checker.check(page, "study", "en")
        expect(page.locator("main")).to_contain_text("who pays more, who pays less")
        shoot(page, folder, "study")
        page.set_viewport_size(DESKTOP)
        shoot(page, folder, "study")
    finally:
        context.close()
    assert not checker.problems, "\n".join(checker.problems)
    assert Path(folder / "study-report-es.pdf").stat().st_size > 10_000
