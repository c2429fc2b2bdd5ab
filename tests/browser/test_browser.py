"""The demo's roles' journeys in Chromium — each once, on a phone (390 px) in Spanish or on a
desktop (1280 px) in English, alternating, its key pages photographed at both widths in its
language; every page visited speaks its language, does not scroll sideways and has no serious
axe-core finding (tests/browser/harness.py). The crawl of every page is test_phone_crawl.py.

One demo, one Chromium and one checker for the module; each user signs in once. With
``TID_SCREENSHOTS`` set (e.g. ``TID_SCREENSHOTS=instance/screenshots``) the key pages are
photographed there; a failing page always is, under the module's tmp dir."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser import journeys
from tests.browser.harness import (
    ASSOCIATION,
    AUDITOR,
    CLERK,
    TREASURER,
    Checker,
    Logins,
    Site,
    new_page,
    shoot,
)

# One worker runs the whole module: one demo database, one browser.
pytestmark = pytest.mark.xdist_group("browser")


# --------------------------------------------------------------------------- the journeys

# Each journey once, on a phone in Spanish or on a desktop in English (alternating, so both
# languages and both widths are walked by the journeys together); its key pages are read and
# photographed again at the other width, in the same language.
PHONE_ES = [pytest.param("es", 390, id="es-390")]
DESKTOP_EN = [pytest.param("en", 1280, id="en-1280")]
WAYS = PHONE_ES + DESKTOP_EN
OTHER = {390: 1280, 1280: 390}


def _journey(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
    email: str | None,
    walk: Callable[[journeys.Journey], None],
    name: str,
) -> None:
    context, page = new_page(browser, width, language, logins.state(email, language))
    try:
        journey = journeys.Journey(page, site, checker, language, folder, name)
        try:
            walk(journey)
        except Exception:
            shot = shoot(page, folder / "failures", f"journey-{name}-stopped", always=True)
            print(f"the page where the journey stopped: {shot}")
            raise
    finally:
        context.close()
    context, page = new_page(browser, OTHER[width], language, logins.state(email, language))
    try:
        for index, (what, url) in enumerate(journey.key):
            response = page.goto(url)
            # the page a failed form answered (a POST) may not be one to read again
            if response is None or response.status >= 400:
                continue
            if "text/html" in (response.headers.get("content-type") or ""):
                checker.check(page, f"{what}, again at {OTHER[width]} px", language)
                shoot(page, folder, f"{name}-{index:02d}-{what}")
    finally:
        context.close()


@pytest.mark.parametrize(("language", "width"), PHONE_ES)
def test_the_clerk_takes_a_petition_to_its_publication(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
) -> None:
    _journey(
        site, browser, logins, checker, folder, language, width, CLERK, journeys.clerk, "clerk"
    )


@pytest.mark.parametrize(("language", "width"), DESKTOP_EN)
def test_the_association_imports_bills_and_mails_its_notices(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
    tmp_path: Path,
) -> None:
    fiscal_year = {"es": "2026-27", "en": "2027-28"}[language]
    _journey(
        site,
        browser,
        logins,
        checker,
        folder,
        language,
        width,
        ASSOCIATION,
        lambda j: journeys.association(j, tmp_path, fiscal_year),
        "association",
    )


@pytest.mark.parametrize(("language", "width"), PHONE_ES)
def test_the_treasurer_books_a_payment_meets_the_cap_and_ranks_liens(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
) -> None:
    amount = {"es": "125.00", "en": "130.00"}[language]
    _journey(
        site,
        browser,
        logins,
        checker,
        folder,
        language,
        width,
        TREASURER,
        lambda j: journeys.treasurer(j, amount),
        "treasurer",
    )


@pytest.mark.parametrize(("language", "width"), DESKTOP_EN)
def test_the_auditor_reads_everything_and_writes_nothing(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
) -> None:
    _journey(
        site,
        browser,
        logins,
        checker,
        folder,
        language,
        width,
        AUDITOR,
        journeys.auditor,
        "auditor",
    )


@pytest.mark.parametrize(("language", "width"), PHONE_ES)
def test_an_owner_opens_the_portal_with_the_code_and_not_without(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
) -> None:
    _journey(site, browser, logins, checker, folder, language, width, None, journeys.owner, "owner")


@pytest.mark.parametrize(("language", "width"), DESKTOP_EN)
def test_a_calculator_takes_a_csv_file_and_gives_its_pdf(
    site: Site,
    browser: Browser,
    logins: Logins,
    checker: Checker,
    folder: Path,
    language: str,
    width: int,
    tmp_path: Path,
) -> None:
    _journey(
        site,
        browser,
        logins,
        checker,
        folder,
        language,
        width,
        None,
        lambda j: journeys.calculator(j, tmp_path),
        "calculator",
    )
