"""The signed-in pages' heavy content kept per version of the district's figures: a kept
page asks the database only for the reader, the district and the version; a payment, a
reversal, an expenditure or a lien shows at the next request; two roles, two languages and two
readers never see each other's copy or form token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, event
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR
from tests.web.account.support import paid_account
from tid.demo import records
from tid.models import Bill, Property
from tid.services import ledger
from tid.services.account import expenditures, payments
from tid.services.liens import impost_lien as liens
from tid.web.account import downloads

_TOKENS = re.compile(r'name="csrf_token" value="([^"]*)"')
# the form tokens, each request's own
_ONE_TIME = re.compile(r'name="(?:csrf_token|token|job_token)" value="[^"]*"')


@contextmanager
def counted(engine: Engine) -> Iterator[list[str]]:
    """The SQL statements sent to ``engine`` while the block runs."""
    sent: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", note)


def _pages(d: int, property_id: int, run_id: int) -> list[str]:
    return [
        f"/roll/{d}/years/2025-26",
        f"/roll/{d}/billing/{run_id}",
        f"/account/{d}/expenditures?fy=2025-26",
        f"/account/{d}/journal?fy=2025-26",
        f"/account/{d}/payments?fy=2025-26",
        f"/account/{d}/delinquency",
        f"/account/{d}/statement?fy=2025-26",
        f"/account/{d}/statement?fy=2025-26&booked_by=2025-12-31",
        f"/account/{d}?fy=2025-26",
        f"/account/{d}/properties/{property_id}/liens",
    ]


def test_a_kept_page_asks_only_for_the_reader_the_district_and_the_version(
    client: FlaskClient, session: Session, people: People
) -> None:
    """Read again, with nothing written between, each heavy page sends at most three
    statements (the reader's session, the district read with its version, and a small read
    outside the kept content such as the dashboard's export job) whatever its figures need;
    its HTML is the same (the form tokens aside)."""
    s, bill_id = paid_account(session, people, "100.00")
    property_id = ledger_property(session, bill_id)
    login(client, people.association)
    engine = client.application.extensions["tid.engine"]
    for url in _pages(s.district_id, property_id, s.run.id or 0):
        first = client.get(url)
        assert first.status_code == 200, url
        with counted(engine) as sent:
            again = client.get(url)
        assert _ONE_TIME.sub("", again.get_data(as_text=True)) == _ONE_TIME.sub(
            "", first.get_data(as_text=True)
        ), url
        assert len(sent) <= 3, (url, sent)


def ledger_property(session: Session, bill_id: int) -> int:
    bill = session.get(Bill, bill_id)
    assert bill is not None
    return bill.property_id


def _text(client: FlaskClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def test_every_write_shows_at_the_next_request(
    client: FlaskClient, session: Session, people: People
) -> None:
    """A payment, a reversal from the page, an expenditure and a lien each change the pages
    they touch at the very next request (the version moved in the writing transaction)."""
    s, bill_id = paid_account(session, people, "100.00")
    d, property_id = s.district_id, ledger_property(session, bill_id)
    login(client, people.association)
    journal, dashboard = f"/account/{d}/journal?fy=2025-26", f"/account/{d}?fy=2025-26"
    statement, delinquency = f"/account/{d}/statement?fy=2025-26", f"/account/{d}/delinquency"
    liens_page = f"/account/{d}/properties/{property_id}/liens"
    seen = {url: _text(client, url) for url in (journal, dashboard, statement, delinquency)}
    assert "$900.00" in seen[delinquency]  # 1,000.00 billed, 100.00 paid

    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=date(2025, 8, 2),
        amount=Decimal("250.00"),
        today=date(2025, 8, 2),
        key="second",
        notice_number=str(bill_id),
    )
    session.commit()
    for url in (journal, dashboard, statement, delinquency):
        now = _text(client, url)
        assert now != seen[url], url
        seen[url] = now
    assert "$650.00" in seen[delinquency] and "$250.00" in seen[journal]

    reversed_ = client.post(
        f"/account/{d}/entries/{paid.entry_id}/reverse", data={"reason": "cheque devuelto"}
    )
    assert reversed_.status_code == 302
    after = _text(client, journal)
    assert after != seen[journal] and "revertido por el asiento" not in seen[journal]
    assert "revertido por el asiento" in after
    assert "$900.00" in _text(client, delinquency)

    before = _text(client, dashboard)
    expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=d,
        spent_on=date(2025, 8, 3),
        amount=Decimal("12.34"),
        payee="Imprenta del Pueblo",
        today=date(2025, 8, 3),
        key="e",
        administrative=True,
    )
    session.commit()
    assert _text(client, dashboard) != before
    assert "Imprenta del Pueblo" in _text(client, journal)

    assert "Banco Popular" not in _text(client, liens_page)
    liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=property_id,
        kind="mortgage",
        holder="Banco Popular",
        constituted_on=date(2020, 1, 1),
        amount=Decimal("50000.00"),
        today=date(2025, 8, 3),
    )
    session.commit()
    assert "Banco Popular" in _text(client, liens_page)


def test_roles_languages_and_readers_never_see_each_others_copy(
    client: FlaskClient, session: Session, people: People
) -> None:
    """The association (who may reverse an entry) and the auditor (who may not) read the same
    journal page of the same version: each sees their own; Spanish and English each their
    own; two readers' pages each carry only their own form token."""
    s, _bill_id = paid_account(session, people, "100.00")
    url = f"/account/{s.district_id}/journal?fy=2025-26"
    association, other = client, client.application.test_client()
    login(association, people.association)
    writer_page = _text(association, url)
    assert 'name="reason"' in writer_page

    login(other, people.auditor)
    reader_page = _text(other, url)
    assert 'name="reason"' not in reader_page and "$100.00" in reader_page

    with other.session_transaction() as web:
        web["lang"] = "en"
    english = _text(other, url)
    assert "<h1>Journal:" in english and "<h1>Diario:" in reader_page
    with other.session_transaction() as web:
        web["lang"] = "es"
    assert _ONE_TIME.sub("", _text(other, url)) == _ONE_TIME.sub("", reader_page)

    login(other, people.association)  # a second reader of the association's own copy
    mine, theirs = set(_TOKENS.findall(writer_page)), set(_TOKENS.findall(_text(other, url)))
    assert len(mine) == 1 and len(theirs) == 1 and mine != theirs
    # read again (kept): still the reader's own token only, the frame's and the forms' alike
    again = set(_TOKENS.findall(_text(association, url)))
    assert len(again) == 1 and again != theirs


def test_a_liens_one_time_token_is_new_on_every_request(
    client: FlaskClient, session: Session, people: People
) -> None:
    """The owner's credit's form carries a one-time token, new on each request though the
    page's content is kept."""
    s, bill_id = paid_account(session, people, "1500.00")  # 500.00 more than owed: a credit
    property_id = ledger_property(session, bill_id)
    prop = session.get(Property, property_id)
    assert prop is not None
    later = records.billing_run(
        session,
        s.ordinance,
        fiscal_year="2026-27",
        run_on=date(2026, 7, 1),
        due_date=date(2026, 9, 30),
        fingerprint="1" * 64,
        actor="tests",
    )
    s.bill(prop, "300.00", run=later)
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    login(client, people.association)
    url = f"/account/{s.district_id}/properties/{property_id}/liens"
    tokens = [re.findall(r'name="token" value="([^"]+)"', _text(client, url)) for _ in range(2)]
    assert len(tokens[0]) == 1 and len(tokens[1]) == 1 and tokens[0] != tokens[1]


def test_a_roll_file_imported_without_changes_shows_on_the_district_page(
    client: FlaskClient, session: Session, people: People
) -> None:
    """A roll file that changes no property is still listed at the next request: its
    import record moves the district's version by itself."""
    s, _bill_id = paid_account(session, people, "100.00")
    login(client, people.association)
    url = f"/roll/{s.district_id}"
    assert "igual-que-antes.csv" not in _text(client, url)
    records.roll_import(
        session,
        district_id=s.district_id,
        fiscal_year="2025-26",
        sha256="f" * 64,
        rows=1,
        actor="tests",
        file_name="igual-que-antes.csv",
    )
    session.commit()
    assert "igual-que-antes.csv" in _text(client, url)


def test_a_long_documents_button_is_the_readers_own_on_a_kept_page(
    client: FlaskClient, session: Session, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The button that prepares a long document carries a one-time job token new on each
    request, and the job a reader started shows its progress there at the next request,
    though the page's content is kept (nothing of the district's figures moved); a kept
    page's buttons read their latest jobs in one statement."""
    s, _bill_id = paid_account(session, people, "100.00")
    d = s.district_id
    monkeypatch.setattr(downloads, "IN_REQUEST_ROWS", {"pdf": -1, "csv": -1})
    login(client, people.association)
    pages = {
        f"/account/{d}/statement?fy=2025-26": "statement",
        f"/account/{d}/delinquency": "delinquency",
    }
    engine = session.get_bind()
    for url, which in pages.items():
        _text(client, url)
        with counted(engine) as sent:  # kept: the buttons' latest jobs read at once
            tokens = [re.findall(r'name="job_token" value="([^"]+)"', _text(client, url))]
        assert len([q for q in sent if "FROM job" in q]) == 1, (url, sent)
        tokens.append(re.findall(r'name="job_token" value="([^"]+)"', _text(client, url)))
        assert tokens[0] and len(tokens[0]) == len(tokens[1]) >= 2, url
        assert not set(tokens[0]) & set(tokens[1]), url
        started = client.post(
            f"/jobs/pdf/{d}/{which}", data={"fy": "2025-26", "job_token": tokens[1][0]}
        )
        assert started.status_code == 302, url
        assert 'class="job job-queued"' in _text(client, url), url
