"""What the tests of the special account share: the day they run on, a payment, an
administrative or program expenditure, a district funded with revenue, and the check that
every entry balances."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlmodel import Session, select

from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import JournalEntry
from tid.services import ledger
from tid.services.account import expenditures, payments

TODAY = date(2025, 10, 15)


def pay(
    session: Session, s: Scaffold, amount: str, key: str, **target: str
) -> payments.PaymentResult:
    return payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal(amount),
        today=TODAY,
        key=key,
        **target,
    )


def entries_balance(session: Session) -> None:
    for entry in session.exec(select(JournalEntry)):
        lines = ledger.entry_lines(session=session, entry_id=entry.id or 0)
        assert lines and sum(line.amount for line in lines) == 0


def funded(session: Session, revenue: str = "1000.00") -> tuple[Scaffold, int]:
    s = Scaffold(session)
    bill = s.bill(s.property(), revenue)
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal(revenue),
        today=TODAY,
        key="pay",
        notice_number=str(bill.id),
    )
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Street cleaning"
    )
    session.commit()
    return s, purpose.id or 0


def spend(
    session: Session, s: Scaffold, amount: str, key: str, **kind: object
) -> expenditures.ExpenditureResult:
    return expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        spent_on=date(2025, 9, 1),
        amount=Decimal(amount),
        payee="Vendor",
        today=TODAY,
        key=key,
        **kind,  # type: ignore[arg-type]
    )
