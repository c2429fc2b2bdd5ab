"""Every form that books money or publishes has one effect, whatever the browser does: the
same form sent from several tabs at once (each with its own one-time token, or all with the
same one) books, settles, reverses, releases, corrects, locks or publishes once; the others
are refused or find the work done. After each, the special account verifies as before.

The requests run in threads that wait at a barrier, so they reach the server together; the
verdicts read the database, never the clock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select
from werkzeug.test import TestResponse

from tests.conftest import People, login
from tests.services.ledger_support import ACTOR, Scaffold
from tests.web.account.support import paid_account, setup_account
from tid.clock import today_in_puerto_rico
from tid.models import (
    AuditEvent,
    AuthorizedPurpose,
    BankBalance,
    BillingRun,
    BudgetChange,
    Expenditure,
    FiscalYearLock,
    IssuedDocument,
    JournalEntry,
    Property,
    PublishedDocument,
    User,
)
from tid.services import ledger
from tid.services.account import payments
from tid.services.liens import impost_lien as liens

# Tabs racing one form: each database's own locking is what is checked.
pytestmark = pytest.mark.both_databases

TABS = 6


@dataclass(frozen=True)
class Sent:
    """What the tabs got back: their status codes."""

    codes: list[int]


def _tabs(app: Flask, user: User, n: int) -> list[FlaskClient]:
    clients = []
    for i in range(n):
        client = app.test_client()
        login(client, user, ip=f"127.0.0.{10 + i}")
        clients.append(client)
    return clients


def at_once(
    app: Flask, user: User, send: Callable[[FlaskClient, int], TestResponse], n: int = TABS
) -> Sent:
    """``send`` from ``n`` signed-in tabs at the same moment."""
    clients = _tabs(app, user, n)
    barrier = threading.Barrier(n)

    def one(i: int) -> int:
        barrier.wait(timeout=120)
        return send(clients[i], i).status_code

    with ThreadPoolExecutor(n) as pool:
        codes = list(pool.map(one, range(n)))
    return Sent(codes)


def token(mode: str, i: int) -> str:
    """One token shared by every tab, or one per tab (each tab loaded the form itself)."""
    return "the-same-token-1" if mode == "one" else f"tab-token-{i:02d}"


def count(session: Session, model: type, *where: object) -> int:
    session.expire_all()
    return int(session.exec(select(func.count()).select_from(model).where(*where)).one())


def events(session: Session, action: str) -> int:
    return count(session, AuditEvent, AuditEvent.action == action)


def assert_books_verify(session: Session, district_id: int) -> None:
    """``tid account verify``: every running balance as the journal's lines add up."""
    session.expire_all()
    _checked, differences = ledger.verify(session=session, district_id=district_id)
    assert differences == []


def _property(session: Session, district_id: int) -> Property:
    return session.exec(select(Property).where(Property.district_id == district_id)).one()


MODES = ["one", "many"]


@pytest.mark.parametrize("mode", MODES)
def test_a_payoff_quote_paid_from_parallel_tabs_is_settled_once(
    app: Flask, client: FlaskClient, session: Session, people: People, mode: str
) -> None:
    s, _bill_id = setup_account(session, people)
    liens.set_late_terms(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        surcharge_rate="0.10",
        annual_interest_rate="0.12",
    )
    session.commit()
    d, prop = s.district_id, _property(session, s.district_id)
    login(client, people.association)
    today = today_in_puerto_rico()
    issued = client.post(
        f"/account/{d}/properties/{prop.id}/payoff", data={"good_through": today.isoformat()}
    )
    assert issued.status_code == 302
    quote = session.exec(select(IssuedDocument)).one()
    before = count(session, JournalEntry, JournalEntry.kind == "payment")
    sent = at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/issued/{quote.reference}",
            data={
                "paid_on": today.isoformat(),
                "amount": str(quote.total),
                "token": token(mode, i),
            },
        ),
    )
    assert count(session, JournalEntry, JournalEntry.kind == "payment") == before + 1
    session.expire_all()
    settled = session.exec(select(IssuedDocument)).one()
    assert settled.paid == quote.total and settled.settled_on == today
    assert ledger.balance(session=session, district_id=d, account=ledger.OWNER_CREDIT) == 0
    assert sent.codes.count(302) >= 1 and set(sent.codes) <= {302, 422}
    if mode == "many":
        # The tabs after the first are told which entry settled the quote.
        assert sent.codes.count(422) == TABS - 1
        refused = client.post(
            f"/account/{d}/issued/{quote.reference}",
            data={"paid_on": today.isoformat(), "amount": "1.00", "token": "late-tab"},
        )
        entry = session.get(JournalEntry, settled.settled_entry_id)
        said = " ".join(refused.get_data(as_text=True).split())
        assert refused.status_code == 422 and entry is not None
        assert f"con el asiento {entry.number} del diario" in said
    assert_books_verify(session, d)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reference", ["DEP-77", ""])
