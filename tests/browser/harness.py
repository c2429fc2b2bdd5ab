"""A real browser on the demo: the app served on loopback (a server thread and a worker
thread over one SQLite demo database), Debian's Chromium driven by Playwright, and the
checks every visited page must pass: no sideways scroll and no moderate, serious or critical
axe-core finding. axe-core reads each shape of page at each width once in the whole run,
whichever module and xdist worker meets it first (:class:`Checker`, :class:`Claims`). A
failing page is photographed (in ``failures/`` of the screenshots' folder)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from argon2 import PasswordHasher
from axe_playwright_python.sync_playwright import Axe
from babel import Locale, UnknownLocaleError
from babel.support import Translations
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError
from werkzeug.serving import BaseWSGIServer, make_server

import tid
from tests.conftest import SHARED_FOLDER
from tests.http_sign_in import signed_in_jar
from tid import create_app, migrate
from tid.db import get_session
from tid.demo import ACCOUNT_USER, DEMO_PASSWORD, load_demo, portal_sample
from tid.jobs import tasks
from tid.services.auth import passwords

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WIDTHS = {390: PHONE, 1280: DESKTOP}
SHOT_HEIGHT = 6000  # px: the longest screenshot
# Every tab's browser, and the sign-ins asked over HTTP (:class:`Logins`), say one name: a
# session is bound to its browser's name and address (Flask-Login's strong protection).
USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/156.0.0.0 Safari/537.36"
)

CLERK = "secretaria@demo.tid.pr"
ASSOCIATION = "asociacion@demo.tid.pr"
TREASURER = ACCOUNT_USER
AUDITOR = "auditor@demo.tid.pr"
ADMIN = "admin@demo.tid.pr"

# What every visited page is checked for, read in one call. Sideways scroll: the document
# wider than the viewport, or an element whose content is wider than itself and that scrolls
# (overflow auto/scroll). Its language: the root's ``lang``, the title, and the ``lang`` of
# every element that names one (axe-core's language rules, read on every page).
MEASURE = """() => {
  const root = document.documentElement;
  const out = {page: root.scrollWidth, viewport: root.clientWidth, regions: [],
               lang: root.getAttribute('lang') || '', title: document.title.trim(), langs: []};
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
      const css = typeof el.className === 'string' && el.className ? '.' + el.className : '';
      out.regions.push(`${name}${css} (${el.scrollWidth} > ${el.clientWidth} px)`);
    }
  }
  for (const el of document.querySelectorAll('body [lang]')) {
    out.langs.push(el.getAttribute('lang'));
  }
  return out;
}"""


def language_problems(measured: dict[str, Any], language: str) -> list[str]:
    """What axe-core's language rules (html-has-lang, html-lang-valid, valid-lang,
    document-title) would find on a page read by :data:`MEASURE`, and whether it speaks
    ``language``: checked on every page, where axe-core runs once per shape and width."""
    found = []
    lang = measured["lang"]
    if lang != language:
        found.append(f"the page speaks {lang!r}, not {language!r}")
    if not measured["title"]:
        found.append("the page has no title")
    for value in measured["langs"]:
        if not _is_language(value):
            found.append(f"an element's lang {value!r} names no language")
    return found


def _is_language(value: str) -> bool:
    """A language tag whose language Babel knows (``es``, ``en-US``); not empty."""
    try:
        Locale.parse(value.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return False
    return True


@dataclass
class Site:
    """The demo served on loopback."""

    base: str
    app: Flask
    instance: Path
    portal: tuple[str, str]


SECRET = "browser-test-secret"


def _app(folder: Path) -> Flask:
    return create_app(
        {
            "DATABASE_URL": f"sqlite:///{folder / 'tid.sqlite'}",
            "SECRET_KEY": SECRET,
            "INSTANCE_PATH": str(folder / "instance"),
            "SCHEDULER_IN_PROCESS": False,
            "TWO_FACTOR_ROLES": "",
            "CALC_RATE_LIMIT": 0,
            # the style sheet and scripts from the browser's cache, not asked for on every page
            "SEND_FILE_MAX_AGE_DEFAULT": 3600,
            "PDF_WARM_UP": False,  # the suite's time: a journey lays out its PDFs itself
            "PAGE_WARM_UP": False,  # and compiles the templates of the pages it opens only
        }
    )


def _run_folder() -> Path:
    """The run's own folder, shared by its processes: in the folder the run shares with its
    xdist workers and removes at its end (``TID_TEST_SHARED_FOLDER``, tests/conftest.py),
    else in the temporary folder, named by ``PYTEST_XDIST_TESTRUNUID`` (a run without
    xdist has one process, named by its id)."""
    shared = os.environ.get(SHARED_FOLDER)
    if shared:
        root = Path(shared) / "browser-demo"
    else:
        run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"solo-{os.getpid()}"
        root = Path(tempfile.gettempdir()) / f"tid-browser-demo-{run}"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _demo_once() -> Path:
    """The demo migrated and loaded once for the whole run: the first browser module of any
    worker loads it under a lock, and every module serves a copy of it, so each starts from
    the same demo and none sees another's changes."""
    root = _run_folder()
    loaded = root / "demo"
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (root / "ready").exists():
                shutil.rmtree(loaded, ignore_errors=True)
                loaded.mkdir()
                migrate.upgrade(f"sqlite:///{loaded / 'tid.sqlite'}")
                app = _app(loaded)
                with app.app_context():
                    load_demo(session=get_session(), config=app.config)
                app.extensions["tid.engine"].dispose()
                db = sqlite3.connect(loaded / "tid.sqlite")  # one whole file, no WAL beside it
                try:
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    db.execute("PRAGMA journal_mode=DELETE")
                finally:
                    db.close()
                (root / "ready").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return loaded


