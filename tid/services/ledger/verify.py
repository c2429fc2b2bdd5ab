"""The check of the running balances: each recomputed from the journal and compared
(``tid account verify``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import String as SqlString
from sqlalchemy import cast, literal
from sqlmodel import Session, col, func, select

from tid.models import (
    Bill,
    BillLedger,
    BillStatus,
    JournalDay,
    JournalEntry,
    JournalLine,
    LedgerDay,
    LedgerState,
    OwedDay,
)
from tid.rules.money import ZERO
from tid.services.ledger.balances import cents
from tid.services.ledger.running import PER_BILL


@dataclass(frozen=True)
class Difference:
    """A running balance that does not agree with the journal (or an entry that does not
    balance, or a bill the journal should have booked)."""

    district_id: int
    # "day", "entries" (their count per day and kind), "bill", "owed" (per due date), "entry",
    # "unbooked bill"
    what: str
    key: str  # account and day, bill id and account, entry id
    stored: Decimal
    journal: Decimal


def _day_differences(
    session: Session, where_district: Callable[[Any, Any], Any]
) -> list[Difference]:
    """The running balances per account and day that differ from the journal's sums."""
    differences: list[Difference] = []
    # Per account and day.
    journal_days = {
        (d, account, on): cents(total)
        for d, account, on, total in session.exec(
            where_district(
                select(
                    col(JournalEntry.district_id),
                    col(JournalLine.account),
                    col(JournalEntry.entry_date),
                    func.sum(JournalLine.amount),
                )
                .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
                .group_by(
                    col(JournalEntry.district_id),
                    col(JournalLine.account),
                    col(JournalEntry.entry_date),
                ),
                JournalEntry.district_id,
            )
        )
    }
    stored_days = {
        (row.district_id, row.account, row.day): row.amount
        for row in session.exec(where_district(select(LedgerDay), LedgerDay.district_id))
    }
    for d, account, on in sorted(set(journal_days) | set(stored_days)):
        stored = stored_days.get((d, account, on), ZERO)
        found = journal_days.get((d, account, on), ZERO)
        if stored != found:
            differences.append(Difference(d, "day", f"{account} {on}", stored, found))
    return differences


def _entry_count_differences(
    session: Session, where_district: Callable[[Any, Any], Any]
) -> list[Difference]:
    """The counts of entries per day and kind that differ from the journal's."""
    day, kind = col(JournalEntry.entry_date), col(JournalEntry.kind)
    journal_counts = {
        (d, on, k): int(n)
        for d, on, k, n in session.exec(
            where_district(
                select(col(JournalEntry.district_id), day, kind, func.count()).group_by(
                    col(JournalEntry.district_id), day, kind
                ),
                JournalEntry.district_id,
            )
        )
    }
    stored_counts = {
        (row.district_id, row.day, row.kind): row.entries
        for row in session.exec(where_district(select(JournalDay), JournalDay.district_id))
    }
    return [
        Difference(d, "entries", f"{k} {on}", Decimal(stored), Decimal(found))
        for d, on, k in sorted(set(journal_counts) | set(stored_counts))
        if (stored := stored_counts.get((d, on, k), 0))
        != (found := journal_counts.get((d, on, k), 0))
    ]


def _owed_differences(
    session: Session, where_district: Callable[[Any, Any], Any]
) -> list[Difference]:
    """The bills owed per due date (how many, and what they owe) that differ from the
    running balances per bill (themselves checked against the journal)."""
    due = col(BillLedger.due_date)
    from_bills = {
        (d, on): (int(n), cents(total))
        for d, on, n, total in session.exec(
            where_district(
                select(
                    col(BillLedger.district_id), due, func.count(), func.sum(BillLedger.receivable)
                )
                .where(col(BillLedger.receivable) > 0)
                .group_by(col(BillLedger.district_id), due),
                BillLedger.district_id,
            )
        )
    }
    stored = {
        (row.district_id, row.due_date): (row.bills, row.receivable)
        for row in session.exec(where_district(select(OwedDay), OwedDay.district_id))
        if row.bills or row.receivable
    }
    differences: list[Difference] = []
    for d, on in sorted(set(from_bills) | set(stored)):
        kept, found = stored.get((d, on), (0, ZERO)), from_bills.get((d, on), (0, ZERO))
        if kept[0] != found[0]:
            differences.append(
                Difference(d, "owed", f"bills due {on}", Decimal(kept[0]), Decimal(found[0]))
            )
        if kept[1] != found[1]:
            differences.append(Difference(d, "owed", f"owed due {on}", kept[1], found[1]))
    return differences


