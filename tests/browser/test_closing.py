"""The closing in Chromium: the treasurer issues a payoff quote good through a day, a title
company (no login) verifies it by its code and by uploading its PDF, the payment settles it in
one entry, the release is issued and verified, a change of owner sends the next notice to
the new owner; and the owner's portal shows the property's account across the years, and
takes an email address for the notices' copies (a bad one said beside its field). Key
pages photographed at 390 and 1280 px, in Spanish and English (tests/browser/harness.py)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from tests.browser.harness import (
    PHONE,
    TREASURER,
    WIDTHS,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    set_language,
    shoot,
    t,
)
from tid.app_reader import today
from tid.db import get_session
from tid.demo import ACCOUNT_DISTRICT
from tid.models import District
from tid.services.liens import impost_lien as liens

pytestmark = pytest.mark.xdist_group("closing")


def _late_property(site: Site) -> tuple[int, int, str]:
    """The treasurer's district, one of its delinquent properties, and today + 20 days."""
    with site.app.app_context():
        db = get_session()
        district = db.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
        rows = liens.delinquency(session=db, district_id=district.id or 0, today=today())
        assert rows, "the demo's treasurer has no delinquent property"
        return district.id or 0, rows[0].property.id, (today() + timedelta(days=20)).isoformat()


def _both_widths(page: Page, folder: Path, name: str, checker: Checker, language: str) -> None:
    """The page checked and photographed at its width, then at the other one (and back)."""
    current = (page.viewport_size or PHONE)["width"]
    for width in (current, 1280 if current == 390 else 390):
        page.set_viewport_size(WIDTHS[width])
        checker.check(page, name, language)
        shoot(page, folder, name)
    page.set_viewport_size(WIDTHS[current])


def test_the_closing_journey(site: Site, browser: Browser, tmp_path: Path) -> None:
    folder = screenshots_folder(tmp_path / "screenshots")
    checker = Checker(folder)
    logins = Logins(site)
    district, prop, through = _late_property(site)
    treasurer, desk = new_page(browser, 1280, "en", logins.state(TREASURER, "en"))
    public, phone = new_page(browser, 390, "es", logins.state(None, "es"))
    try:
        # The treasurer issues a quote good through a day.
        desk.goto(f"{site.base}/account/{district}/properties/{prop}/payoff")
        desk.get_by_label("Good through").fill(through)
        desk.get_by_role("button", name="Issue the quote").click()
        expect(desk.locator("h1")).to_contain_text("Payoff quote P-")
        _both_widths(desk, folder, "payoff-quote", checker, "en")
        code = desk.locator("dd code").inner_text()
        pdf_url = desk.get_by_role("link", name="The PDF as issued").get_attribute("href")
        pdf = treasurer.request.get(site.base + str(pdf_url)).body()
        (folder / "payoff.pdf").write_bytes(pdf)
        # A title company, without a login, verifies it by its code and by its PDF.
        phone.goto(f"{site.base}/verificar")
        phone.get_by_label(t("es", "Verification code")).fill(code.lower())
        phone.get_by_role("button", name=t("es", "Verify"), exact=True).click()
        expect(phone.locator("h1")).to_have_text(t("es", "Authentic document"))
        phone.set_input_files(
            "#f-pdf",
            files=[{"name": "cotizacion.pdf", "mimeType": "application/pdf", "buffer": pdf}],
        )
        phone.get_by_role("button", name=t("es", "Check the file")).click()
        expect(phone.locator("main")).to_contain_text("byte a byte")
        _both_widths(phone, folder, "verify-quote", checker, "es")
        changed = bytearray(pdf)
        changed[len(changed) // 2] ^= 1
        phone.set_input_files(
            "#f-pdf",
            files=[{"name": "otra.pdf", "mimeType": "application/pdf", "buffer": bytes(changed)}],
        )
        phone.get_by_role("button", name=t("es", "Check the file")).click()
        expect(phone.locator("main")).to_contain_text("NO coincide")
        # The payment settles it in one entry.
        desk.get_by_role("button", name="Book the payment").click()
        expect(desk.locator("main")).to_contain_text("the quote is settled")
        # The release is issued and verified.
        desk.goto(f"{site.base}/account/{district}/properties/{prop}/payoff")
        desk.get_by_role("button", name="Issue the release of the lien (PDF)").click()
        expect(desk.locator("h1")).to_contain_text("Release of the impost lien R-")
        release = desk.locator("dd code").inner_text()
        checker.check(desk, "release", "en")
        shoot(desk, folder, "release")
        phone.goto(f"{site.base}/verificar/{release}")
        expect(phone.locator("main")).to_contain_text(t("es", "Release of the impost lien"))
        # A change of owner sends the next notice to the new owner.
        desk.goto(f"{site.base}/account/{district}/properties/{prop}/owners")
        desk.get_by_label("New owner").fill("Inversiones del Mar LLC")
        desk.get_by_label("Street and number, or PO box").fill("PO BOX 4455")
        desk.get_by_label("Town or city").fill("San Juan")
        desk.get_by_label("ZIP code").fill("00936-4455")
        desk.get_by_label("Deed or CRIM change").fill("Deed 88, notary Ruiz")
        desk.get_by_role("button", name="Record the change of owner").click()
        expect(desk.locator("dl.kv").first).to_contain_text("Inversiones del Mar LLC")
        _both_widths(desk, folder, "owners", checker, "en")
        # The owner's portal shows the property's account across the years.
        number, access = site.portal
        phone.goto(f"{site.base}/portal")
        phone.get_by_label(re.compile(t("es", "Notice number"))).fill(number)
        phone.get_by_label(re.compile(t("es", "Access code"))).fill(access)
        phone.get_by_role("button", name=t("es", "See my notices")).click()
        phone.get_by_role(
            "link", name=t("es", "The property’s account across the years")
        ).first.click()
        expect(phone.locator("h1")).to_contain_text(t("es", "Account of the property"))
        _both_widths(phone, folder, "owner-account", checker, "es")
        set_language(phone, site, "en")
        expect(phone.locator("h1")).to_contain_text("Account of the property")
        _both_widths(phone, folder, "owner-account", checker, "en")
        # The owner may leave an email for the next notice's copy: a bad one is said beside it.
        phone.get_by_role("link", name="Copies and reminders by email").click()
        expect(phone.locator("main")).to_contain_text("remains the legal notice")
        phone.get_by_label("Email address").fill("owner@example")
        phone.get_by_role("button", name="Send the confirmation").click()
        expect(phone.locator("#e-email")).to_contain_text("name@example.com")
        _both_widths(phone, folder, "owner-email", checker, "en")
    finally:
        treasurer.close()
        public.close()
    assert not checker.problems, "\n".join(checker.problems)
