"""What every browser module shares: a copy of the demo served on loopback and one Chromium
for the module (tests/browser/harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


class _Kept:
    """Each module's demo site (with its signed-in people) and the process's Chromium, kept
    until the run ends: xdist runs a group's tests on one worker but may run other tests
    between them, which would tear a module's fixtures down and make them again."""

    def __init__(self) -> None:
        self.sites: dict[str, tuple[Site, Iterator[Site]]] = {}
        self.logins: dict[str, Logins] = {}
        self.chromium: Browser | None = None
        self._playwright: Any = None

    def site(self, module: str) -> Site:
        if module not in self.sites:
            serving = serve_demo()
            self.sites[module] = (next(serving), serving)
        return self.sites[module][0]

    def browser(self) -> Browser:
        if self.chromium is None:
            self._playwright = sync_playwright().start()
            # Debian's launcher asks for rasterization on the GPU, which headless Chromium
            # emulates in software, and loads the component extensions: neither is needed
            # to read a page, and both cost the suite's processor time. The pages' scripts
            # (axe-core's above all) run once a page: V8 compiles them to its baseline code
            # only, where its optimizing tiers cost more than they save (13% of a checked
            # page's processor time, measured).
            self.chromium = self._playwright.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--disable-gpu-rasterization",
                    "--disable-extensions",
                    "--disable-component-extensions-with-background-pages",
                    "--js-flags=--max-opt=1",
                ],
            )
        return self.chromium

    def close(self) -> None:
        for _site, serving in self.sites.values():
            next(serving, None)  # the server stopped, its folder removed
        if self.chromium is not None:
            self.chromium.close()
            self._playwright.stop()


@pytest.fixture(scope="session")
def _kept() -> Iterator[_Kept]:
    kept = _Kept()
    try:
        yield kept
    finally:
        kept.close()


@pytest.fixture
def site(request: pytest.FixtureRequest, _kept: _Kept) -> Site:
    return _kept.site(request.module.__name__)


@pytest.fixture
def browser(_kept: _Kept) -> Browser:
    return _kept.browser()


@pytest.fixture
def logins(request: pytest.FixtureRequest, site: Site, _kept: _Kept) -> Logins:
    module = request.module.__name__
    if module not in _kept.logins:
        _kept.logins[module] = Logins(site)
    return _kept.logins[module]


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
