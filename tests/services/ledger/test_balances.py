"""Balances: as they stood at a date or a moment, and what a bill not yet booked owes."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlmodel import Session, select

from tests.services.ledger.conftest import TODAY, pay
from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import JournalEntry
from tid.services import ledger
from tid.services.account import payments
from tid.services.ledger import BANK


def test_the_balances_as_they_stood_at_a_date_or_a_moment_come_from_the_journal(
    session: Session,
) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "100.00")
    d = s.district_id
    pay(session, s, "40.00", "a", notice_number=str(bill.id))  # dated 2025-08-01
    session.commit()
    cut = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    late = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=date(2025, 9, 10),
        amount=Decimal("25.00"),
        today=TODAY,
        key="b",
        notice_number=str(bill.id),
    )
    session.commit()
    late_entry = session.get(JournalEntry, late.entry_id)
    assert late_entry is not None
    assert ledger.owed_by_bill(session=session, district_id=d) == {bill.id: Decimal("35.00")}
    assert ledger.owed_by_bill(session=session, district_id=d, until=date(2025, 8, 31)) == {
        bill.id: Decimal("60.00")
    }
    assert ledger.owed_by_bill(session=session, district_id=d, until=date(2025, 7, 1)) == {
        bill.id: Decimal("100.00")
    }
    # As the journal stood before the second payment was booked.
    assert ledger.owed_by_bill(
        session=session, district_id=d, booked_before=late_entry.created_at
    ) == {bill.id: Decimal("60.00")}
    assert ledger.balance(
        session=session, district_id=d, account=BANK, booked_before=late_entry.created_at
    ) == Decimal("40.00")
    assert ledger.balance(
        session=session, district_id=d, account=BANK, until=date(2025, 8, 31)
    ) == Decimal("40.00")
    # Before the bill itself was booked: the active bill is owed in full all the same.
    first = session.exec(select(JournalEntry).where(JournalEntry.kind == "bill")).one()
    assert ledger.owed_by_bill(session=session, district_id=d, booked_before=first.created_at) == {
        bill.id: Decimal("100.00")
    }
    assert cut.created_at <= late_entry.created_at


def test_a_bill_not_yet_booked_is_owed_in_full_until_booked(session: Session) -> None:
    """The bills made since the district's last booking are owed in full until booked
    (a billing run's moment), then their running balances say it."""
    s = Scaffold(session)
    first = s.bill(s.property(), "10.00")
    assert ledger.unbooked_owed(session=session, district_id=s.district_id) == {
        first.id: Decimal("10.00")
    }
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    later = s.bill(s.property(), "25.00")  # made after the mark
    session.commit()
    assert ledger.unbooked_owed(session=session, district_id=s.district_id) == {
        later.id: Decimal("25.00")
    }
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    assert ledger.unbooked_owed(session=session, district_id=s.district_id) == {}
    assert ledger.bill_balances(session=session, district_id=s.district_id) == {
        first.id: Decimal("10.00"),
        later.id: Decimal("25.00"),
    }