def serve_demo() -> Iterator[Site]:
    """A copy of the demo (:func:`_demo_once`), served with a worker thread. Passwords are
    hashed with cheap argon2 parameters, as in the other tests (tests/conftest.py): the
    browser tests check the pages, not the work factor."""
    folder = Path(tempfile.mkdtemp(prefix="tid-browser-"))
    hasher = passwords._hasher
    passwords._hasher = PasswordHasher(time_cost=1, memory_cost=256, parallelism=1)
    shutil.copytree(
        _demo_once(), folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*-wal", "*-shm")
    )
    app = _app(folder)
    sample = portal_sample(app.instance_path)
    assert sample is not None, "the demo wrote no portal sample"
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    # the address it is served at, as `make demo` sets it: what the notices print
    app.config["BASE_URL"] = f"http://127.0.0.1:{server.port}"
    stop = threading.Event()

    def work() -> None:  # the worker: runs queued jobs as `tid worker` would
        while not stop.is_set():
            tasks.run_pending(app)
            stop.wait(0.25)  # the pages ask for a job's progress once a second

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
        passwords._hasher = hasher


def path_pattern(url: str) -> str:
    """A page's kind: its path with the numbers taken out (``/roll/N/properties/N``)."""
    return re.sub(r"\d+", "N", urlsplit(url).path)


def shape(url: str) -> str:
    """A page's shape: its kind and the names of its query's parameters (one
    ``/account/N/journal?page`` stands for every page number)."""
    keys = sorted({key for key, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)})
    return path_pattern(url) + ("?" + "&".join(keys) if keys else "")