def test_a_payment_sent_from_parallel_tabs_is_booked_once(
    app: Flask, session: Session, people: People, mode: str, reference: str
) -> None:
    s, bill_id = setup_account(session, people)
    d = s.district_id
    at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/payments",
            data={
                "date": "2025-08-01",
                "amount": "250.00",
                "reference": reference,
                "notice_number": str(bill_id),
                "token": token(mode, i),
            },
        ),
    )
    assert count(session, JournalEntry, JournalEntry.kind == "payment") == 1
    assert_books_verify(session, d)


@pytest.mark.parametrize("mode", MODES)
def test_an_expenditure_sent_from_parallel_tabs_is_booked_once(
    app: Flask, session: Session, people: People, mode: str
) -> None:
    s, _bill_id = paid_account(session, people, "1000.00")
    d = s.district_id
    purpose = session.exec(
        select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == d)
    ).one()
    sent = at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/expenditures",
            data={
                "date": "2025-08-02",
                "amount": "120.00",
                "payee": "Ferretería Central",
                "category": str(purpose.id),
                "token": token(mode, i),
            },
        ),
    )
    assert count(session, Expenditure, Expenditure.district_id == d) == 1
    assert count(session, JournalEntry, JournalEntry.kind == "expenditure") == 1
    if mode == "many":
        assert sent.codes.count(422) == TABS - 1  # each asked to confirm another one
    assert_books_verify(session, d)


def test_an_expenditure_confirmed_as_another_is_booked_again(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "1000.00")
    d = s.district_id
    purpose = session.exec(
        select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == d)
    ).one()
    login(client, people.association)
    data = {
        "date": "2025-08-02",
        "amount": "120.00",
        "payee": "Ferretería Central",
        "category": str(purpose.id),
    }
    assert (
        client.post(f"/account/{d}/expenditures", data={**data, "token": "e-1"}).status_code == 302
    )
    again = client.post(f"/account/{d}/expenditures", data={**data, "token": "e-2"})
    said = " ".join(again.get_data(as_text=True).split())
    assert again.status_code == 422 and 'id="e-confirm_repeat"' in said
    assert "Ya está registrado un gasto de $120.00 a Ferretería Central" in said
    confirmed = client.post(
        f"/account/{d}/expenditures", data={**data, "token": "e-2", "confirm_repeat": "yes"}
    )
    assert confirmed.status_code == 302
    assert count(session, Expenditure, Expenditure.district_id == d) == 2


def test_a_bank_balance_sent_from_parallel_tabs_is_recorded_once(
    app: Flask, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "1000.00")
    d = s.district_id
    sent = at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/bank", data={"as_of": "2025-08-31", "balance": "1000.00"}
        ),
    )
    assert count(session, BankBalance, BankBalance.district_id == d) == 1
    assert sorted(sent.codes) == [302] + [422] * (TABS - 1)
    assert_books_verify(session, d)


@pytest.mark.parametrize("mode", MODES)
def test_an_owner_credit_applied_from_parallel_tabs_is_applied_once(
    app: Flask, session: Session, people: People, mode: str
) -> None:
    s, _bill_id = paid_account(session, people, "1200.00")  # 200.00 held as credit
    prop = _property(session, s.district_id)
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "fiscal_year": "2026-27", "run_on": date(2026, 7, 1)}
    )
    session.add(run2)
    session.flush()
    s.bill(prop, "80.00", due=date(2026, 9, 30), run=run2)
    session.commit()
    d = s.district_id
    at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/properties/{prop.id}/apply-credit", data={"token": token(mode, i)}
        ),
    )
    assert count(session, JournalEntry, JournalEntry.kind == "credit_applied") == 1
    credit = payments.credit_by_bill(session=session, district_id=d, property_id=prop.id or 0)
    assert sum(credit.values(), Decimal(0)) == Decimal("120.00")
    assert_books_verify(session, d)


def test_an_entry_reversed_from_parallel_tabs_is_reversed_once(
    app: Flask, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "300.00")
    d = s.district_id
    paid = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    sent = at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/entries/{paid.id}/reverse",
            data={"date": "2025-08-03", "reason": "Cheque devuelto"},
        ),
    )
    assert count(session, JournalEntry, JournalEntry.reverses_id == paid.id) == 1
    assert sent.codes.count(302) == TABS  # the refusals are said on the journal's page
    assert_books_verify(session, d)


def test_a_lien_released_from_parallel_tabs_is_released_once(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "1000.00")
    d, prop = s.district_id, _property(session, s.district_id)
    at_once(
        app,
        people.association,
        lambda c, i: c.post(f"/account/{d}/properties/{prop.id}/release"),
        n=3,
    )
    assert count(session, IssuedDocument, IssuedDocument.kind == "release") == 1
    login(client, people.association)
    again = client.post(f"/account/{d}/properties/{prop.id}/release", follow_redirects=True)
    said = " ".join(again.get_data(as_text=True).split())
    assert "esa cancelación sigue en pie" in said
    assert count(session, IssuedDocument, IssuedDocument.kind == "release") == 1
    assert_books_verify(session, d)


