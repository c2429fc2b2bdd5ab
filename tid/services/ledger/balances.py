"""Balances: what an account, a bill or a day adds up to, read from the running balances
(or from the journal as it stood at a moment), and what is still owed on each bill."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, extract, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, func, select

from tid.models import (
    Bill,
    BillingRun,
    BillLedger,
    BillStatus,
    JournalEntry,
    JournalLine,
    LedgerDay,
    LedgerState,
)
from tid.rules.money import CENT, ZERO
from tid.services.ledger.accounts import (
    RECEIVABLE,
)
from tid.services.ledger.running import BILLS, PER_BILL


def _sum(
    session: Session,
    district_id: int,
    *,
    accounts: Sequence[str] | None = None,
    account_prefix: str | None = None,
    bill_id: int | None = None,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
    booked_from: datetime | None = None,
) -> Decimal:
    """A sum of journal lines read from the journal itself (bounded by the caller)."""
    stmt = (
        select(func.sum(JournalLine.amount))
        .select_from(JournalLine)
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(JournalEntry.district_id == district_id)
    )
    if accounts is not None:
        stmt = stmt.where(col(JournalLine.account).in_(accounts))
    if account_prefix is not None:
        stmt = stmt.where(col(JournalLine.account).startswith(account_prefix))
    if bill_id is not None:
        stmt = stmt.where(JournalLine.bill_id == bill_id)
    if since is not None:
        stmt = stmt.where(JournalEntry.entry_date >= since)
    if until is not None:
        stmt = stmt.where(JournalEntry.entry_date <= until)
    if booked_before is not None:
        stmt = stmt.where(JournalEntry.created_at < booked_before)
    if booked_from is not None:
        stmt = stmt.where(JournalEntry.created_at >= booked_from)
    return cents(session.exec(stmt).one())


def cents(value: object) -> Decimal:
    """A sum read from the database (None: nothing), as an amount: a sum of a Money column
    is already read back as Decimal."""
    if value is None:
        return ZERO.quantize(CENT)
    if isinstance(value, Decimal):
        return value.quantize(CENT)
    if isinstance(value, int):  # a sum the database typed as a plain integer (cents)
        return (Decimal(value) / 100).quantize(CENT)
    raise TypeError(f"unexpected sum {value!r}")


def day_sums_of(
    *,
    session: Session,
    district_id: int,
    accounts: Sequence[str] | None,
    since: date | None,
    until: date | None,
) -> dict[str, Decimal]:
    """The lines of ``accounts`` (every account: None) booked between two dates (inclusive),
    summed by account."""
    stmt = (
        select(LedgerDay.account, func.sum(LedgerDay.amount))
        .where(LedgerDay.district_id == district_id)
        .group_by(col(LedgerDay.account))
    )
    if accounts is not None:
        stmt = stmt.where(col(LedgerDay.account).in_(accounts))
    if since is not None:
        stmt = stmt.where(LedgerDay.day >= since)
    if until is not None:
        stmt = stmt.where(LedgerDay.day <= until)
    return {account: cents(total) for account, total in session.exec(stmt)}


def day_sums(
    *, session: Session, district_id: int, since: date | None = None, until: date | None = None
) -> dict[str, Decimal]:
    """Every account's lines booked between two dates (inclusive), summed."""
    return day_sums_of(
        session=session, district_id=district_id, accounts=None, since=since, until=until
    )


def month_sums(
    *, session: Session, district_id: int, since: date, until: date
) -> list[tuple[str, int, int, Decimal]]:
    """Each account's lines booked in each month between two dates (inclusive), summed:
    ``(account, year, month, amount)``."""
    day = col(LedgerDay.day)
    year, month = extract("year", day), extract("month", day)
    stmt = (
        select(col(LedgerDay.account), year, month, func.sum(LedgerDay.amount))
        .where(LedgerDay.district_id == district_id, LedgerDay.day >= since, LedgerDay.day <= until)
        .group_by(col(LedgerDay.account), year, month)
    )
    rows = session.exec(stmt)
    return [(account, int(y), int(m), cents(amount)) for account, y, m, amount in rows]


