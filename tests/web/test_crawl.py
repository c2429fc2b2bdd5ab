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

import json
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

from tests.calc_documents import DOCUMENTS, FORM_DATA, INVALID, NUMBER_AMOUNT
from tests.conftest import BACKENDS, login, make_test_app
from tests.web.test_pseudo_locale import _catalog_words, data_words, html_texts
from tid.demo import DEMO_PASSWORD
from tid.rules import calculators
from tid.rules.readings import READINGS
from tid.web.reform_examples import EXAMPLES


def _walks() -> list[tuple[str, str]]:
    """Each language's walk on a backend of its own: the Spanish one (which opens every
    document) on PostgreSQL and the English one on SQLite when both are tested, so every
    page's queries run on both databases; on the one backend tested otherwise."""
    spanish = "postgresql" if "postgresql" in BACKENDS else BACKENDS[0]
    english = "sqlite" if "sqlite" in BACKENDS else BACKENDS[0]
    return [(spanish, "es"), (english, "en")]


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
# A day or a month as the pages write it (``31 may 2026``, ``May 31, 2026``, ``ago 2024``,
# ``Aug 2024``): its month is the page's own abbreviation ("may" and "ago" are Spanish too),
# not a word of the other language.
_DAY = re.compile(
    r"\b(?:\d{1,2} )?(?:ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic)\.? \d{4}\b"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?: \d{1,2},)? \d{4}\b"
)
# The words each page shape (by language) still shows: the work left; a shape that no longer
# shows them fails too, so the list only shrinks.
# It is a petition form's hint (a date to type, like 2026-03-02); the days a sentence
# carries are written as the page writes its days. A figure or a day in quotation marks is
# a value as it was typed, or an example of what to type, and is read as data.
REMAINING: dict[str, set[str]] = {
    "es /petitions/N?": {"2026-03-02"},
    "en /petitions/N?": {"2026-03-02"},
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
            # a value in quotation marks is as it was typed, or an example of what to type
            unquoted = _QUOTED.sub(" ", text)
            found = set(_IDENTIFIER.findall(text)) | set(_RAW_AMOUNT.findall(unquoted))
            found |= set(_FILES.findall(text)) | set(_ISO_DATE.findall(unquoted))
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


# ---------------------------------------------------------------------------------------
# What the walk cannot reach by links: the calculators' answers to what is sent, and reforms


# Values typed into a calculator's form that it refuses (one field wrong), by the form's names.
TYPED_WRONG: dict[str, dict[str, str]] = {
    "deadlines": {"petition_received": "2026-02-30", "mayor_approved": "ayer"},
    "liens": {**FORM_DATA["liens"], "liens-0-amount": "cien", "sale_proceeds": "-5"},
    "room-tax": {**FORM_DATA["room-tax"], "nightly_rate": "12abc", "nights": "0"},
    "room-tax-distribution": {**FORM_DATA["room-tax-distribution"], "months-1-month": "2023-07"},
    "excise-allocation": {**FORM_DATA["excise-allocation"], "months-0-gasoline_tax": "-1.00"},
    "equalization": {**FORM_DATA["equalization"], "lottery_net_income": "1.001"},
    "impost": {**FORM_DATA["impost"], "formula": "x +"},
}
# A year of the room tax: the waterfall's ten transfers, its debt service owed and paid.
_TWELVE_MONTHS = [
    {"month": f"{2024 if m >= 7 else 2025}-{m:02d}", "collected": "50000.00"}
    for m in (7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6)
]
FULL_YEAR = {
    "room-tax-distribution": {
        "fiscal_year": "2024-25",
        "bank_certified_amount": "1000000.00",
        "months": _TWELVE_MONTHS,
    }
}


def _sent(calculator: str) -> Iterator[tuple[str, dict[str, str]]]:
    """What a person sends a calculator's form: nothing, JSON that does not parse, an empty
    document, a document with a wrong value, an amount written as a number, a form typed
    wrong, and the worked document (pasted and typed) whose result is the page."""
    yield "empty", {}
    yield "bad JSON", {"document_json": '{"fiscal_year": "2024-25",'}
    yield "not JSON", {"document_json": "oops"}
    yield "empty document", {"document_json": "{}"}
    yield "wrong value", {"document_json": json.dumps(INVALID[calculator][0])}
    if calculator in NUMBER_AMOUNT:
        yield "number amount", {"document_json": json.dumps(NUMBER_AMOUNT[calculator][0])}
    yield "typed wrong", TYPED_WRONG[calculator]
    yield "full", {"document_json": json.dumps(DOCUMENTS[calculator])}
    yield "typed", FORM_DATA[calculator]
    if calculator in FULL_YEAR:
        yield "full year", {"document_json": json.dumps(FULL_YEAR[calculator])}


# A reform's title is what its author typed, in their language.
TRIAL_TITLE = {"es": "Reforma de ensayo", "en": "Trial reform"}


def _example_form(key: str, title: str) -> dict[str, str]:
    example = EXAMPLES[key]
    form = {
        "title": title,
        "calculator": example["calculator"],
        "document_json": json.dumps(example["document"]),
    }
    for i, change in enumerate(example["changes"]):
        form |= {
            f"change-{i}-parameter": change["parameter"],
            f"change-{i}-from": change["from"],
            f"change-{i}-value": change["value"],
        }
    return form


def submit(walk: Walk, demo: Flask, client: FlaskClient, clerk: FlaskClient) -> None:
    """Every calculator's answer to what a person sends it (:func:`_sent`); a reform tried on
    the page without an account (refused, then its result), and one the clerk saves, compared
    on its calculator."""
    # the impost's formula, its attributes and parameters are named by whoever writes them
    for document in (DOCUMENTS["impost"], FORM_DATA["impost"], TYPED_WRONG["impost"]):
        walk.data |= set(_WORD.findall(json.dumps(document)))
    for calculator in calculators.FORMS:
        for case, data in _sent(calculator):
            response = client.post(f"/calc/{calculator}", data=data)
            expected = (200,) if case in ("full", "typed", "full year") else (422,)
            assert response.status_code in expected, (calculator, case, response.status_code)
            walk.read(f"{walk.language} POST /calc/{calculator} {case}", response.get_data(True))
    for key in EXAMPLES:
        form = _example_form(key, TRIAL_TITLE[walk.language])
        wrong = {**form, "change-0-value": "nueve", "document_json": "{}"}
        for case, data in (("refused", wrong), ("result", form)):
            response = client.post("/reforms/try/", data=data)
            assert response.status_code == (200 if case == "result" else 422), (key, case)
            walk.read(f"{walk.language} POST /reforms/try/ {key} {case}", response.get_data(True))
        saved = clerk.post("/reforms/new", data=form)
        assert saved.status_code == 302, (key, saved.status_code)
        address = saved.location
        reform_id = address.rstrip("/").rsplit("/", 1)[-1]
        walk.read(f"{walk.language} /reforms/N saved", clerk.get(address).get_data(True))
        calculator = EXAMPLES[key]["calculator"]
        data = {"document_json": form["document_json"], "reform": reform_id}
        for who, person in (("anyone", client), ("clerk", clerk)):
            response = person.post(f"/calc/{calculator}", data=data)
            assert response.status_code == 200, (key, who, response.status_code)
            where = f"{walk.language} POST /calc/{calculator} saved reform {key}"
            walk.read(where, response.get_data(True))


@pytest.fixture
def demo(demo_loaded: str, tmp_path: Path) -> Iterator[Flask]:
    app = make_test_app(demo_loaded, tmp_path)
    yield app
    app.extensions["tid.engine"].dispose()


@pytest.mark.parametrize(("backend", "language"), _walks(), indirect=["backend"])
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
    anyone, clerk = demo.test_client(), demo.test_client()
    login(clerk, PEOPLE["clerk"] or "", DEMO_PASSWORD)
    for client in (anyone, clerk):
        with client.session_transaction() as state:
            state["lang"] = language
    submit(walk, demo, anyone, clerk)
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