def test_a_lien_corrected_from_parallel_tabs_is_corrected_once(
    app: Flask, session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    prop = s.property("123-456-789-01")
    lien = liens.add_lien(
        session=session,
        actor=ACTOR,
        property_id=prop.id or 0,
        kind="mortgage",
        holder="Banco Uno",
        constituted_on=date(2015, 3, 1),
        amount=Decimal("5000.00"),
        today=date(2025, 8, 1),
    )
    session.commit()
    d = s.district_id
    at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/account/{d}/properties/{prop.id}/liens/{lien.id}",
            data={
                "action": "correct",
                "kind": "mortgage",
                "holder": "Banco Uno",
                "constituted_on": "2015-03-01",
                "amount": "5500.00",
                "reference": "",
                "reason": "La escritura dice 5,500",
            },
        ),
    )
    assert events(session, "lien.correct") == 1


def test_a_year_locked_from_parallel_tabs_is_locked_once(
    app: Flask, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "100.00")
    d = s.district_id
    at_once(app, people.admin, lambda c, i: c.post(f"/account/{d}/years/2025-26/lock"))
    assert count(session, FiscalYearLock, FiscalYearLock.district_id == d) == 1
    assert events(session, "account.year_locked") == 1


def test_a_year_published_from_parallel_tabs_is_published_once(
    app: Flask, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "100.00")
    d = s.district_id
    url = f"/publico/distritos/{d}/publicacion/2025-26"
    at_once(app, people.association, lambda c, i: c.post(url, data={"published": "1"}))
    assert events(session, "published_year.publish") == 1
    at_once(app, people.association, lambda c, i: c.post(url, data={"published": "0"}))
    assert events(session, "published_year.withdraw") == 1


def test_a_statement_published_from_parallel_tabs_is_published_once(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "100.00")
    d = s.district_id
    login(client, people.association)
    client.post(f"/publico/distritos/{d}/publicacion/2025-26", data={"published": "1"})
    sent = at_once(
        app,
        people.association,
        lambda c, i: c.post(
            f"/publico/distritos/{d}/publicacion/documentos", data={"fiscal_year": "2025-26"}
        ),
        n=3,
    )
    assert count(session, PublishedDocument, PublishedDocument.district_id == d) == 1
    assert sorted(sent.codes) == [302, 422, 422]


def test_tabs_of_two_districts_do_not_wait_for_each_other_to_book(
    app: Flask, session: Session, people: People
) -> None:
    """The lock is the district's: a payment in another district is booked alongside."""
    s, bill_id = setup_account(session, people)
    other = Scaffold(session, people.other_district)
    other_bill = other.bill(other.property("999-999-999-01"), "500.00")
    session.commit()
    targets = [
        (s.district_id, bill_id, people.association),
        (other.district_id, other_bill.id, people.other_association),
    ]
    clients = [(_tabs(app, user, 1)[0], d, b) for d, b, user in targets]
    barrier = threading.Barrier(2)

    def pay(i: int) -> int:
        c, d, b = clients[i]
        barrier.wait(timeout=120)
        data = {"date": "2025-08-01", "amount": "50.00", "notice_number": str(b), "token": "t-1"}
        return c.post(f"/account/{d}/payments", data=data).status_code

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(pay, range(2))) == [302, 302]
    assert count(session, JournalEntry, JournalEntry.kind == "payment") == 2


def test_a_budget_drafted_approved_and_amended_from_parallel_tabs_is_written_once(
    app: Flask, session: Session, people: People
) -> None:
    """A budget's draft, its approval and an amendment, each sent from every tab at once:
    one step of its history each (a draft sent again is no revision, an amendment that
    changes nothing is refused)."""
    s, _bill_id = paid_account(session, people, "1000.00")
    d = s.district_id
    purpose = session.exec(
        select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == d)
    ).first()
    assert purpose is not None
    url = f"/account/{d}/budget?fy=2025-26"
    form = {
        "billed": "1000.00",
        "collection_rate": "100",
        "other_income": "0",
        "carry_over": "0",
        "line_admin": "50.00",
        f"line_{purpose.id}": "900.00",
    }

    def steps(kind: str) -> int:
        return count(session, BudgetChange, BudgetChange.kind == kind)

    at_once(app, people.association, lambda c, i: c.post(url, data=form))
    assert (steps("drafted"), steps("revised")) == (1, 0)
    approve = f"/account/{d}/budget/approve?fy=2025-26"
    data = {"approved_on": "2025-08-30", "minutes": "Acta 2025-08"}
    at_once(app, people.association, lambda c, i: c.post(approve, data=data))
    assert steps("approved") == 1 and events(session, "budget.approved") == 1
    amended = {**form, "line_admin": "40.00", "reason": "Menos oficina"}
    sent = at_once(app, people.association, lambda c, i: c.post(url, data=amended))
    assert steps("amended") == 1 and events(session, "budget.amended") == 1
    assert sent.codes.count(302) == 1