def balance(
    *,
    session: Session,
    district_id: int,
    account: str,
    bill_id: int | None = None,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> Decimal:
    """The balance of an account (debit positive), optionally for one bill, between two
    booking dates (inclusive), and as the journal stood at ``booked_before``."""
    if bill_id is not None:
        column = PER_BILL.get(account)
        if column is not None and since is None and until is None and booked_before is None:
            row = session.get(BillLedger, bill_id)
            amount = getattr(row, column) if row is not None else ZERO
            return Decimal(amount).quantize(CENT)
        return _sum(
            session,
            district_id,
            accounts=[account],
            bill_id=bill_id,
            since=since,
            until=until,
            booked_before=booked_before,
        )
    total = day_sums_of(
        session=session, district_id=district_id, accounts=[account], since=since, until=until
    ).get(account, ZERO)
    if booked_before is not None:  # less what was booked from then on
        total -= _sum(
            session,
            district_id,
            accounts=[account],
            since=since,
            until=until,
            booked_from=booked_before,
        )
    return total.quantize(CENT)


def balances(
    *,
    session: Session,
    district_id: int,
    until: date | None = None,
    accounts: Sequence[str] | None = None,
) -> dict[str, Decimal]:
    """Every account's balance (debit positive), bills' receivables summed; of ``accounts``
    only, if given (their days alone are read)."""
    if accounts is not None:
        return day_sums_of(
            session=session, district_id=district_id, accounts=accounts, since=None, until=until
        )
    return day_sums(session=session, district_id=district_id, until=until)


_BALANCES_OF_BILLS = {
    column: sa_select(BILLS.c.bill_id, BILLS.c[column]).where(
        BILLS.c.bill_id.in_(bindparam("bill_ids", expanding=True)),
        BILLS.c.district_id == bindparam("district_id"),
    )
    for column in PER_BILL.values()
}


def bill_balances(
    *,
    session: Session,
    district_id: int,
    account: str = RECEIVABLE,
    until: date | None = None,
    booked_before: datetime | None = None,
    bill_ids: Sequence[int] | None = None,
) -> dict[int, Decimal]:
    """The balance of ``account`` per bill (receivable: what is still owed on each bill),
    bills with a balance only; of the bills ``bill_ids`` only, if given."""
    result: dict[int, Decimal] = defaultdict(Decimal)
    column = PER_BILL.get(account)
    if bill_ids is not None and not bill_ids:
        return {}
    if column is not None:
        value = getattr(BillLedger, column)
        if bill_ids is not None:  # by the primary key (every payment asks): built once
            by_id = _BALANCES_OF_BILLS[column]
            params = {"bill_ids": list(bill_ids), "district_id": district_id}
            for bill_id, amount in session.execute(by_id, params):
                result[bill_id] += amount
        else:
            current = select(BillLedger.bill_id, value).where(
                BillLedger.district_id == district_id, or_(value > 0, value < 0)
            )
            for bill_id, amount in session.exec(current):
                result[bill_id] += amount
    if column is None or until is not None or booked_before is not None:
        # From the journal: every line (another account), or those to take off the
        # running balance (booked after ``until`` or from ``booked_before`` on).
        stmt = (
            select(JournalLine.bill_id, func.sum(JournalLine.amount))
            .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
            .where(
                JournalEntry.district_id == district_id,
                JournalLine.account == account,
                col(JournalLine.bill_id).is_not(None),
            )
            .group_by(col(JournalLine.bill_id))
        )
        if bill_ids is not None:
            stmt = stmt.where(col(JournalLine.bill_id).in_(list(bill_ids)))
        sign = Decimal(1)
        if column is None:
            if until is not None:
                stmt = stmt.where(JournalEntry.entry_date <= until)
            if booked_before is not None:
                stmt = stmt.where(JournalEntry.created_at < booked_before)
        else:
            sign = Decimal(-1)
            later = []
            if until is not None:
                later.append(col(JournalEntry.entry_date) > until)
            if booked_before is not None:
                later.append(col(JournalEntry.created_at) >= booked_before)
            # Found from the entries (the index on district and booking date): usually few.
            entries = select(JournalEntry.id).where(
                JournalEntry.district_id == district_id, or_(*later)
            )
            stmt = (
                select(JournalLine.bill_id, func.sum(JournalLine.amount))
                .where(
                    col(JournalLine.entry_id).in_(entries),
                    JournalLine.account == account,
                    col(JournalLine.bill_id).is_not(None),
                )
                .group_by(col(JournalLine.bill_id))
            )
            if bill_ids is not None:
                stmt = stmt.where(col(JournalLine.bill_id).in_(list(bill_ids)))
        for line_bill_id, total in session.exec(stmt):
            result[int(line_bill_id or 0)] += sign * cents(total)
    return {bill_id: amount.quantize(CENT) for bill_id, amount in result.items() if amount != 0}


def _past_the_mark(district_id: Any) -> Any:
    """An SQL test: a bill made since the journal last booked the district's bills (its
    mark, ``ledger_state``, read in the same query)."""
    mark = sa_select(col(LedgerState.bills_through)).where(
        col(LedgerState.district_id) == district_id
    )
    return col(Bill.id) > func.coalesce(mark.scalar_subquery(), 0)


def keys_booked(*, session: Session, keys: Sequence[str]) -> dict[str, datetime]:
    """Which of ``keys`` are in the journal, with when each was booked."""
    found: dict[str, datetime] = {}
    for start in range(0, len(keys), 500):
        stmt = select(JournalEntry.idempotency_key, JournalEntry.created_at).where(
            col(JournalEntry.idempotency_key).in_(keys[start : start + 500])
        )
        found.update(dict(session.exec(stmt).all()))
    return found


def owed_by_bill(
    *,
    session: Session,
    district_id: int,
    until: date | None = None,
    booked_before: datetime | None = None,
    bill_ids: Sequence[int] | None = None,
) -> dict[int, Decimal]:
    """What is still owed on each bill (of ``bill_ids`` only, if given): the journal's
    receivable, plus the full amount of an active bill that the journal has not booked yet
    (it is booked with the next posting)."""
    owed = bill_balances(
        session=session,
        district_id=district_id,
        until=until,
        booked_before=booked_before,
        bill_ids=bill_ids,
    )
    for bill_id, amount in unbooked_owed(
        session=session,
        district_id=district_id,
        until=until,
        booked_before=booked_before,
        bill_ids=bill_ids,
    ).items():
        owed[bill_id] = owed.get(bill_id, ZERO) + amount
    return owed


def maybe_unbooked(district_id: Any) -> Any:
    """An SQL test of whether the district (a value or a bound parameter) has an active bill
    made since the journal last booked its bills: if not, :func:`unbooked_owed` is empty."""
    # The first such bill, not EXISTS: PostgreSQL then walks the bills' key from the mark on
    # (with EXISTS it read all 200,000 of a large district's bills, 50 ms).
    first = sa_select(func.min(Bill.id)).where(
        col(Bill.district_id) == district_id,
        col(Bill.status) == BillStatus.ACTIVE.value,
        col(Bill.amount) > 0,
        _past_the_mark(district_id),
    )
    return first.scalar_subquery().is_not(None)


def unbooked_owed(
    *,
    session: Session,
    district_id: int,
    until: date | None = None,
    booked_before: datetime | None = None,
    bill_ids: Sequence[int] | None = None,
) -> dict[int, Decimal]:
    """The active bills the journal has not booked (as it stood at ``booked_before``): owed
    in full. A billing run books its bills, so this is empty but for a moment."""
    unbooked: dict[int, Decimal] = {}
    # The bills the journal may not have booked (as it stood at ``booked_before``): those
    # made since it last booked the district's bills, and those it booked from then on.
    candidates = _past_the_mark(district_id)
    if booked_before is not None:
        late = (
            select(JournalLine.bill_id)
            .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
            .where(
                JournalEntry.district_id == district_id,
                JournalEntry.kind == "bill",
                JournalLine.account == RECEIVABLE,
                col(JournalEntry.created_at) >= booked_before,
            )
        )
        candidates = or_(candidates, col(Bill.id).in_(late))
    stmt = (
        select(col(Bill.id), col(Bill.amount), col(Bill.created_at), col(BillingRun.run_on))
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(
            Bill.district_id == district_id,
            Bill.status == BillStatus.ACTIVE.value,
            candidates,
        )
    )
    if bill_ids is not None:
        stmt = stmt.where(col(Bill.id).in_(list(bill_ids)))
    pending = [row for row in session.exec(stmt) if row[1] > 0]
    booked = keys_booked(session=session, keys=[f"bill:{row[0]}" for row in pending])
    for bill_id, amount, created_at, run_on in pending:
        when = booked.get(f"bill:{bill_id}")
        if when is not None and (booked_before is None or when < booked_before):
            continue  # in the journal (as it stood then): its receivable says it
        if booked_before is not None and created_at >= booked_before:
            continue
        if until is None or run_on <= until:
            unbooked[bill_id or 0] = amount
    return unbooked
