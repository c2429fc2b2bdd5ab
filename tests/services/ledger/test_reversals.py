"""Reversals: a new entry that restores the balances, refused where it would break the cap;
the journal page offers to reverse exactly the entries the ledger reverses."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.conftest import People, login
from tests.services.ledger.conftest import TODAY, entries_balance, funded, pay, spend
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import InputError
from tid.services import ledger
from tid.services.account import expenditures, payments
from tid.services.ledger import (
    BANK,
    OWNER_CREDIT,
    RECEIVABLE,
    CapExceededError,
)


def test_reversal_is_a_new_entry_and_restores_the_balances(session: Session) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "80.00")
    paid = pay(session, s, "100.00", "k", notice_number=str(bill.id))
    rev = ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=paid.entry_id,
        on=date(2025, 8, 5),
        reason="bounced",
        today=TODAY,
    )
    assert rev.booked and rev.entry.reverses_id == paid.entry_id
    d = s.district_id
    assert ledger.balance(session=session, district_id=d, account=BANK) == 0
    assert ledger.balance(
        session=session, district_id=d, account=RECEIVABLE, bill_id=bill.id
    ) == Decimal("80.00")
    assert ledger.balance(session=session, district_id=d, account=OWNER_CREDIT) == 0
    with pytest.raises(InputError, match="already been reversed"):
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=paid.entry_id,
            on=date(2025, 8, 5),
            reason="x",
            today=TODAY,
        )
    with pytest.raises(InputError, match="itself be reversed"):
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=rev.entry.id or 0,
            on=date(2025, 8, 5),
            reason="x",
            today=TODAY,
        )
    entries_balance(session)


def test_reversing_revenue_that_would_break_the_cap_is_refused(session: Session) -> None:
    s, _ = funded(session)
    spend(session, s, "10.00", "a1", administrative=True)
    pay = ledger.entry_by_key(session=session, key="pay")
    assert pay is not None
    # Without the 1,000.00 the cap would be 0.00 against 10.00 spent.
    with pytest.raises(CapExceededError, match="Reverse administrative"):
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=pay.id or 0,
            on=TODAY,
            reason="bounced",
            today=TODAY,
        )
    admin = ledger.entry_by_key(session=session, key="a1")
    assert admin is not None
    ledger.reverse_entry(
        session=session, actor=ACTOR, entry_id=admin.id or 0, on=TODAY, reason="void", today=TODAY
    )
    ledger.reverse_entry(
        session=session, actor=ACTOR, entry_id=pay.id or 0, on=TODAY, reason="bounced", today=TODAY
    )
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == 0


def _refused(session: Session, entry_id: int) -> bool:
    """Whether the ledger refuses to reverse the entry (tried, then undone)."""
    savepoint = session.begin_nested()
    try:
        ledger.reverse_entry(
            session=session, actor=ACTOR, entry_id=entry_id, on=TODAY, reason="test", today=TODAY
        )
    except InputError as exc:
        assert exc.field == "entry", exc.message
        return True
    finally:
        savepoint.rollback()
    return False


def test_the_journal_page_offers_to_reverse_exactly_what_the_ledger_reverses(
    client: FlaskClient, session: Session, people: People
) -> None:
    from tid.models import BillingRun, BillStatus

    s = Scaffold(session, people.district)
    prop = s.property()
    old = s.bill(prop, "300.00")
    pay(session, s, "120.00", "k1", notice_number=str(old.id))  # a payment
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "version": 2, "run_on": date(2025, 7, 20)}
    )
    run3 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "version": 3, "run_on": date(2025, 7, 25)}
    )
    session.add_all([run2, run3])
    session.flush()
    new = s.bill(prop, "100.00", run=run2)
    later = s.bill(prop, "40.00", run=run3)
    old.status, old.superseded_by_id = BillStatus.SUPERSEDED.value, new.id
    session.add(old)
    session.flush()
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)  # bills, superseded
    payments.apply_credit(  # the 20.00 paid over the new bill, applied to the later one
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        property_id=prop.id or 0,
        on=date(2025, 10, 1),
        today=TODAY,
        key="c1",
    )
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    spend(session, s, "10.00", "e1", purpose_id=purpose.id)  # an expenditure
    undone = pay(session, s, "5.00", "k2", notice_number=str(later.id))
    ledger.reverse_entry(  # a reversal, and an entry reversed
        session=session,
        actor=ACTOR,
        entry_id=undone.entry_id,
        on=TODAY,
        reason="cheque",
        today=TODAY,
    )
    ledger.post_entry(  # the opening position a district that moved in brought (not reversible)
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        entry_date=date(2025, 7, 1),
        kind="opening",
        memo=ledger.memo("opening", date="2025-07-01"),
        key="opening-bank",
        lines=[
            ledger.Line(BANK, Decimal("100.00")),
            ledger.Line(ledger.OPENING, Decimal("-100.00")),
        ],
    )
    session.commit()
    login(client, people.association)
    page = client.get(f"/account/{s.district_id}/journal?fy=2025-26").get_data(as_text=True)
    offered = {int(i) for i in re.findall(r"/entries/(\d+)/reverse\"", page)}
    rows = ledger.journal(session=session, district_id=s.district_id)
    assert {row.entry.kind for row in rows} == set(ledger.ENTRY_KINDS)  # every kind is here
    assert all(f">{row.entry.id}</td>" in page for row in rows)  # and shown on the page
    reversed_by_ledger = {row.entry.id for row in rows if not _refused(session, row.entry.id)}
    assert offered == reversed_by_ledger
    assert offered == {row.entry.id for row in rows if row.reversible}
