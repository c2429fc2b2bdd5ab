"""The app in a pseudo-locale: every word users read comes from the catalogs.

A catalog for the test locale ``eo`` is built here from tid/translations/messages.pot with
every msgstr wrapped as ``⟦…⟧`` and compiled into a temporary translations folder that
Flask-Babel reads beside the real one. The demo is loaded; each demo role (and an anonymous
visitor, and an owner in the portal) walks every GET page of ``app.url_map`` it may reach
(tests/web/access_table.py), the calculators' results, their PDFs and CSVs, and every PDF and
CSV the account issues. The text a reader sees (HTML text and the attributes a reader meets;
PDF text read back) must be marked, or be data.

What counts as data (the allowlist, kept narrow):

- words of the values of the database columns in ``DATA_COLUMNS`` as the demo loaded them:
  names, addresses, emails, codes and the free text users type (payees, notes, grounds) —
  never the columns the system writes (kinds, states, memos, explanations, warnings, audit
  records, job texts);
- numbers, money, percentages, ISO dates and the dates and times of the i18n filters (their
  month names only next to a day or a year), a statute's paragraph letters ("(d)"), paths
  and web addresses;
- text set as code (``code``, ``kbd``, ``samp``, ``pre``: formulas, secrets to type,
  commands), and the rows of the roll file the association uploads (data before it is
  stored);
- ``NAMES``: proper names that are not in the database (the languages' own names on the
  language switch, the product's acronyms).

A word outside both is a leak, reported with the page and its text; ``REMAINING`` lists, by
page, the words still known to leak (the work left, said precisely). A page listed there
that no longer leaks fails too, so the list only shrinks.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale
from pypdf import PdfReader
from sqlalchemy import text
from sqlmodel import Session, col, select

from tests.calc_documents import DOCUMENTS
from tests.conftest import BACKENDS, login, make_test_app
from tests.pdf_checks import page_text, structure_problems
from tests.web.access_table import ACCESS, PUBLIC, SAMPLE_VALUES
from tid.demo import DEMO_PASSWORD, portal_sample
from tid.jobs import tasks
from tid.models import (
    BillingRun,
    District,
    FormulaStudy,
    JournalEntry,
    Notice,
    NoticeBatch,
    Petition,
    Property,
    PropertyLien,
    SavedReform,
    User,
)
from tid.rules import calculators as forms
from tid.rules import fund_example
from tid.rules.vocab import ROLL_COLUMNS
from tid.rules.vocab.formula_names import FORMULA_FIGURES
from tid.services import notices as notice_service
from tid.services.studio import reach


@pytest.fixture(params=[b for b in BACKENDS if b == "sqlite"] or BACKENDS[:1])
def backend(request: pytest.FixtureRequest) -> str:
    """The walk reads text, which no database changes: one backend (SQLite when it is tested)."""
    return str(request.param)


ROOT = Path(__file__).resolve().parents[2]
PSEUDO = "eo"
OPEN, CLOSE = "⟦", "⟧"

# The association of Viejo San Juan (roll, bills, notices) walks first, so the documents are
# read for its district (the Condado's year of bookings is read on the pages of the others).
ROLES = {
    "association": "asociacion@demo.tid.pr",
    "admin": "admin@demo.tid.pr",
    "clerk": "secretaria@demo.tid.pr",
    "auditor": "auditor@demo.tid.pr",
}

# Columns whose values are data a user or the roll supplied (see the module's docstring).
DATA_COLUMNS = {
    "municipality": ("name",),
    "saved_reform": ("public_id", "title", "description", "changes"),
    "district": ("name", "association_name"),
    "petition": ("district_name", "petitioner", "documents", "newspaper", "decision_notes"),
    "authorized_purpose": ("name", "ordinance_reference"),
    "bank_balance": ("note", "actor"),
    "budget": ("rate_reason", "minutes", "actor"),
    "budget_change": ("reason", "actor"),
    "budget_commitment": ("payee", "description", "actor"),
    "finding": ("grounds",),
    "fiscal_year_lock": ("note", "actor"),
    "late_charge_terms": ("ordinance_reference",),
    "ordinance": ("number", "district_name", "association_name", "formula"),
    "property": ("cadastral_number", "physical_address"),
    "user_account": ("email", "name"),
    "property_lien": ("holder", "reference", "actor"),
    "expenditure": ("payee", "description", "reference"),
    "notice_batch": ("sender_name", "sender_address", "how_to_pay", "how_to_pay_en", "actor"),
    "property_year": (
        "owner_names",
        "mailing_urbanization",
        "mailing_line1",
        "mailing_line2",
        "mailing_city",
        "mailing_state",
        "mailing_zip",
        "physical_address",
        "use_class",
        "attributes",
    ),
    "notice": ("public_id", "number", "owner_name", "mailing_address", "article_number"),
    "roll_import": ("file_name", "sha256", "actor"),
    "loginsession": ("address", "user_agent"),
    "journal_entry": ("actor",),
    "billing_run": ("actor",),
    "formula_study": ("title", "variants", "actor"),
    "petition_document": ("title", "created_by", "withdrawn_by", "withdrawn_reason"),
    "document_version": ("filename", "uploaded_by", "reason"),
    "crim_transmittal": ("reference", "created_by"),
}
# Proper names no table holds: the languages on the switch, the product and file formats.
NAMES = {"English", "Español", "tid", "PDF", "CSV", "JSON", "iCal", "LPRA", "SHA", "QR"}
# The units of a file's size, as both languages write them.
NAMES |= {"B", "KB", "MB"}
# The formats of a document without a picture of its page, named on its tile in the file.
NAMES |= {"DOCX", "ODT", "XLSX", "ODS"}
# The programs whose versions the installation page names.
NAMES |= {"Python", "SQLite", "PostgreSQL", "WeasyPrint"}

# The words each page still shows outside the catalogs: the work left, page by page (None: the
# whole document is still to be done).
REMAINING: dict[str, set[str] | None] = {}
# More of the same, kept apart when a page's list grew in two steps.
_MORE_REMAINING: dict[str, set[str]] = {}
for _endpoint, _words in _MORE_REMAINING.items():
    if _endpoint not in REMAINING or REMAINING[_endpoint] is not None:
        REMAINING[_endpoint] = (REMAINING.get(_endpoint) or set()) | _words


# --------------------------------------------------------------------------------------
# The pseudo catalog


def _mark(message: str) -> str:
    return f"{OPEN}{message}{CLOSE}"


def pseudo_translations(folder: Path) -> Path:
    """A translations folder holding the ``eo`` catalog: every message of the .pot marked."""
    with (ROOT / "tid/translations/messages.pot").open("rb") as fh:
        template = read_po(fh)
    catalog = Catalog(locale=PSEUDO)
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            catalog.add(message.id, tuple(_mark(i) for i in message.id), flags=message.flags)
        else:
            catalog.add(message.id, _mark(message.id), flags=message.flags)
    target = folder / PSEUDO / "LC_MESSAGES"
    target.mkdir(parents=True)
    with (target / "messages.mo").open("wb") as out:
        write_mo(out, catalog)
    return folder


# --------------------------------------------------------------------------------------
# What a reader sees

# a text area's text is its field's value, typed by its user, as an input's value is
_SKIPPED_TAGS = {"script", "style", "textarea"}
# Text set as code is data: formulas, secrets to type, file names, identifiers to copy.
_CODE_TAGS = {"code", "kbd", "samp", "pre"}
_READ_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label"}


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._glue = False
        self._svg = 0
        self._svg_part: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            # A chart is one figure: a name wrapped over its lines reads as one text.
            self._svg += 1
            self._svg_part = None
        if tag in _CODE_TAGS and not self._skip:
            self._glue = True  # a message's example set as code: its words go on around it
        if tag in _SKIPPED_TAGS or tag in _CODE_TAGS:
            self._skip += 1
        values = dict(attrs)
        for name in _READ_ATTRIBUTES:
            if values.get(name):
                self.parts.append(str(values[name]))
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.parts.append(str(values["value"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self._svg:
            self._svg -= 1
            self._svg_part = None
        if (tag in _SKIPPED_TAGS or tag in _CODE_TAGS) and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._svg and not self._skip and data.strip():
            if self._svg_part is None:
                self._svg_part = len(self.parts)
                self.parts.append(data)
            else:
                self.parts[self._svg_part] += " " + data
            return
        if not self._skip and data.strip():
            if self._glue and self.parts:
                self.parts[-1] += " " + data
            else:
                self.parts.append(data)
            self._glue = False


def html_texts(page: str) -> list[str]:
    parser = _Visible()
    parser.feed(page)
    return parser.parts


_MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_MONTHS = (
    "ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic|"
    "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|"
    "jan|apr|aug|dec|january|february|march|april|june|july|august|september|october|"
    "november|december"
)
_DATES = re.compile(
    rf"\b\d{{1,2}} (?:de )?(?:{_MONTHS})\.?(?: de)? \d{{4}}\b"
    rf"|\b(?:{_MONTHS})\.? \d{{1,2}}, \d{{4}}\b"
    rf"|\b(?:{_MONTHS})\.? \d{{4}}\b"
    r"|\b\d{1,2}:\d{2}(?:\s?[ap]\.?\s?m\.?)?"
    # the paragraphs of a statute: § 6653(3)(d); paths and addresses: /api/v1/calc
    r"|\([a-z]\)|(?<![\w])/[\w/.-]+|https?://\S+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")


# The certified-mail manifest is USPS PS Form 3877: its captions are the Postal Service's, in
# English as USPS prints the form and as the postal clerk who signs it reads it. They are not
# ours to translate; the words we add on it (what the mailing is, the mailing date, the page
# and grand totals) are catalog entries like any other (tid/render/manifest.py).
USPS_FORM_3877 = (
    "PS Form 3877",
    "Firm Mailing Book for Accountable Mail",
    "Name and Address of Sender",
    "Check type of mail or service: [X] Certified Mail",
    "Affix Stamp Here (if issued as a certificate of mailing, or for additional copies of this "
    "bill) — Postmark and Date of Receipt",
    "No.",
    "Article Number",
    "Name of Addressee, Street, and Post Office Address",
    "Postage",
    "Fee (Certified)",
    "RR Fee (Return Receipt)",
    "Total (Postage + Fees)",
    "Total Number of Pieces Listed by Sender:",
    "Total Number of Pieces Received at Post Office:",
    "Postmaster, Per (Name of receiving employee):",
)
FORMS_OF_OTHERS = {"notices.batch_manifest": USPS_FORM_3877}


# The owner's notice is one document in two languages, each notice a Spanish page then an
# English page, made once and archived as mailed (so the pseudo-locale cannot reach it): each
# page is read against the other language's words (those only the other side of the
# catalogs has), so the Spanish page shows no English and the English page no Spanish.
BILINGUAL_DOCUMENTS = {"notices.notice_pdf", "portal.download"}
# What the Spanish page says in English on purpose, and why.
ADDRESSED_IN_ENGLISH = {
    # the mail's endorsement beside the address, for the Postal Service (as PS Form 3877)
    "CERTIFIED MAIL",
    # the one line that tells an owner who reads no Spanish where their page is
    "English version on the next page.",
}


def _own_words(text_: str) -> str:
    """A message without its placeholders and its quotations (a statute quoted in the other
    language is not the message's own language)."""
    return re.sub(r'%\(\w+\)s|"[^"]*"|“[^”]*”|«[^»]*»', " ", text_)


def _catalog_words() -> tuple[set[str], set[str]]:
    """The words only the English messages have, and those only the Spanish ones have."""
    with (ROOT / "tid/translations/es/LC_MESSAGES/messages.po").open("rb") as fh:
        catalog = read_po(fh)
    english: set[str] = set()
    spanish: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        strs = message.string if isinstance(message.string, tuple | list) else (message.string,)
        if tuple(ids) == tuple(strs):
            continue  # the same in both (a name, Spanish law quoted word for word): no clue
        for text_ in ids:
            english.update(w.lower() for w in _WORD.findall(_own_words(text_)))
        for text_ in strs:
            spanish.update(w.lower() for w in _WORD.findall(_own_words(text_)))
    return english - spanish, spanish - english


_ACCESS_CODE = re.compile(
    rf"\b[{notice_service.ACCESS_ALPHABET}]{{4}}(?:-[{notice_service.ACCESS_ALPHABET}]{{4}})+\b"
)


def other_language_words(pages: list[str], data_words: set[str]) -> set[str]:
    """The words of a bilingual document's pages (Spanish, English, Spanish, …) that only the
    other language has."""
    english_only, spanish_only = _catalog_words()
    data = {w.lower() for w in data_words}
    found: set[str] = set()
    for index, page in enumerate(pages):
        foreign = english_only if index % 2 == 0 else spanish_only
        # the access code printed on the notice is random per notice: data
        page = _ACCESS_CODE.sub(" ", " ".join(page.split()))
        if index % 2 == 0:
            for phrase in ADDRESSED_IN_ENGLISH:
                page = page.replace(phrase, " ")
        words = {w.lower() for w in _WORD.findall(_DATES.sub(" ", page))}
        found |= {w for w in words if w in foreign and w not in data}
    return found


def leaks(texts: Iterable[str], data_words: set[str]) -> set[str]:
    """The words of ``texts`` that are neither marked nor data."""
    found: set[str] = set()
    for chunk in texts:
        while True:
            stripped = _MARKED.sub(" ", chunk)
            if stripped == chunk:
                break
            chunk = stripped
        chunk = chunk.replace(OPEN, " ").replace(CLOSE, " ")
        chunk = _DATES.sub(" ", chunk)
        for word in _WORD.findall(chunk):
            if word not in data_words and word not in NAMES:
                found.add(word)
    return found


def data_words(session: Session) -> set[str]:
    words: set[str] = set()
    for table, columns in DATA_COLUMNS.items():
        for column in columns:
            rows = session.exec(text(f"SELECT {column} FROM {table}"))  # type: ignore[call-overload]
            for (value,) in rows:
                if isinstance(value, str):
                    words.update(_WORD.findall(value))
    # the municipalities of the Equalization Fund's invented figures: data kept in no table
    for name in fund_example.MUNICIPALITIES:
        words.update(_WORD.findall(name))
    return words


# --------------------------------------------------------------------------------------
# The walk


def _samples(session: Session, user: User | None) -> dict[str, str]:
    """A value for every route variable, from the demo, inside the user's district."""
    districts = session.exec(select(District).order_by(District.id)).all()  # type: ignore[arg-type]
    district = next(
        (d for d in districts if user is not None and d.id == user.district_id),
        None,
    )
    if district is None:
        # the district with the most bookings (the Condado's year of them)
        counts = {
            d.id: len(
                session.exec(select(JournalEntry.id).where(JournalEntry.district_id == d.id)).all()
            )
            for d in districts
        }
        district = max(districts, key=lambda d: counts[d.id])
    values = dict(SAMPLE_VALUES)
    values["district_id"] = str(district.id)
    lien = session.exec(
        select(PropertyLien)
        .join(Property, Property.id == PropertyLien.property_id)  # type: ignore[arg-type]
        .where(Property.district_id == district.id)
    ).first()
    prop = (
        session.get(Property, lien.property_id)
        if lien
        else session.exec(select(Property).where(Property.district_id == district.id)).first()
    )
    if prop is not None:
        values["property_id"] = str(prop.id)
    run = session.exec(select(BillingRun).where(BillingRun.district_id == district.id)).first()
    if run is not None:
        values["run_id"] = str(run.id)
        values["fiscal_year"] = run.fiscal_year
    batch = session.exec(
        select(NoticeBatch).where(NoticeBatch.district_id == district.id)
    ).first() or (
        session.exec(select(NoticeBatch)).first() if user is None or not user.district_id else None
    )
    if batch is not None:
        values["batch_id"] = str(batch.id)
        notice = session.exec(select(Notice).where(Notice.batch_id == batch.id)).first()
        if notice is not None:
            values["notice_id"] = str(notice.id)
    petition = session.exec(select(Petition)).first()
    if user is not None and user.district_id:  # an association: a petition about its district
        about = reach.petitions_about(session=session, district=district)
        petition = about[0] if about else None
    if petition is not None:
        values["petition_id"] = str(petition.id)
        values["entity_type"], values["entity_id"] = "petition", str(petition.id)
    reform = session.exec(select(SavedReform)).first()
    if reform is not None:
        values["reform_id"] = reform.public_id
    return values


# Routes that need a secret or a pending sign-in the walk does not have, and machine formats.
NOT_WALKED = {
    "static": "files, not text",
    "auth.second_factor": "answers only to a pending sign-in",
    "auth.enrol": "answers only to a pending sign-in",
    "auth.reset": "needs an emailed secret",
    "petitions.calendar_feed": "needs a calendar secret (an iCal feed)",
    "roll.preview": "walked after an upload of the demo's roll, below",
    "account.aboard_preview": (
        "needs an upload of an opening position into a district with no business yet "
        "(tests/web/account/test_aboard.py)"
    ),
    "leaving.record_download": (
        "a ZIP of CSV tables a large district's export job made "
        "(tests/web/test_district_record_download.py)"
    ),
    "studio.show": "walked after the clerk saves a formula study, below",
    "studio.report": "archived by its job in Spanish or English; the same report is walked as "
    "the studio lays it out (its action pdf), below",
    "studio.amounts": "walked after the clerk saves a formula study, below",
    "notices.batch_print": "the notices of notices.notice_pdf, bound for the printer",
    "portal.notices": "walked as the owner, below",
    "portal.download": "walked as the owner, below",
    "portal_email.settings": "walked as the owner, below",
    "portal_email.confirm": "needs an emailed secret (tests/web/test_portal_email.py)",
    "portal_email.stop": "needs an emailed secret (tests/web/test_portal_email.py)",
    "jobs.document": "needs a finished job",
    "jobs.show": "needs a job",
    "jobs.status_json": "JSON for scripts",
    "api.calculators_list": "JSON for scripts (docs/calculators.md)",
    "api.parameters": "JSON for scripts (docs/calculators.md)",
    "api.reform": "JSON for scripts (docs/calculators.md)",
    "jobs.healthz": "JSON for load balancers",
    "jobs.readyz": "JSON for load balancers",
    "verification.document": "needs a verification code (tests/web/test_verification_pages.py)",
    "account.issued_document": "needs a document issued (tests/web/account/test_closing_pages.py)",
    "account.issued_pdf": "needs a document issued (tests/web/account/test_closing_pages.py)",
    "account.lien_certificate": "GET goes to the documents issued (account.property_payoff)",
    "account.lien_record": "needs a lien's id (tests/web/account/test_lien_records.py)",
    "owner_account.account": "needs a notice the owner opened (tests/web/test_owner_account.py)",
    "closing_api.payoff": "JSON for scripts",
    "closing_api.issued_document": "JSON for scripts",
    "public.year": "needs a published year of the sample district (tests/web/public)",
    "public.feed": "Atom for feed readers (its titles are catalog messages)",
    "public.deadlines": "iCalendar for calendar programs (as petitions.calendar_feed)",
    "public.district_data": "a ZIP of data files for programs (column names are keys)",
    "public.all_data": "a ZIP of data files for programs (column names are keys)",
    "public.published_document": "a published document's own bytes, as archived",
    "public_api.index": "JSON for scripts (the open data's API)",
    "public_api.table": "JSON for scripts (the open data's API)",
    "public_api.openapi": "JSON for scripts (the open data's API)",
    "petition_files.document": "needs a document of a petition's file (test_petition_files.py)",
    "petition_files.download": "a document's own bytes, as the clerk filed them",
    "petition_files.public_download": "a document's own bytes, as the clerk filed them",
    "petition_files.thumbnail": "a picture of a document's first page",
    "roll_check.statement_pdf": "needs a signed statement (tests/web/test_roll_check_pages.py)",
    "roll_check.correction_file": "a file for the CRIM, in Spanish: the roll's own headers",
}


# The documents met that do not read as headings and tables yet (none).
NOT_STRUCTURED: dict[str, list[str]] = {}


def _gets(app: Flask) -> Iterator[Any]:
    for rule in app.url_map.iter_rules():
        if "GET" in (rule.methods or ()) and rule.endpoint not in NOT_WALKED:
            yield rule


def _read(response: Any) -> list[str]:
    kind = response.mimetype
    body = response.get_data()
    if kind == "application/pdf":
        return [page_text(PdfReader(io.BytesIO(body)))]
    if kind == "text/csv":
        rows = csv.reader(io.StringIO(body.decode("utf-8-sig")))
        return [cell for row in rows for cell in row]
    if kind == "text/html":
        return html_texts(body.decode())
    raise AssertionError(f"{response.request.path}: unexpected {kind}")


class Walk:
    def __init__(self, app: Flask, words: set[str]) -> None:
        self.app = app
        self.words = words
        self.found: dict[str, set[str]] = {}
        self.seen: set[str] = set()
        self.documents_seen: set[str] = set()
        self.contexts: dict[str, list[str]] = {}
        self.pdfs: dict[str, bytes] = {}  # the first PDF of each endpoint

    def check(self, endpoint: str, response: Any, where: str) -> None:
        assert response.status_code == 200, (where, response.status_code)
        if response.mimetype in ("application/pdf", "text/csv"):
            if endpoint in self.documents_seen:
                return
            self.documents_seen.add(endpoint)
            if response.mimetype == "application/pdf":
                self.pdfs[endpoint] = response.get_data()
        self.seen.add(endpoint)
        if endpoint in BILINGUAL_DOCUMENTS:
            reader = PdfReader(io.BytesIO(response.get_data()))
            assert len(reader.pages) % 2 == 0, (where, "a Spanish page and an English page")
            pages = [page.extract_text() for page in reader.pages]
            words = other_language_words(pages, self.words)
            if words:
                self.found.setdefault(endpoint, set()).update(words)
                self.found.setdefault(f"{endpoint} at", set()).add(where)
                self.contexts.setdefault(endpoint, []).extend(p[:160] for p in pages)
            return
        allowed = self.words | set(_WORD.findall(" ".join(FORMS_OF_OTHERS.get(endpoint, ()))))
        for chunk in _read(response):
            words = leaks([chunk], allowed)
            if words:
                self.found.setdefault(endpoint, set()).update(words)
                self.found.setdefault(f"{endpoint} at", set()).add(where)
                self.contexts.setdefault(endpoint, []).append(chunk.strip()[:160])

    def get(self, client: FlaskClient, endpoint: str, url: str) -> None:
        if endpoint.endswith(("_pdf", "_csv", "print", "manifest", "certificate")) and (
            endpoint in self.documents_seen
        ):
            return
        self.check(endpoint, client.get(url, follow_redirects=True), url)


def _client(app: Flask, email: str | None) -> FlaskClient:
    client = app.test_client()
    if email is not None:
        login(client, email, DEMO_PASSWORD)
    with client.session_transaction() as state:
        state["lang"] = PSEUDO
    return client


@pytest.fixture
def pseudo_app(demo_loaded: str, tmp_path: Path) -> Iterator[Flask]:
    folder = pseudo_translations(tmp_path / "pseudo")
    app = make_test_app(
        demo_loaded,
        tmp_path,
        BABEL_TRANSLATION_DIRECTORIES=f"{ROOT / 'tid/translations'};{folder}",
        LANGUAGES=["es", "en", PSEUDO],
    )
    sample = portal_sample(app.instance_path)
    assert sample is not None
    app.config["DEMO_NOTICE"] = sample
    yield app
    app.extensions["tid.engine"].dispose()


def test_the_pseudo_catalog_marks_every_message(tmp_path: Path) -> None:
    folder = pseudo_translations(tmp_path)
    from babel.support import Translations

    translations = Translations.load(str(folder), [PSEUDO])
    assert translations.gettext("Journal") == "⟦Journal⟧"
    assert (
        leaks(["⟦Journal⟧ 12 ⟦of %(n)s⟧ Viejo San Juan 1 dic 2026"], {"Viejo", "San", "Juan"})
        == set()
    )
    assert leaks(["⟦Journal⟧ Payment $981.25"], set()) == {"Payment"}
    # a bilingual document: Spanish page, English page; each read against the other's words
    assert other_language_words(["Año fiscal 2025-26", "Fiscal year 2025-26"], set()) == set()
    assert other_language_words(
        ["Año fiscal / Fiscal year", "Fiscal year / Año fiscal"], set()
    ) == {
        "year",
        "año",
    }
    assert other_language_words(["Código de acceso: THE2-WHY3-HAVE", "Access code"], set()) == set()


def _walk_the_studio(app: Flask, walk: Walk, values: dict[str, str]) -> None:
    """The formula studio: the clerk tries two formulas on the Condado's roll (the result
    page), saves the study, and reads it, its archived report and its CSV."""
    clerk = _client(app, ROLES["clerk"])
    form = {
        "source": f"{values['district_id']}:{values['fiscal_year']}",
        "expected_amount": "500,000.00",
        "baseline": "in_force",
        "v1_name": "Uno",
        "v1_formula": "0.01 * assessed_value",
        "v2_name": "Dos",
        "v2_formula": "max(50.00, 0.008 * assessed_value)",
        "title": "Estudio",
    }
    walk.words |= set(_WORD.findall(json.dumps(form)))
    # the apportioning formula the pages suggest, set as code (a PDF's text has no code)
    walk.words |= {"sum"}
    # the formula in force, written with its Spanish names, is shown with the names of the
    # reader's language (the English codes outside Spanish), set as code too
    codes = [c.code for c in ROLL_COLUMNS if c.formula_name_es]
    walk.words |= set(_WORD.findall(" ".join([*codes, *FORMULA_FIGURES.codes()])))
    url = f"/petitions/{values['petition_id']}/studio"
    walk.check("studio.studio_page", clerk.post(url, data={**form, "action": "try"}), url)
    saved = clerk.post(url, data={**form, "action": "save"})
    assert saved.status_code == 302, saved.get_data(as_text=True)[:400]
    assert tasks.run_pending(app) == 1  # the study is saved by its job
    with Session(app.extensions["tid.engine"]) as session:
        study = session.exec(select(FormulaStudy).order_by(col(FormulaStudy.id).desc())).first()
    assert study is not None
    shown = f"/petitions/studies/{study.id}"
    # the report as the studio lays it out in the reader's language (the archived one is
    # the job's, in Spanish or English: NOT_WALKED)
    walk.check("studio.studio_page", clerk.post(url, data={**form, "action": "pdf"}), url)
    for endpoint, path in (
        ("studio.show", shown),
        ("studio.amounts", f"{shown}/amounts.csv"),
    ):
        walk.check(endpoint, clerk.get(path), path)


def test_every_page_pdf_and_csv_speaks_only_from_the_catalogs(pseudo_app: Flask) -> None:
    app = pseudo_app
    with Session(app.extensions["tid.engine"]) as session:
        walk = Walk(app, data_words(session))
        users = {
            role: session.exec(select(User).where(User.email == email)).one()
            for role, email in ROLES.items()
        }
        samples = {role: _samples(session, user) for role, user in users.items()}
        samples[PUBLIC] = _samples(session, None)
    rules = list(_gets(app))
    # The manifest of a mailed run is the archived record, made when it was mailed in the
    # language of whoever mailed it (``tid demo``: Spanish); what a reader meets in their own
    # language is the draft printed before mailing: read here first, so the walk below does
    # not read the record again.
    with Session(app.extensions["tid.engine"]) as session:
        batch = session.exec(select(NoticeBatch).order_by(NoticeBatch.id)).first()  # type: ignore[arg-type]
        assert batch is not None and batch.manifest_sha256
        batch_id = batch.id
        batch.manifest_sha256 = ""  # in this session only: the draft, not the record
        with app.test_request_context("/"), force_locale(PSEUDO):
            draft = notice_service.manifest_pdf(session=session, batch=batch)
        session.rollback()
    walk.check(
        "notices.batch_manifest",
        app.response_class(draft, mimetype="application/pdf"),
        f"the draft manifest of batch {batch_id}",
    )
    for role in (PUBLIC, *ROLES):
        client = _client(app, ROLES.get(role))
        with Session(app.extensions["tid.engine"]) as session:
            walk.words |= data_words(session)  # the sign-in just recorded (its browser)
        values = samples[role]
        for rule in rules:
            access = ACCESS[rule.endpoint]
            if not (access == PUBLIC or (role != PUBLIC and role in access)):
                continue
            if rule.endpoint == "calc.form":
                for name in forms.FORMS:
                    walk.get(client, rule.endpoint, f"/calc/{name}")
                continue
            args = {name: values[name] for name in rule.arguments if name in values}
            if set(args) != set(rule.arguments):
                continue
            walk.get(client, rule.endpoint, rule.build(args, append_unknown=False)[1])
    # the roll's preview, after the association uploads the demo's roll file
    association = _client(app, ROLES["association"])
    district_id = samples["association"]["district_id"]
    roll_file = Path(app.config["INSTANCE_PATH"]) / "demo" / "roll-2026-27.csv"
    walk.words |= set(_WORD.findall(roll_file.read_text(encoding="utf-8-sig")))  # data too
    uploaded = association.post(
        f"/roll/{district_id}/import",
        data={"fiscal_year": "2026-27", "file": (io.BytesIO(roll_file.read_bytes()), "roll.csv")},
        content_type="multipart/form-data",
    )
    assert uploaded.status_code == 302, uploaded.get_data(as_text=True)[:400]
    walk.check("roll.preview", association.get(uploaded.location), uploaded.location)
    _walk_the_studio(app, walk, samples["clerk"])
    # the owner in the portal: their notices and the PDF as mailed
    owner = _client(app, None)
    number, code = app.config["DEMO_NOTICE"]
    assert owner.post("/portal", data={"number": number, "code": code}).status_code == 302
    walk.check("portal.notices", owner.get("/portal/notices"), number)
    with Session(app.extensions["tid.engine"]) as session:
        notice = session.exec(select(Notice).where(Notice.number == number)).one()
    walk.check("portal.download", owner.get(f"/portal/notices/{notice.public_id}.pdf"), number)
    walk.check("portal_email.settings", owner.get(f"/portal/email/{notice.public_id}"), number)
    # the calculators' results ("How it was calculated"), their PDF and CSV, in the pseudo-locale
    client = _client(app, None)
    for document in DOCUMENTS.values():  # what the documents hold is data (ids, names)
        walk.words |= set(_WORD.findall(json.dumps(document, ensure_ascii=False)))
    for name in forms.FORMS:
        document = DOCUMENTS[name]
        body = json.dumps(document)
        walk.check("calc.result", client.post(f"/calc/{name}", data={"document_json": body}), name)
        walk.check(
            "calc.download_pdf", client.post(f"/calc/{name}/pdf", data={"document": body}), name
        )
        walk.check(
            "calc.download_csv", client.post(f"/calc/{name}/csv", data={"document": body}), name
        )

    # Every document met is tagged for a screen reader: headings, each table's header cells.
    assert {"account.statement_pdf", "reforms.note", "notices.notice_pdf"} <= set(walk.pdfs)
    untagged = {e: structure_problems(pdf) for e, pdf in walk.pdfs.items()}
    untagged = {e: problems for e, problems in untagged.items() if problems}
    assert untagged == NOT_STRUCTURED, untagged

    unwalked = {r.endpoint for r in rules} - walk.seen
    unwalked -= {"portal.notices", "portal.download", "portal_email.settings", "roll.preview"}
    assert not unwalked, unwalked
    new = {
        endpoint: sorted(words - (REMAINING.get(endpoint) or set()))
        for endpoint, words in walk.found.items()
        if not endpoint.endswith(" at")
        and not (endpoint in REMAINING and REMAINING[endpoint] is None)
    }
    new = {endpoint: words for endpoint, words in new.items() if words}
    report = {
        e: (w, sorted(walk.found[f"{e} at"])[:3], walk.contexts[e][:12]) for e, w in new.items()
    }
    assert not new, report
    stale = set(REMAINING) - set(walk.found)
    assert not stale, f"these pages no longer leak: take them off REMAINING: {stale}"
