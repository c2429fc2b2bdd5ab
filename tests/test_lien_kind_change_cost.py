"""A new kind of lien is one record of the vocabulary (tid/rules/vocab/lien_kinds.py) plus its
label in the catalogs: the ranking rule, the register of a property's liens, the liens page,
the lien certificate and the calculator's tables and labels read it from there, and no other
file of the code or the templates writes the codes of the kinds."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR, Scaffold
from tests.web.account.support import issue_certificate
from tid.documents import calc_text
from tid.rules import liens as lien_rules
from tid.rules.messages import N_
from tid.rules.vocab import LIEN_KINDS, LienKind, recorded_kinds
from tid.services import liens

PROJECT = Path(__file__).resolve().parent.parent
VOCABULARY = "tid/rules/vocab/lien_kinds.py"
EASEMENT = LienKind("easement", N_("Easement"), N_("an easement"))


@pytest.fixture
def a_new_lien_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The vocabulary with one more kind, an easement, ranked by its date, before "other"."""
    terms = list(LIEN_KINDS)
    terms.insert(LIEN_KINDS.order("other"), EASEMENT)
    monkeypatch.setattr(LIEN_KINDS, "_terms", {t.code: t for t in terms})
    yield


def _pdf_text(data: bytes) -> str:
    return " ".join(
        " ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(data)).pages
    )


@pytest.mark.usefixtures("a_new_lien_kind")
def test_the_rule_and_the_calculator_tables_rank_and_name_a_new_kind(app: Flask) -> None:
    document = lien_rules.liens_document(
        {
            "liens": [
                {"id": "T", "kind": "tid_impost", "constituted_on": "2015-01-01", "amount": "1"},
                {"id": "E", "kind": "easement", "constituted_on": "2016-01-01", "amount": "2"},
            ]
        }
    )
    ranked = {line["id"]: line for line in document["ranking"]}
    assert ranked["E"]["group"] == 3 and "an easement" in str(ranked["E"]["reason"])
    assert "easement" in recorded_kinds()
    with app.test_request_context():
        assert calc_text.label("easement") == "Easement"
        assert calc_text.show("ranking.kind", "easement") == "Easement"


@pytest.mark.usefixtures("a_new_lien_kind")
def test_the_register_the_page_and_the_certificate_show_a_new_kind(
    client: FlaskClient, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    prop = s.property()
    s.bill(prop, "1000.00")
    liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=prop.id or 0,
        kind="easement",
        holder="Servidumbre de paso",
        constituted_on=date(2016, 3, 1),
        amount=Decimal("700.00"),
        today=date(2025, 8, 1),
    )
    session.commit()
    login(client, people.association)
    d = s.district_id
    with client.session_transaction() as browser:
        browser["lang"] = "en"
    page = client.get(f"/account/{d}/properties/{prop.id}/liens").get_data(as_text=True)
    assert "Easement" in page and "Servidumbre de paso" in page
    certificate = issue_certificate(client, d, prop.id or 0)
    assert "Easement" in _pdf_text(certificate)


@pytest.mark.usefixtures("a_new_lien_kind")
def test_the_liens_form_offers_a_new_kind(
    client: FlaskClient, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    prop = s.property()
    session.commit()
    login(client, people.association)
    page = client.get(f"/account/{s.district_id}/properties/{prop.id}/liens")
    shown = page.get_data(as_text=True)
    assert 'value="mortgage"' in shown  # the form is there
    assert 'value="easement"' in shown


# --------------------------------------------------------------------------- no other list


def _code_pattern() -> re.Pattern[str]:
    codes = "|".join(re.escape(code) for code in LIEN_KINDS.codes())
    return re.compile(rf"""["']({codes})["']""")


def _files() -> Iterator[Path]:
    yield from sorted((PROJECT / "templates").rglob("*.html"))
    for path in sorted((PROJECT / "tid").rglob("*")):
        if path.suffix in {".py", ".html", ".js"} and path.is_file():
            yield path


OTHER_VOCABULARIES = ("tid/rules/vocab/document_kinds.py",)


def test_only_the_vocabulary_writes_the_codes_of_the_kinds() -> None:
    pattern = _code_pattern()
    found: dict[str, list[str]] = {}
    for path in _files():
        name = path.relative_to(PROJECT).as_posix()
        # The demo's liens are data: a lien of a kind, not a list of the kinds. Another
        # vocabulary may hold a code of the same word (a document "of another kind").
        if name in (VOCABULARY, *OTHER_VOCABULARIES) or name.startswith("tid/demo/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.setdefault(name, []).append(f"{number}: {line.strip()[:100]}")
    assert not found, found


def test_the_search_finds_a_written_code() -> None:
    pattern = _code_pattern()
    for line in ('if kind == "mortgage":', "{% if k != 'tid_impost' %}", "KINDS = ('judgment',"):
        assert pattern.search(line), line
    for line in ("a mortgage", "mortgage_id = 3", '"mortgages"'):
        assert not pattern.search(line), line