def _bill_differences(
    session: Session, where_district: Callable[[Any, Any], Any]
) -> list[Difference]:
    """The running balances per bill that differ from the journal's sums."""
    differences: list[Difference] = []
    # Per bill.
    journal_bills: dict[tuple[int, int, str], Decimal] = {}
    for d, bill_id, account, total in session.exec(
        where_district(
            select(
                JournalEntry.district_id,
                JournalLine.bill_id,
                JournalLine.account,
                func.sum(JournalLine.amount),
            )
            .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
            .where(
                col(JournalLine.bill_id).is_not(None),
                col(JournalLine.account).in_(list(PER_BILL)),
            )
            .group_by(
                col(JournalEntry.district_id), col(JournalLine.bill_id), col(JournalLine.account)
            ),
            JournalEntry.district_id,
        )
    ):
        journal_bills[(d, int(bill_id or 0), account)] = cents(total)
    stored_bills: dict[tuple[int, int, str], Decimal] = {}
    for row in session.exec(where_district(select(BillLedger), BillLedger.district_id)):
        for account, column in PER_BILL.items():
            stored_bills[(row.district_id, row.bill_id, account)] = getattr(row, column)
    for d, bill_id, account in sorted(set(journal_bills) | set(stored_bills)):
        stored = stored_bills.get((d, bill_id, account), ZERO)
        found = journal_bills.get((d, bill_id, account), ZERO)
        if stored != found:
            differences.append(Difference(d, "bill", f"{bill_id} {account}", stored, found))
    return differences


def verify(*, session: Session, district_id: int | None = None) -> tuple[int, list[Difference]]:
    """Recompute every running balance from the journal and compare: returns how many
    journal lines were read and every difference found (none: the balances agree)."""

    def where_district(stmt: Any, column: Any) -> Any:
        return stmt if district_id is None else stmt.where(column == district_id)

    differences: list[Difference] = []
    lines = int(
        session.exec(
            where_district(
                select(func.count())
                .select_from(JournalLine)
                .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id)),
                JournalEntry.district_id,
            )
        ).one()
    )
    # Every entry balances.
    unbalanced = where_district(
        select(JournalEntry.district_id, JournalLine.entry_id, func.sum(JournalLine.amount))
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .group_by(col(JournalEntry.district_id), col(JournalLine.entry_id))
        .having(func.sum(JournalLine.amount) != 0),
        JournalEntry.district_id,
    )
    for d, entry_id, total in session.exec(unbalanced):
        differences.append(Difference(d, "entry", str(entry_id), ZERO, cents(total)))
    differences += _day_differences(session, where_district)
    differences += _entry_count_differences(session, where_district)
    differences += _bill_differences(session, where_district)
    differences += _owed_differences(session, where_district)
    # Each bill's running balance carries the bill's due date (the delinquency's order).
    wrong_due = where_district(
        select(col(BillLedger.district_id), col(BillLedger.bill_id))
        .join(Bill, col(Bill.id) == col(BillLedger.bill_id))
        .where(col(BillLedger.due_date) != col(Bill.due_date)),
        BillLedger.district_id,
    )
    for d, bill_id in session.exec(wrong_due):
        differences.append(Difference(d, "bill", f"{bill_id} due date", ZERO, ZERO))
    # Every active bill up to the district's mark is booked.
    booked_key = literal("bill:") + cast(Bill.id, SqlString)
    unbooked = where_district(
        select(col(Bill.district_id), col(Bill.id), col(Bill.amount))
        .join(LedgerState, col(LedgerState.district_id) == col(Bill.district_id))
        .where(
            Bill.status == BillStatus.ACTIVE.value,
            Bill.amount > 0,
            col(Bill.id) <= col(LedgerState.bills_through),
            ~select(JournalEntry.id).where(JournalEntry.idempotency_key == booked_key).exists(),
        ),
        Bill.district_id,
    )
    for d, bill_id, amount in session.exec(unbooked):
        differences.append(Difference(d, "unbooked bill", str(bill_id), ZERO, amount))
    return lines, differences
