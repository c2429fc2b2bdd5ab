"""The journeys of issue 11 in Chromium — each once, on a phone (390 px) in Spanish or on a
desktop (1280 px) in English, alternating, its key pages photographed at both widths in its
language — and a crawl
of each shape of page the demo's roles reach, at 390 px: every page speaks its language, none
scrolls sideways, and axe-core finds nothing serious or critical (tests/browser/harness.py).

One demo, one Chromium and one checker for the module; each user signs in once. Screenshots go
to a ``screenshots`` folder under the module's tmp dir, or to ``TID_SCREENSHOTS`` when set
(e.g. ``TID_SCREENSHOTS=instance/screenshots``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser import journeys
from tests.browser.harness import (
    ADMIN,
    ASSOCIATION,
    AUDITOR,
    CHROMIUM,
    CLERK,
    TREASURER,
    Checker,
    Logins,
    Site,
    new_page,
    screenshots_folder,
    serve_demo,
    shape,
    shoot,
)

# One worker runs the whole module: one demo database, one browser.
pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    yield from serve_demo()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def logins(site: Site, browser: Browser) -> Logins:
    return Logins(site, browser)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return screenshots_folder(tmp_path_factory.mktemp("screenshots"))


@pytest.fixture(scope="module")
def module_checker(folder: Path) -> Checker:
    return Checker(folder)


@pytest.fixture
def checker(module_checker: Checker) -> Iterator[Checker]:
    """The module's checker; the test fails on the problems found while it ran."""
    before = len(module_checker.problems)
    yield module_checker
    found = module_checker.problems[before:]
    assert not found, f"{len(found)} problems on the pages visited:\n" + "\n".join(found)


# --------------------------------------------------------------------------- the crawl

# Not pages: downloads, the API, feeds, sign-out and the language toggle (a POST anyway).
NOT_PAGES = (
    "/logout",
    "/static/",
    ".pdf",
    ".csv",
    ".ics",
    "/api/",
    "/calendar/feed",
    "/file/version/",  # a petition's documents, downloaded or opened by the browser's viewer
)


def _crawl(
    page: Page, site: Site, checker: Checker, role: str, language: str, seen: set[str]
) -> int:
    """From the role's home page, visit by links each shape of page not seen yet (by any
    role); check each one; return how many were visited."""
    queue = [site.base + "/"]
    queued = set(queue)
    visited = 0
    while queue:
        url = queue.pop(0)
        response = page.goto(url)
        assert response is not None
        if "text/html" not in (response.headers.get("content-type") or ""):
            continue
        assert response.status < 500, f"{url}: {response.status}"
        visited += 1
        seen.add(shape(page.url))
        checker.check(page, f"crawl {role}", language)
        for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
            target = href.split("#")[0]
            parts = urlsplit(target)
            if parts.netloc != urlsplit(site.base).netloc or target in queued:
                continue
            if any(marker in parts.path for marker in NOT_PAGES):
                continue
            kind = shape(target)
            if kind in seen:
                continue
            seen.add(kind)
            queued.add(target)
            queue.append(target)
    return visited


def test_every_page_the_demo_roles_reach_fits_a_phone(
    site: Site, browser: Browser, logins: Logins, checker: Checker
) -> None:
    seen: set[str] = set()
    visited = 0
    # Each role in one language, both languages between them; a role's own pages first
    # (the admin, who reaches most, last).
    roles = [
        (None, "es"),
        (CLERK, "es"),
        (ASSOCIATION, "en"),
        (TREASURER, "es"),
        (AUDITOR, "en"),
        (ADMIN, "es"),
    ]
    for email, language in roles:
        context, page = new_page(browser, 390, language, logins.state(email, language))
        try:
            visited += _crawl(page, site, checker, email or "anonymous", language, seen)
        finally:
            context.close()
    print(f"crawl: {visited} pages of {len(seen)} shapes at 390 px")
    # The roles reach the areas of the issue: petitions, roll, billing, notices, account…
    kinds = {kind.split("?")[0] for kind in seen}
    for kind in ("/petitions/N", "/roll/N/billing/N", "/notices/batches/N", "/account/N/journal"):
        assert kind in kinds, sorted(seen)
    assert len(kinds) >= 40, sorted(seen)


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
            shot = shoot(page, folder / "failures", f"journey-{name}-stopped")
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