def screenshots_folder(default: Path) -> Path:
    """Where screenshots go: ``TID_SCREENSHOTS`` (e.g. ``instance/screenshots``) when set,
    else ``default`` (under the test's tmp dir)."""
    folder = Path(os.environ.get("TID_SCREENSHOTS") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page: Page, folder: Path, name: str, *, always: bool = False) -> Path:
    """A full-page PNG of the page shown, named after what it is, language and width: for
    people to look at, so taken when ``TID_SCREENSHOTS`` names where they go, or ``always``
    (the page of a problem). The checks of a page do not need it."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    lang = str(page.evaluate("document.documentElement.lang"))
    slug = re.sub(r"[^a-z0-9]+", "-", f"{name}-{lang}-{width}".lower()).strip("-")
    path = folder / f"{slug}.png"
    if not (always or os.environ.get("TID_SCREENSHOTS")):
        return path
    # the whole page, up to a few screens (a journal of a year's entries would take seconds)
    height = min(int(page.evaluate("document.documentElement.scrollHeight")), SHOT_HEIGHT)
    page.screenshot(
        path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height}
    )
    return path


# What a page's script meets when the page it reads is replaced under it: its context gone,
# the new document not yet parsed (no root element), or axe-core, injected into the page
# before, gone with it (a job's page reloads itself when its job ends).
_NAVIGATING = (
    "Execution context was destroyed",
    "Cannot read properties of null",
    "axe is not defined",
)


# axe-core's impacts a page may not have: moderate ones too (an empty table header, a heading
# that skips a level, two landmarks of one name); minor ones are reported by axe alone.
FAILING_IMPACTS = ("moderate", "serious", "critical")


class Claims:
    """Claims shared by the processes of a run: the first to claim a key holds it (a file
    made with ``O_CREAT | O_EXCL`` in ``folder``, which only one process can make), every
    later claim of it, from any process, is refused; a holder may give its claim back."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _file(self, key: tuple[object, ...]) -> Path:
        return self.folder / hashlib.sha256(repr(key).encode()).hexdigest()

    def claim(self, key: tuple[object, ...]) -> bool:
        """True for the first claim of ``key`` in the run (or the first since it was
        given back), False for every other."""
        try:
            os.close(os.open(self._file(key), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            return False
        return True

    def give_back(self, key: tuple[object, ...]) -> None:
        """``key`` may be claimed again (its work was not done)."""
        self._file(key).unlink(missing_ok=True)


def run_claims() -> Claims:
    """The run's claims of the pages axe-core has checked (:class:`Checker`)."""
    return Claims(_run_folder() / "axed")


@dataclass
class Checker:
    """Checks each page the tests visit; keeps every problem, photographs its page. axe-core
    runs once per shape of page and width in the whole run (the same template gives the
    same findings); its language rules are read on every page (:func:`language_problems`).
    The checkers of every module and every xdist worker share their claims
    (:func:`run_claims`), and the first to claim a shape checks it. A module run alone still
    checks every shape it meets.
    A check cut short by a navigation gives its claims back, so the shape is axed again
    when the page is read again."""

    folder: Path
    axe: Axe = field(default_factory=Axe)
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    claims: Claims = field(default_factory=run_claims)
    # the keys this checker has seen claimed (by itself or by another), and those it holds
    settled: set[tuple[object, ...]] = field(default_factory=set)
    held: list[tuple[object, ...]] = field(default_factory=list)

    def check(self, page: Page, what: str, language: str) -> None:
        """The page speaks ``language``, has a title and names only real languages; no
        sideways scroll at this width; no moderate, serious or critical axe finding. A page
        that navigates while it is read (a job's page reloads itself when its job ends) is
        read again, whole, once the new page has loaded."""
        for attempt in range(3):
            settled, held, checked = set(self.settled), len(self.held), self.checked
            try:
                page.wait_for_load_state()  # a click's navigation may still be under way
                self._check(page, what, language)
                return
            except PlaywrightError as exc:
                if not any(sign in str(exc) for sign in _NAVIGATING) or attempt == 2:
                    raise
                for key in self.held[held:]:  # claimed by this attempt, its axe run not done
                    self.claims.give_back(key)
                del self.held[held:]
                self.settled, self.checked = settled, checked
                page.wait_for_load_state()

    def _claim(self, key: tuple[object, ...]) -> bool:
        """True when this checker is the first of the run to claim ``key``."""
        if key in self.settled:
            return False
        self.settled.add(key)
        if not self.claims.claim(key):
            return False
        self.held.append(key)
        return True

    def _axe_options(self, kind: str, width: int) -> dict[str, Any] | None:
        """What axe-core runs on this page: everything on the run's first page of its shape
        at this width, else nothing (its language rules are read on every page:
        :func:`language_problems`)."""
        if self._claim(("axe", kind, width)):
            return {"resultTypes": ["violations"]}
        return None

    def _check(self, page: Page, what: str, language: str) -> None:
        self.checked += 1
        width = page.viewport_size["width"] if page.viewport_size else 0
        found: list[str] = []
        m: dict[str, Any] = page.evaluate(MEASURE)
        if m["page"] > m["viewport"]:
            found.append(f"the page scrolls sideways ({m['page']} > {m['viewport']} px)")
        found += [f"scrolls sideways: {region}" for region in m["regions"]]
        found += language_problems(m, language)
        lang = m["lang"]
        options = self._axe_options(shape(page.url), width)
        if options is not None:
            results = self.axe.run(page, options=options)
            for v in results.response["violations"]:
                if v["impact"] in FAILING_IMPACTS:
                    targets = ", ".join(str(n["target"]) for n in v["nodes"][:3])
                    found.append(f"axe {v['impact']} {v['id']}: {v['help']} ({targets})")
        if found:
            shot = shoot(
                page, self.folder / "failures", f"{len(self.problems):03d}-{what}", always=True
            )
            self.problems += [
                f"{what} [{lang}, {width} px] {page.url}: {p} → {shot}" for p in found
            ]


# How long a step may wait for the page (a click's answer, a locator, an expectation): far
# from any page's real time, so a busy machine makes the run slower, never its verdict.
WAIT_MS = 120_000
expect.set_options(timeout=WAIT_MS)


def new_page(
    browser: Browser, width: int, language: str, state: Any = None
) -> tuple[BrowserContext, Page]:
    """A tab at ``width``; ``state``: a signed-in context's cookies (``storage_state``)."""
    context = browser.new_context(
        viewport=WIDTHS[width], locale=language, storage_state=state, user_agent=USER_AGENT
    )
    context.set_default_timeout(WAIT_MS)
    context.on("dialog", lambda dialog: dialog.accept())  # forms.js's data-confirm: "yes"
    return context, context.new_page()


def set_language(page: Page, site: Site, language: str) -> None:
    """Use the header's language toggle until the page speaks ``language``."""
    if page.url == "about:blank":
        page.goto(site.base + "/")
    if page.evaluate("document.documentElement.lang") != language:
        other = "English" if language == "en" else "Español"
        page.get_by_role("button", name=other, exact=True).click()
    # A state, not a moment: the page that answers the toggle speaks the language.
    expect(page.locator("html")).to_have_attribute("lang", language)


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
    expect(page, f"{email} could not log in").not_to_have_url(re.compile(r"/login(\?|$)"))
    set_language(page, site, language)  # signing in starts a new session


@dataclass
class Logins:
    """Each (user, language)'s signed-in cookies, asked of the site once. They are asked over
    HTTP, sending the login form and the language toggle as a browser sends them (a context
    of its own, signing in through four pages, cost the browser a second each): signing in
    through the login page in the browser is test_words.py's."""

    site: Site
    states: dict[tuple[str | None, str], Any] = field(default_factory=dict)

    def state(self, email: str | None, language: str) -> Any:
        key = (email, language)
        if key not in self.states:
            self.states[key] = signed_in_cookies(self.site, email, language)
        return self.states[key]


def signed_in_cookies(site: Site, email: str | None, language: str) -> dict[str, Any]:
    """A browser context's state (``storage_state``) holding the cookies of ``email`` signed
    in (None: nobody) with the site speaking ``language``."""
    jar = signed_in_jar(site.base, email, DEMO_PASSWORD, USER_AGENT, language)
    host = urlsplit(site.base).hostname or "127.0.0.1"
    cookies = [
        {
            "name": cookie.name,
            "value": cookie.value or "",
            "domain": host,
            "path": cookie.path or "/",
            "expires": float(cookie.expires) if cookie.expires else -1,
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
        for cookie in jar
    ]
    return {"cookies": cookies, "origins": []}
