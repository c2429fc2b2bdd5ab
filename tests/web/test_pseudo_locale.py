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
from pypdf import PdfReader
from sqlalchemy import text
from sqlmodel import Session, select

from tests.calc_documents import DOCUMENTS
from tests.conftest import login, make_test_app
from tests.pdf_checks import page_text
from tests.web.access_table import ACCESS, PUBLIC, SAMPLE_VALUES
from tid import calc_io
from tid.demo import DEMO_PASSWORD
from tid.models import (
    BillingRun,
    District,
    JournalEntry,
    Notice,
    NoticeBatch,
    Petition,
    Property,
    PropertyLien,
    User,
)

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
    "district": ("name", "association_name"),
    "petition": ("district_name", "petitioner", "documents", "newspaper", "decision_notes"),
    "authorized_purpose": ("name", "ordinance_reference"),
    "bank_balance": ("note", "actor"),
    "finding": ("grounds",),
    "fiscal_year_lock": ("note", "actor"),
    "late_charge_terms": ("ordinance_reference",),
    "ordinance": ("number", "district_name", "association_name"),
    "property": ("cadastral_number", "physical_address"),
    "user_account": ("email", "name"),
    "property_lien": ("holder", "reference", "actor"),
    "expenditure": ("payee", "description", "reference"),
    "notice_batch": ("sender_name", "sender_address", "how_to_pay", "actor"),
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
}
# Proper names no table holds: the languages on the switch, the product and file formats.
NAMES = {"English", "Español", "tid", "PDF", "CSV", "JSON", "iCal", "LPRA", "SHA", "QR"}

# The words each page still shows outside the catalogs: the work left, page by page (None: the
# whole document is still to be done).
REMAINING: dict[str, set[str] | None] = {
    # CSV headers are field keys
    "account.delinquency_csv": {
        "bill",
        "cadastral",
        "date",
        "days",
        "due",
        "fiscal",
        "impost",
        "interest",
        "late",
        "number",
        "owed",
        "owners",
        "surcharge",
        "year",
    },
    # CSV headers and line keys are field keys
    "account.statement_csv": {
        "administrative",
        "amount",
        "balance",
        "cap",
        "closing",
        "credits",
        "fiscal",
        "impost",
        "line",
        "opening",
        "owner",
        "program",
        "purpose",
        "rate",
        "ratio",
        "received",
        "revenue",
        "total",
        "year",
    },
    # formula explanations: tid/rules/imposts.py still writes them with its own words per language
    "roll.property_detail": {
        "as",
        "assessed",
        "class",
        "false",
        "hotel",
        "is",
        "max",
        "use",
        "value",
    },
    # formula explanations (tid/rules/imposts.py's own words per language)
    "roll.billing_run": {
        "as",
        "assessed",
        "cents",
        "class",
        "false",
        "hotel",
        "is",
        "max",
        "rooms",
        "rounded",
        "true",
        "use",
        "value",
    },
    # USPS PS Form 3877, printed in English as the Postal Service's form is
    "notices.batch_manifest": {
        "Accountable",
        "Address",
        "Addressee",
        "Affix",
        "Article",
        "Book",
        "Certified",
        "Date",
        "Fee",
        "Firm",
        "Form",
        "Grand",
        "Here",
        "Listed",
        "Mail",
        "Mailing",
        "Name",
        "No",
        "Notices",
        "Number",
        "Office",
        "PS",
        "Page",
        "Per",
        "Pieces",
        "Post",
        "Postage",
        "Postmark",
        "Postmaster",
        "Receipt",
        "Received",
        "Sender",
        "Stamp",
        "Street",
        "Total",
        "X",
        "additional",
        "all",
        "and",
        "as",
        "batch",
        "bill",
        "certificate",
        "copies",
        "date",
        "employee",
        "for",
        "if",
        "issued",
        "mailing",
        "of",
        "pages",
        "pieces",
        "receiving",
        "service",
        "this",
        "total",
        "type",
    },
    # formula explanations (tid/rules/imposts.py's own words per language)
    "portal.notices": {
        "as",
        "assessed",
        "class",
        "is",
        "max",
        "rooms",
        "true",
        "use",
        "value",
    },
    # the impost calculator's explanation of each amount: tid/rules/imposts.py still writes it
    # with its own words per language (explanation / explanation_es), as on the roll's pages
    "calc.result": {"as", "false", "is"},
    # the notice PDF (tid/notice_pdf.py, both languages on each page, Spanish written in the
    # code): rewritten by issue 10's notice fix; its access codes are random per notice
    "notices.notice_pdf": None,
    "portal.download": None,
}

