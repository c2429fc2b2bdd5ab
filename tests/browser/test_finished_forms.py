"""Forms that check at their fields, in Chromium: the billing form refuses a year without a
roll beside the field, the owner's empty form asks for its two fields, a payment like one
booked asks for confirmation, a refused file lists its rows, an ordinance's formula is
checked and corrected and the billed year is billed again, the run's job counting in words
and its finished page showing the result. Each page is checked (language, no sideways
scroll, axe) and photographed at 390 and 1280 px, in Spanish and in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    ASSOCIATION,
    CLERK,
    TREASURER,
    WIDTHS,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    shoot,
    t,
)

pytestmark = pytest.mark.xdist_group("finished-forms")

OTHER = {390: 1280, 1280: 390}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return screenshots_folder(tmp_path_factory.mktemp("finished-forms"))


class Tab:
    """One user's tab in one language: each page it reaches checked, and photographed at
    its width and at the other."""

    def __init__(self, page: Page, site: Site, checker: Checker, language: str, name: str):
        self.page, self.site, self.checker, self.language, self.name = (
            page,
            site,
            checker,
            language,
            name,
        )

    def t(self, msgid: str) -> str:
        return t(self.language, msgid)

    def look(self, what: str) -> None:
        self.page.wait_for_load_state()
        self.checker.check(self.page, what, self.language)
        width = self.page.viewport_size["width"] if self.page.viewport_size else 390
        shoot(self.page, self.checker.folder, f"{self.name}-{what}")
        self.page.set_viewport_size(WIDTHS[OTHER[width]])
        self.checker.check(self.page, what, self.language)
        shoot(self.page, self.checker.folder, f"{self.name}-{what}")
        self.page.set_viewport_size(WIDTHS[width])

    def go(self, path: str) -> None:
        self.page.goto(self.site.base + path)

    def send(self, form: str) -> None:
        """Send the form ``form`` (a CSS selector) by its submit button; wait for the answer."""
        with self.page.expect_navigation():
            self.page.locator(form).locator("button[type=submit], button:not([type])").first.click()


def _tab(
    browser: Browser, logins: Logins, site: Site, checker: Checker, who: str | None, language: str
) -> Tab:
    width = 390 if language == "es" else 1280
    _context, page = new_page(browser, width, language, logins.state(who, language))
    return Tab(page, site, checker, language, f"{(who or 'owner').split('@')[0]}-{language}")


def test_forms_check_at_their_fields_and_a_formula_is_corrected(
    site: Site, browser: Browser, folder: Path
) -> None:
    checker = Checker(folder)
    logins = Logins(site)
    for language in ("es", "en"):
        # The owner's empty form: both fields named, no try spent.
        owner = _tab(browser, logins, site, checker, None, language)
        owner.go("/portal")
        owner.send("main form")
        expect(owner.page.locator("#e-number")).to_be_visible()
        expect(owner.page.locator("#e-code")).to_be_visible()
        owner.look("portal-empty")
        # Billing a year without a roll: refused beside the fiscal year, no job.
        association = _tab(browser, logins, site, checker, ASSOCIATION, language)
        association.go("/roll/1/billing/new")
        association.page.fill("[name=fiscal_year]", "2026-27")
        association.send("form[data-job-form]")
        expect(association.page.locator("#e-fiscal_year")).to_be_visible()
        association.look("billing-no-roll")
        # A payment like one booked: it asks, naming the earlier one.
        treasurer = _tab(browser, logins, site, checker, TREASURER, language)
        treasurer.go("/account/3/payments")
        form = "main form.narrow >> nth=0"
        for name, value in (
            ("date", "2025-09-01"),
            ("amount", "1580.00"),
            ("reference", "CDO-9000"),
            ("notice_number", "2025-000001"),
        ):
            treasurer.page.fill(f"{form} >> [name={name}]", value)
        treasurer.send(form)
        expect(treasurer.page.locator("#e-confirm_repeat")).to_contain_text("CDO-9000")
        treasurer.look("payment-repeat")
        # A refused file: its errors row by row beside its form.
        treasurer.go("/notices")
        bad = b"9400111111111111111111,delivered,2025-07-25\n2025-000001,lost,2025-07-25\n"
        treasurer.page.set_input_files(
            "#f-deliveries", {"name": "deliveries.csv", "mimeType": "text/csv", "buffer": bad}
        )
        treasurer.send("form:has(#f-deliveries)")
        rows = treasurer.page.locator("#e-deliveries tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_contain_text("2025-000001")
        treasurer.look("deliveries-refused")
        # The ordinance form checks the formula against the roll's columns.
        clerk = _tab(browser, logins, site, checker, CLERK, language)
        clerk.go("/petitions/1/ordinance")
        clerk.page.fill("[name=formula]", "max(250, 0.0035 * valor_tasadoo)")
        clerk.send("main form")
        expect(clerk.page.locator("#e-formula")).to_contain_text("valor_tasadoo")
        clerk.look("ordinance-formula")
    _correct_and_bill_again(browser, logins, site, checker)
    assert not checker.problems, "\n".join(checker.problems)


def _correct_and_bill_again(browser: Browser, logins: Logins, site: Site, checker: Checker) -> None:
    """The clerk corrects Condado's formula; the billed year is named; its association
    bills it again and the job's page shows the result, not the form."""
    clerk = _tab(browser, logins, site, checker, CLERK, "es")
    clerk.go("/petitions/4/correct")
    clerk.page.select_option("#f-correct-field", "formula")
    clerk.page.fill("#f-correct-value", "max(80.00, 0.0125 * assessed_value)")
    clerk.page.fill("[name=reason]", "La ordenanza dice 80 dólares.")
    clerk.send("main form")
    expect(clerk.page.locator("#rebill")).to_contain_text("2025-26")
    clerk.look("petition-rebill")
    english = _tab(browser, logins, site, checker, CLERK, "en")
    english.go("/petitions/4/correct")
    english.look("correct-form")
    english.go("/petitions/4")
    english.look("petition-rebill")
    for language in ("en", "es"):
        treasurer = _tab(browser, logins, site, checker, TREASURER, language)
        treasurer.go("/roll/3/billing/1")
        if language == "en":
            expect(treasurer.page.locator("#stale")).to_be_visible()
            treasurer.look("run-stale")
            continue
        treasurer.look("run-stale")
        treasurer.page.locator("a.button", has_text=treasurer.t("Run again (correct)")).click()
        treasurer.page.wait_for_load_state()
        treasurer.page.fill("[name=reason]", "Fórmula corregida por la Secretaría.")
        treasurer.send("form[data-job-form]")
        result = treasurer.page.locator("a.job-result")
        expect(result).to_be_visible(timeout=120_000)
        expect(treasurer.page.locator("[name=fiscal_year]")).to_have_count(0)
        treasurer.look("billing-done")
        assert re.search(r"job=\d+", treasurer.page.url)
