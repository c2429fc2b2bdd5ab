"""The journeys of issue 11 in Chromium, in Spanish and English, at 1280 and 390 px, and a
crawl of every page the demo's roles reach, at 390 px: no page scrolls sideways and axe-core
finds nothing serious or critical (tests/browser/harness.py). Screenshots of failing pages
go to tests/browser/failures/."""

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
    FAILURES,
    TREASURER,
    Checker,
    Site,
    log_in,
    new_page,
    path_pattern,
    serve_demo,
    set_language,
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


@pytest.fixture
def checker() -> Iterator[Checker]:
    found = Checker()
    yield found
    assert not found.problems, found.report()


# --------------------------------------------------------------------------- the crawl

# Not pages: downloads, the API, feeds, sign-out and the language toggle (a POST anyway).
NOT_PAGES = ("/logout", "/static/", ".pdf", ".csv", ".ics", "/api/", "/calendar/feed")
# Pages of one kind (the path with its numbers taken out) visited: by one role, by all.
PER_ROLE, PER_KIND = 1, 2


def _crawl(page: Page, site: Site, checker: Checker, role: str, seen: dict[str, int]) -> int:
    """Visit every page reachable by links from the home page (a few of each kind); check
    each one; return how many were visited."""
    queue = [site.base + "/"]
    queued = set(queue)
    per_role: dict[str, int] = {}
    visited = 0
    while queue:
        url = queue.pop(0)
        response = page.goto(url)
        assert response is not None
        if "text/html" not in (response.headers.get("content-type") or ""):
            continue
        assert response.status < 500, f"{url}: {response.status}"
        visited += 1
        kind = path_pattern(page.url)
        seen[kind] = seen.get(kind, 0) + 1
        checker.check(page, f"crawl {role}")
        for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
            target = href.split("#")[0]
            parts = urlsplit(target)
            if parts.netloc != urlsplit(site.base).netloc or target in queued:
                continue
            if any(marker in parts.path for marker in NOT_PAGES):
                continue
            kind = path_pattern(target)
            if per_role.get(kind, 0) >= PER_ROLE or seen.get(kind, 0) >= PER_KIND:
                continue
            per_role[kind] = per_role.get(kind, 0) + 1
            queued.add(target)
            queue.append(target)
    return visited


def test_every_page_the_demo_roles_reach_fits_a_phone(
    site: Site, browser: Browser, checker: Checker
) -> None:
    seen: dict[str, int] = {}
    visited = 0
    # Each role in one language; together both languages (axe runs once per kind of page).
    roles = [
        (None, "es"),
        (ADMIN, "en"),
        (CLERK, "es"),
        (ASSOCIATION, "es"),
        (TREASURER, "en"),
        (AUDITOR, "es"),
    ]
    for email, language in roles:
        context, page = new_page(browser, 390, language)
        try:
            if email is None:
                set_language(page, site, language)
            else:
                log_in(page, site, email, language)
            visited += _crawl(page, site, checker, email or "anonymous", seen)
        finally:
            context.close()
    print(f"crawl: {visited} pages of {len(seen)} kinds at 390 px")
    # The roles reach the areas of the issue: petitions, roll, billing, notices, account…
    for kind in ("/petitions/N", "/roll/N/billing/N", "/notices/batches/N", "/account/N/journal"):
        assert kind in seen, sorted(seen)
    assert len(seen) >= 40, sorted(seen)


# --------------------------------------------------------------------------- the journeys


def _journey(
    site: Site,
    browser: Browser,
    checker: Checker,
    language: str,
    email: str | None,
    walk: Callable[[journeys.Journey], None],
) -> None:
    """Walk the journey on a phone (390 px), writing; then read every page it read again
    on a desktop (1280 px), in the same language."""
    context, page = new_page(browser, 390, language)
    try:
        journey = journeys.Journey(page, site, checker, language)
        try:
            walk(journey)
        except Exception:
            FAILURES.mkdir(exist_ok=True)
            shot = FAILURES / f"journey-{walk.__name__}-{language}.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"the page where the journey stopped: {shot}")
            raise
    finally:
        context.close()
    context, page = new_page(browser, 1280, language)
    try:
        if email is None:
            set_language(page, site, language)
        else:
            log_in(page, site, email, language)
        for url in journey.read:
            response = page.goto(url)
            # the page a failed form answered (a POST) is not one to read again
            if response is None or response.status >= 400:
                continue
            if "text/html" in (response.headers.get("content-type") or ""):
                checker.check(page, "again on a desktop")
    finally:
        context.close()


LANGUAGES = ["es", "en"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_clerk_takes_a_petition_to_its_publication(
    site: Site, browser: Browser, checker: Checker, language: str
) -> None:
    _journey(site, browser, checker, language, CLERK, journeys.clerk)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_association_imports_bills_and_mails_its_notices(
    site: Site, browser: Browser, checker: Checker, language: str, tmp_path: Path
) -> None:
    fiscal_year = {"es": "2026-27", "en": "2027-28"}[language]
    _journey(
        site,
        browser,
        checker,
        language,
        ASSOCIATION,
        lambda j: journeys.association(j, tmp_path, fiscal_year),
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_treasurer_books_a_payment_meets_the_cap_and_ranks_liens(
    site: Site, browser: Browser, checker: Checker, language: str
) -> None:
    amount = {"es": "125.00", "en": "130.00"}[language]
    _journey(site, browser, checker, language, TREASURER, lambda j: journeys.treasurer(j, amount))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_auditor_reads_everything_and_writes_nothing(
    site: Site, browser: Browser, checker: Checker, language: str
) -> None:
    _journey(site, browser, checker, language, AUDITOR, journeys.auditor)


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_owner_opens_the_portal_with_the_code_and_not_without(
    site: Site, browser: Browser, checker: Checker, language: str
) -> None:
    _journey(site, browser, checker, language, None, journeys.owner)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_calculator_takes_a_csv_file_and_gives_its_pdf(
    site: Site, browser: Browser, checker: Checker, language: str, tmp_path: Path
) -> None:
    _journey(site, browser, checker, language, None, lambda j: journeys.calculator(j, tmp_path))