# More of the same work left, page by page: the English "how to pay" a run keeps for the
# English page of its notices (shown in its field), the PS Form 3877 (the Postal Service's
# own form, in English), and the words of formula explanations and citations those pages
# now show.
_MORE_REMAINING: dict[str, set[str]] = {
    "roll.property_detail": {"or"},
    "roll.billing_run": {"or", "to"},
    "notices.batch_new": {
        "Association",
        "Check",
        "at",
        "box",
        "by",
        "its",
        "mail",
        "money",
        "office",
        "or",
        "order",
        "s",
        "sender",
        "the",
        "to",
    },
    "notices.batch_manifest": {"Check", "Fees", "RR", "Return", "at", "by", "mail", "or"},
    "portal.notices": {"or"},
}
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

_SKIPPED_TAGS = {"script", "style"}
# Text set as code is data: formulas, secrets to type, file names, identifiers to copy.
_CODE_TAGS = {"code", "kbd", "samp", "pre"}
_READ_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label"}


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS or tag in _CODE_TAGS:
            self._skip += 1
        values = dict(attrs)
        for name in _READ_ATTRIBUTES:
            if values.get(name):
                self.parts.append(str(values[name]))
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.parts.append(str(values["value"]))

    def handle_endtag(self, tag: str) -> None:
        if (tag in _SKIPPED_TAGS or tag in _CODE_TAGS) and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data)


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
    if petition is not None:
        values["petition_id"] = str(petition.id)
        values["entity_type"], values["entity_id"] = "petition", str(petition.id)
    return values


# Routes that need a secret or a pending sign-in the walk does not have, and machine formats.
NOT_WALKED = {
    "static": "files, not text",
    "auth.second_factor": "answers only to a pending sign-in",
    "auth.enrol": "answers only to a pending sign-in",
    "auth.reset": "needs an emailed secret",
    "petitions.calendar_feed": "needs a calendar secret (an iCal feed)",
    "roll.preview": "walked after an upload of the demo's roll, below",
    "notices.batch_print": "the notices of notices.notice_pdf, bound for the printer",
    "portal.notices": "walked as the owner, below",
    "portal.download": "walked as the owner, below",
    "jobs.document": "needs a finished job",
    "jobs.show": "needs a job",
    "jobs.status_json": "JSON for scripts",
    "api.calculators_list": "JSON for scripts (CALCULATORS.md)",
    "api.parameters": "JSON for scripts (CALCULATORS.md)",
    "jobs.healthz": "JSON for load balancers",
    "jobs.readyz": "JSON for load balancers",
}


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

    def check(self, endpoint: str, response: Any, where: str) -> None:
        assert response.status_code == 200, (where, response.status_code)
        if response.mimetype in ("application/pdf", "text/csv"):
            if endpoint in self.documents_seen:
                return
            self.documents_seen.add(endpoint)
        self.seen.add(endpoint)
        for chunk in _read(response):
            words = leaks([chunk], self.words)
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
def pseudo_app(database_url: str, tmp_path: Path) -> Iterator[Flask]:
    folder = pseudo_translations(tmp_path / "pseudo")
    app = make_test_app(
        database_url,
        tmp_path,
        BABEL_TRANSLATION_DIRECTORIES=f"{ROOT / 'tid/translations'};{folder}",
        LANGUAGES=["es", "en", PSEUDO],
    )
    result = app.test_cli_runner().invoke(args=["demo"])
    assert result.exit_code == 0, result.output
    sample = re.search(r"notice (\S+), access code (\S+)", result.output)
    assert sample, result.output
    app.config["DEMO_NOTICE"] = (sample[1], sample[2])
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
                for name in calc_io.FORMS:
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
    # the owner in the portal: their notices and the PDF as mailed
    owner = _client(app, None)
    number, code = app.config["DEMO_NOTICE"]
    assert owner.post("/portal", data={"number": number, "code": code}).status_code == 302
    walk.check("portal.notices", owner.get("/portal/notices"), number)
    with Session(app.extensions["tid.engine"]) as session:
        notice = session.exec(select(Notice).where(Notice.number == number)).one()
    walk.check("portal.download", owner.get(f"/portal/notices/{notice.public_id}.pdf"), number)
    # the calculators' results ("How it was calculated"), their PDF and CSV, in the pseudo-locale
    client = _client(app, None)
    for document in DOCUMENTS.values():  # what the documents hold is data (ids, names)
        walk.words |= set(_WORD.findall(json.dumps(document, ensure_ascii=False)))
    for name in calc_io.FORMS:
        document = DOCUMENTS[name]
        body = json.dumps(document)
        walk.check("calc.result", client.post(f"/calc/{name}", data={"document_json": body}), name)
        walk.check(
            "calc.download_pdf", client.post(f"/calc/{name}/pdf", data={"document": body}), name
        )
        walk.check(
            "calc.download_csv", client.post(f"/calc/{name}/csv", data={"document": body}), name
        )

    unwalked = {r.endpoint for r in rules} - walk.seen
    unwalked -= {"portal.notices", "portal.download", "roll.preview"}
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
