"""A property's account as its owner sees it in the portal (21 LPRA § 6653(5), (8)): every
bill across the fiscal years, every payment, credit, reversal and late charge booked on them,
with the running balance; the surcharge and interest accrued to today; and what a payoff
quote good through today + 30 days would say. Only the property of a notice the owner's codes
opened (tid/web/portal_account.py checks it) — never another property's, never an owner's
name."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session, col, select

from tid.models import Bill, BillStatus, JournalEntry, JournalLine, Notice, Property
from tid.rules.money import ZERO
from tid.services import ledger
from tid.services.closing import issued, payoffs
from tid.services.liens import impost_lien as liens


@dataclass(frozen=True)
class Movement:
    """One entry of the journal on the property's bills: its day, its kind (the journal's
    code), the fiscal years it touched, what it changed of what is owed (the impost; positive
    = more owed), the late charges it paid, the credit it left held, and the balance after."""

    on: date
    kind: str
    fiscal_years: str
    owed_change: Decimal
    late_charges: Decimal
    credit: Decimal
    balance: Decimal


@dataclass(frozen=True)
class YearLine:
    fiscal_year: str
    due_date: date
    billed: Decimal
    owed: Decimal
    surcharge: Decimal
    interest: Decimal


@dataclass(frozen=True)
class OwnerAccount:
    cadastral_number: str
    physical_address: str
    years: tuple[YearLine, ...]
    movements: tuple[Movement, ...]
    owed: Decimal  # the impost still owed (secured by the lien)
    charges: Decimal  # surcharge and interest accrued to today (owed, not secured)
    credit: Decimal  # held for the owner
    quote: issued.Figures  # a payoff good through ``good_through``
    good_through: date

    @property
    def total_today(self) -> Decimal:
        return self.owed + self.charges


def opened_notice(
    *, session: Session, notice_ids: Collection[int], public_id: str
) -> Notice | None:
    """The notice of ``public_id`` if the owner's codes opened it (else None)."""
    if not public_id or len(public_id) > 32 or not notice_ids:
        return None
    notice = session.exec(select(Notice).where(Notice.public_id == public_id)).first()
    if notice is None or notice.id not in set(notice_ids) or notice.mailed_on is None:
        return None
    return notice


def _movements(session: Session, bills: dict[int, Bill]) -> list[Movement]:
    rows = session.exec(
        select(
            col(JournalEntry.id), col(JournalEntry.entry_date), col(JournalEntry.kind), JournalLine
        )
        .join(JournalLine, col(JournalLine.entry_id) == col(JournalEntry.id))
        .where(col(JournalLine.bill_id).in_(list(bills)))
        .order_by(col(JournalEntry.entry_date), col(JournalEntry.id))
    ).all()
    grouped: dict[int, tuple[date, str, list[JournalLine]]] = {}
    for entry_id, on, kind, line in rows:
        grouped.setdefault(entry_id or 0, (on, kind, []))[2].append(line)
    movements = []
    balance = ZERO
    for on, kind, lines in grouped.values():
        owed = sum((x.amount for x in lines if x.account == ledger.RECEIVABLE), ZERO)
        late = -sum((x.amount for x in lines if x.account == ledger.LATE_CHARGES), ZERO)
        credit = -sum((x.amount for x in lines if x.account == ledger.OWNER_CREDIT), ZERO)
        if owed == 0 and late == 0 and credit == 0:
            continue
        balance += owed
        years = sorted({bills[x.bill_id].fiscal_year for x in lines if x.bill_id in bills})
        movements.append(Movement(on, kind, ", ".join(years), owed, late, credit, balance))
    return movements


def account(*, session: Session, property_id: int, today: date) -> OwnerAccount:
    """The property's account across the years, as of ``today``."""
    prop = session.get(Property, property_id)
    if prop is None:
        raise LookupError(property_id)
    bills = {
        b.id or 0: b
        for b in session.exec(
            select(Bill).where(Bill.property_id == property_id).order_by(col(Bill.due_date))
        )
    }
    lien = liens.impost_lien(session=session, prop=prop, today=today)
    owed = {bill.id: (outstanding, charges) for bill, outstanding, charges in lien.bills}
    years = []
    for b in bills.values():
        if b.status != BillStatus.ACTIVE.value:
            continue
        outstanding, charges = owed.get(b.id, (ZERO, None))
        surcharge = charges.surcharge if charges else ZERO
        interest = charges.interest if charges else ZERO
        years.append(
            YearLine(b.fiscal_year, b.due_date, b.amount, outstanding, surcharge, interest)
        )
    movements = _movements(session, bills) if bills else []
    good_through = payoffs.default_good_through(today)
    return OwnerAccount(
        cadastral_number=prop.cadastral_number,
        physical_address=prop.physical_address,
        years=tuple(years),
        movements=tuple(movements),
        owed=lien.secured,
        charges=lien.unsecured,
        credit=sum((m.credit for m in movements), ZERO),
        quote=payoffs.figures(session=session, prop=prop, through=good_through),
        good_through=good_through,
    )
