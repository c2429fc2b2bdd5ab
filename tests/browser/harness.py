"""A real browser on the demo: the app served on loopback (a server thread and a worker
thread over one SQLite demo database), Debian's Chromium driven by Playwright, and the
checks every visited page must pass: no sideways scroll and no serious or critical axe-core
finding. A failing page is photographed under :data:`FAILURES` for the report."""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from axe_playwright_python.sync_playwright import Axe
from babel.support import Translations
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page
from werkzeug.serving import BaseWSGIServer, make_server

import tid
from tid import create_app, migrate, tasks
from tid.db import get_session
from tid.demo import ACCOUNT_USER, DEMO_PASSWORD, load_demo, portal_sample

CHROMIUM = "/usr/bin/chromium"
FAILURES = Path(__file__).resolve().parent / "failures"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WIDTHS = {390: PHONE, 1280: DESKTOP}

CLERK = "secretaria@demo.tid.pr"
ASSOCIATION = "asociacion@demo.tid.pr"
TREASURER = ACCOUNT_USER
AUDITOR = "auditor@demo.tid.pr"
ADMIN = "admin@demo.tid.pr"

# Sideways scroll: the document wider than the viewport, or an element whose content is
# wider than itself and that scrolls (overflow auto/scroll).
MEASURE = """() => {
  const root = document.documentElement;
  const out = {page: root.scrollWidth, viewport: root.clientWidth, regions: []};
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
      const css = typeof el.className === 'string' && el.className ? '.' + el.className : '';
      out.regions.push(`${name}${css} (${el.scrollWidth} > ${el.clientWidth} px)`);
    }
  }
  return out;
}"""


@dataclass
class Site:
    """The demo served on loopback."""

    base: str
    app: Flask
    instance: Path
    portal: tuple[str, str]


def serve_demo() -> Iterator[Site]:
    """Migrate a fresh SQLite database, load the demo, serve it with a worker thread."""
    folder = Path(tempfile.mkdtemp(prefix="tid-browser-"))
    url = f"sqlite:///{folder / 'tid.sqlite'}"
    migrate.upgrade(url)
    app = create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": "browser-test-secret",
            "INSTANCE_PATH": str(folder / "instance"),
            "SCHEDULER_IN_PROCESS": False,
            "TWO_FACTOR_ROLES": "",
            "CALC_RATE_LIMIT": 0,
        }
    )
    with app.app_context():
        load_demo(session=get_session(), config=app.config)
    sample = portal_sample(app.instance_path)
    assert sample is not None, "the demo wrote no portal sample"
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    stop = threading.Event()

    def work() -> None:  # the worker: runs queued jobs as `tid worker` would
        while not stop.is_set():
            tasks.run_pending(app)
            stop.wait(0.1)

    threads = [
        threading.Thread(target=server.serve_forever, daemon=True),
        threading.Thread(target=work, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.port}", app, Path(app.instance_path), sample)
    finally:
        stop.set()
        server.shutdown()
        for thread in threads:
            thread.join(timeout=10)
        app.extensions["tid.engine"].dispose()


def path_pattern(url: str) -> str:
    """A page's kind: its path with the numbers taken out (``/roll/N/properties/N``)."""
    return re.sub(r"\d+", "N", urlsplit(url).path)


@dataclass
class Checker:
    """Checks each page a journey visits; keeps every problem, photographs its page."""

    axe: Axe = field(default_factory=Axe)
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    axed: set[tuple[str, str, int]] = field(default_factory=set)

    def check(self, page: Page, what: str, *, axe: bool = True) -> None:
        """No sideways scroll at this width; no serious or critical axe finding (once per
        kind of page, language and width: the same template gives the same findings)."""
        self.checked += 1
        width = page.viewport_size["width"] if page.viewport_size else 0
        found: list[str] = []
        m: dict[str, Any] = page.evaluate(MEASURE)
        if m["page"] > m["viewport"]:
            found.append(f"the page scrolls sideways ({m['page']} > {m['viewport']} px)")
        found += [f"scrolls sideways: {region}" for region in m["regions"]]
        lang = str(page.evaluate("document.documentElement.lang"))
        key = (path_pattern(page.url), lang, width)
        if axe and key not in self.axed:
            self.axed.add(key)
            results = self.axe.run(page)
            for v in results.response["violations"]:
                if v["impact"] in ("serious", "critical"):
                    targets = ", ".join(str(n["target"]) for n in v["nodes"][:3])
                    found.append(f"axe {v['impact']} {v['id']}: {v['help']} ({targets})")
        if found:
            FAILURES.mkdir(exist_ok=True)
            name = re.sub(r"[^a-z0-9]+", "-", f"{what}-{lang}-{width}".lower()).strip("-")
            shot = FAILURES / f"{len(self.problems):03d}-{name}.png"
            page.screenshot(path=str(shot), full_page=True)
            self.problems += [
                f"{what} [{lang}, {width} px] {page.url}: {p} → {shot}" for p in found
            ]

    def report(self) -> str:
        return (
            f"{len(self.problems)} problems on the pages visited (screenshots in {FAILURES}):\n"
            + ("\n".join(self.problems))
        )


def new_page(browser: Browser, width: int, language: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport=WIDTHS[width], locale=language)
    context.set_default_timeout(30_000)
    return context, context.new_page()


def set_language(page: Page, site: Site, language: str) -> None:
    """Use the header's language toggle until the page speaks ``language``."""
    if page.url == "about:blank":
        page.goto(site.base + "/")
    if page.evaluate("document.documentElement.lang") != language:
        other = "English" if language == "en" else "Español"
        page.get_by_role("button", name=other, exact=True).click()
        page.wait_for_load_state()
    assert page.evaluate("document.documentElement.lang") == language


_SPANISH = Translations.load(str(Path(tid.__file__).parent / "translations"), ["es"])


def t(language: str, msgid: str) -> str:
    """The text a page shows in ``language`` for the English ``msgid`` (the catalog's)."""
    return msgid if language == "en" else str(_SPANISH.gettext(msgid))


def log_in(page: Page, site: Site, email: str, language: str) -> None:
    page.goto(site.base + "/login")
    set_language(page, site, language)
    main = page.locator("main")
    main.get_by_label(t(language, "Email")).fill(email)
    main.get_by_label(t(language, "Password")).fill(DEMO_PASSWORD)
    main.get_by_role("button", name=t(language, "Log in")).click()
    page.wait_for_load_state()
    assert "/login" not in page.url, f"{email} could not log in"
    set_language(page, site, language)  # signing in starts a new session
