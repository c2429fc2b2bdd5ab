"""A new kind of lien is one record of the vocabulary (tid/rules/vocab/lien_kinds.py) plus its
words in the catalogs — two places, wherever it ranks: the ranking rule, the register of a
property's liens, the liens page, the lien certificate, the notice's list of what ranks ahead
of the impost and the calculator's tables and labels read it from there, and no other file of
the code or the templates writes the codes of the kinds or says how they rank."""

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
from tests.services.notices.helpers import sample_content
from tests.web.account.support import issue_certificate
from tid.documents import calc_text
from tid.render import notice as notice_pdf
from tid.rules import liens as lien_rules
from tid.rules.messages import N_
from tid.rules.vocab import LIEN_KINDS, LienKind, recorded_kinds
from tid.rules.vocab.lien_kinds import ABOVE, after_impost, ahead_of_impost
from tid.services.liens import impost_lien as liens

PROJECT = Path(__file__).resolve().parent.parent
VOCABULARY = "tid/rules/vocab/lien_kinds.py"
EASEMENT = LienKind("easement", N_("Easement"), N_("an easement"))


PORT = LienKind(
    "port_authority", N_("Port lien"), N_("the port authority's lien on wharfage"), ABOVE, "(e)"
)


@pytest.fixture
def a_new_kind_ranked_ahead(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The vocabulary with one more kind ranked above the impost lien whatever its date."""
    terms = [*LIEN_KINDS, PORT]
    monkeypatch.setattr(LIEN_KINDS, "_terms", {t.code: t for t in terms})
    yield


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


@pytest.mark.usefixtures("a_new_kind_ranked_ahead")
def test_the_notice_and_the_certificate_list_a_new_kind_ranked_ahead(
    client: FlaskClient, session: Session, people: People
) -> None:
    ahead = [str(m) for m in ahead_of_impost(date(2010, 1, 15))]
    assert ahead[-1] == "the port authority's lien on wharfage"  # paragraph (e), the last
    assert any("before the act took effect (2010-01-15)" in m for m in ahead)
    assert [str(m) for m in after_impost(date(2010, 1, 15))] == [
        "liens of any other kind constituted after the act took effect (2010-01-15)"
    ]
    html = notice_pdf.notices_html([sample_content(1)], flowing=True)
    assert "the port authority&#39;s lien on wharfage" in " ".join(html.split())
    s = Scaffold(session, people.district)
    prop = s.property()
    s.bill(prop, "1000.00")
    session.commit()
    login(client, people.association)
    with client.session_transaction() as browser:
        browser["lang"] = "en"
    certificate = _pdf_text(issue_certificate(client, s.district_id, prop.id or 0))
    assert "the port authority's lien on wharfage" in certificate
    assert "liens of any other kind constituted after the act took effect" in certificate


# The words that say how a kind ranks: each kind's ``what`` (as a msgid, in quotes, anywhere)
# and, in the templates, the paragraphs of 21 LPRA § 6653(8) named in prose. A file other than
# the vocabulary that says one of them is a second place to change for a new kind.
RANKING_WORDS = ("13 LPRA § 5924", "Municipal Property Tax Act", "finance public infrastructure")


def test_a_new_kind_touches_the_vocabulary_and_the_catalogs_only() -> None:
    whats = [f"{q}{k.what}" for k in LIEN_KINDS if k.what for q in "\"'"]
    found: set[str] = set()
    for path in _files():
        name = path.relative_to(PROJECT).as_posix()
        text = path.read_text(encoding="utf-8")
        prose = RANKING_WORDS if name.startswith("templates/") else ()
        if any(w in text for w in (*whats, *prose)):
            found.add(name)
    # Besides the catalogs (tid/translations: the words of every kind, in each language), the
    # vocabulary is the one file that says how a kind ranks.
    assert found == {VOCABULARY}
    assert len(found | {"tid/translations"}) <= 2


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
