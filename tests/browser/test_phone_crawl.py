"""The crawl of each shape of page the demo's roles reach, at 390 px: every page speaks its
language, none scrolls sideways, and axe-core finds nothing serious or critical
(tests/browser/harness.py). On a worker of its own, beside the journeys (test_browser.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.harness import (
    ADMIN,
    ASSOCIATION,
    AUDITOR,
    CLERK,
    TREASURER,
    Checker,
    Logins,
    Site,
    new_page,
    shape,
)

pytestmark = pytest.mark.xdist_group("phone-crawl")


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
    ".zip",  # the open data's packages
    ".atom",  # the public register's feeds
    "/thumbnail.png",
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
