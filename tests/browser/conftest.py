"""What every browser module shares: a copy of the demo served on loopback and one Chromium
for the module (tests/browser/harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.browser.harness import (
    CHROMIUM,
    Checker,
    Logins,
    Site,
    screenshots_folder,
    serve_demo,
)


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
