"""The demo as each of its people meets it, in Spanish and in English: every link a page
shows is one its reader may open (no 403, no 404; a citation of a reading names one the
readings page publishes), and every page speaks the reader's
language — no word only the other language's messages have, no identifier (``how_to_pay_en``,
``print_sha256``), no unformatted amount (``1250000.00``), no ISO date beside the reader's
dates, no name of a notes file that is not in the repository.

The walk starts at each role's home page and follows the links the pages show, one page per
shape (its path with the numbers taken out, its query's names and the values that are not
numbers), so a property stands for every property and a page number for every page; every
link of a shape it has not opened is still opened for its answer. Documents (PDF, CSV) are
opened for their answer only; their words are read by tests/web/test_pseudo_locale.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import BACKENDS, login, make_test_app
from tests.web.test_pseudo_locale import _catalog_words, data_words, html_texts
from tid.demo import DEMO_PASSWORD
from tid.rules.readings import READINGS


@pytest.fixture(params=[b for b in BACKENDS if b == "sqlite"] or BACKENDS[:1])
def backend(request: pytest.FixtureRequest) -> str:
    """The walk reads pages, which no database changes: one backend (SQLite when tested)."""
    return str(request.param)


PEOPLE = {
    "anonymous": None,
    "admin": "admin@demo.tid.pr",
    "clerk": "secretaria@demo.tid.pr",
    "association": "asociacion@demo.tid.pr",
    "treasurer": "asociacion.condado@demo.tid.pr",
    "auditor": "auditor@demo.tid.pr",
}
# Links the walk does not follow: they end its sign-in, or they are files or machine formats.
NOT_FOLLOWED = re.compile(r"^/(logout|static/|api/|healthz|readyz)|/calendar/")
DOCUMENT = re.compile(r"\.(pdf|csv|ics)$|/(pdf|csv|print|manifest|certificate)$")


class _All(set[str]):
    """Every document: the English walk opens none (the Spanish one opened each)."""


ALL = _All()
DOCUMENTS_OPENED_IN_SPANISH = ALL
# how many links of one shape are opened for their answer (each page of a shape is alike)
SAMPLES_PER_SHAPE = 3
_IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_RAW_AMOUNT = re.compile(r"(?<![\d,.$])\d{4,}\.\d{2}\b")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_FILES = re.compile(r"\b[A-Z]+\.md\b|Reglas de la aplicación")
_WORD = re.compile(r"[^\W\d_]+")
# a SHA-256 is data; a statute quoted in its own language is not the page's
_FINGERPRINT = re.compile(r"\b[0-9a-f]{40,}\b")
_PATH = re.compile(r"(?<![\w/])/[\w/.-]+")
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|«[^»]*»')
# A day as the pages write it (``31 may 2026``, ``May 31, 2026``): its month is the page's
# own abbreviation ("may" is Spanish for May too), not a word of the other language.
_DAY = re.compile(
    r"\b\d{1,2} (?:ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic)\.? \d{4}\b"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}\b"
)
# The words each page shape (by language) still shows: the work left; a shape that no longer
# shows them fails too, so the list only shrinks.
# They are dates written in the readings' and the parameters' own text and in the forms'
# hints (a date to type, like 2026-03-02), a lien-date setting's citation, and an example
# amount; the days a sentence carries are written as the page writes its days.
REMAINING: dict[str, set[str]] = {
    "es /calc/?": {"2003-09-08"},
    "es /calc/parameters?": {"1994-10-31"},
    "es /calc/room-tax-distribution?": {"2003-09-08", "2003-09-09"},
    "es /calc/room-tax-distribution?reform=N": {"2003-09-08", "2003-09-09"},
    "es /calc/room-tax?": {"1234.50"},
    "es /calc/room-tax?reform=N": {"1234.50"},
    "es /petitions/N?": {"2026-03-02"},
    "es /readings?": {"1994-10-31", "2003-09-08", "2003-09-09"},
    "en /calc/?": {"2003-09-08"},
    "en /calc/parameters?": {"1994-10-31", "2003-09-09", "2009-12-16", "2024-07-14", "2025-07-13"},
    "en /calc/room-tax-distribution?": {"2003-09-08", "2003-09-09"},
    "en /calc/room-tax-distribution?reform=N": {"2003-09-08", "2003-09-09"},
    "en /calc/room-tax?": {"1234.50"},
    "en /calc/room-tax?reform=N": {"1234.50"},
    "en /petitions/N?": {"2026-03-02"},
    "en /readings?": {"1994-10-31", "2003-09-08", "2003-09-09"},
    # the parameters a reform may change, described as on /calc/parameters
    "en /reforms/new?": {"2003-09-09"},
    "en /reforms/new?base=N": {"2003-09-09"},
    "en /reforms/try/?": {"2003-09-09"},
    "en /reforms/try/?example=general-fund-share": {"2003-09-09"},
    "en /reforms/try/?example=prita-cap": {"2003-09-09"},
}
# the language switch names each language in itself
LANGUAGE_NAMES = {"English", "Español"}


# query names whose value names a record (a saved reform's public id): a number, for the shape
RECORD_PARAMETERS = {"reform", "base"}
# A list's order: the same rows and words in another order, one shape whatever the order.
ORDER_PARAMETERS = {"by"}


def shape(url: str) -> str:
    parts = urlsplit(url)
    query = sorted(
        (k, "N" if re.fullmatch(r"[\d-]*", v) or k in RECORD_PARAMETERS | ORDER_PARAMETERS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if k not in ("page", "next")
    )
    return re.sub(r"\d+", "N", parts.path) + "?" + "&".join(f"{k}={v}" for k, v in query)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def links(page: str, base: str) -> list[str]:
    parser = _Links()
    parser.feed(page)
    found = []
    for href in parser.links:
        if href.startswith("/readings#"):
            found.append(href)  # a citation of a reading: its anchor must be published
            continue
        url = urljoin(base, href)
        parts = urlsplit(url)
        if parts.scheme not in ("", "http") or parts.netloc not in ("", "localhost"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if not NOT_FOLLOWED.search(parts.path):
            found.append(path)
    return found


@dataclass
class Walk:
    language: str
    foreign: set[str]
    data: set[str]
    broken: list[str] = field(default_factory=list)
    words: dict[str, set[str]] = field(default_factory=dict)
    contexts: dict[str, list[str]] = field(default_factory=dict)
    pages: int = 0
    documents: set[str] = field(default_factory=set)

    def read(self, where: str, page: str) -> None:
        self.pages += 1
        for text in html_texts(page):
            text = _DAY.sub(" ", _PATH.sub(" ", _FINGERPRINT.sub(" ", text)))
            found = set(_IDENTIFIER.findall(text)) | set(_RAW_AMOUNT.findall(text))
            found |= set(_FILES.findall(text)) | set(_ISO_DATE.findall(text))
            found |= {
                w
                for w in _WORD.findall(_QUOTED.sub(" ", text))
                if w.lower() in self.foreign
                and w not in self.data
                and w.lower() not in self.data
                and w not in LANGUAGE_NAMES
            }
            if found:
                self.words.setdefault(where, set()).update(found)
                self.contexts.setdefault(where, []).append(" ".join(text.split())[:200])

    def walk(self, client: FlaskClient, who: str) -> None:
        queue = ["/"]
        opened: set[str] = set()
        shapes: set[str] = set()
        tried: dict[str, int] = {}
        referrer = {"/": "the start"}
        while queue:
            url = queue.pop(0)
            if url in opened:
                continue
            if url.startswith("/readings#"):
                opened.add(url)
                if url.removeprefix("/readings#") not in READINGS:
                    self.broken.append(f"{who}: {url} cites no published reading")
                continue
            opened.add(url)
            kind = shape(url)
            document = bool(DOCUMENT.search(urlsplit(url).path))
            # a few links of each shape for their answer; a document once in the walk
            if tried.get(kind, 0) >= (1 if document else SAMPLES_PER_SHAPE):
                continue
            if document and (kind in self.documents or self.documents is ALL):
                continue
            tried[kind] = tried.get(kind, 0) + 1
            response = client.get(url)
            status = response.status_code
            if status in (403, 404):
                self.broken.append(f"{who}: {url} answers {status} (linked from {referrer[url]})")
                continue
            if status in (301, 302, 303):
                target = urlsplit(response.location)
                queue.append(target.path + (f"?{target.query}" if target.query else ""))
                referrer.setdefault(queue[-1], url)
                continue
            assert status == 200, (who, url, status)
            if document or response.mimetype != "text/html":
                self.documents.add(kind)
                continue
            if kind in shapes:
                continue
            shapes.add(kind)
            page = response.get_data(as_text=True)
            self.read(f"{self.language} {kind}", page)
            for link in links(page, url):
                if link not in opened:
                    queue.append(link)
                    referrer.setdefault(link, url)


@pytest.fixture
def demo(demo_loaded: str, tmp_path: Path) -> Iterator[Flask]:
    app = make_test_app(demo_loaded, tmp_path)
    yield app
    app.extensions["tid.engine"].dispose()


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_link_opens_and_every_page_speaks_one_language(demo: Flask, language: str) -> None:
    english_only, spanish_only = _catalog_words()
    with Session(demo.extensions["tid.engine"]) as session:
        data = data_words(session)
    walk = Walk(language, english_only if language == "es" else spanish_only, data)
    if language == "en":
        walk.documents = DOCUMENTS_OPENED_IN_SPANISH
    for who, email in PEOPLE.items():
        client = demo.test_client()
        if email is not None:
            login(client, email, DEMO_PASSWORD)
        with client.session_transaction() as state:
            state["lang"] = language
        walk.walk(client, who)
    assert walk.pages > 40, walk.pages
    new = {
        where: sorted(words - REMAINING.get(where, set()))
        for where, words in walk.words.items()
        if words - REMAINING.get(where, set())
    }
    assert not new, "\n".join(f"{k}: {v} in {walk.contexts[k][:4]}" for k, v in sorted(new.items()))
    fewer = {
        k: sorted(words - walk.words.get(k, set()))
        for k, words in REMAINING.items()
        if k.startswith(language) and words - walk.words.get(k, set())
    }
    assert not fewer, f"these words are gone: take them off REMAINING: {fewer}"
    assert not walk.broken, "\n".join(walk.broken)
