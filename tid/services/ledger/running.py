"""The running balances every posting adds to in its transaction: per account and day
(``ledger_day``), per bill (``bill_ledger``), the count of entries per day and kind
(``journal_day``) and the bills owed per due date (``owed_day``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Table, bindparam
from sqlalchemy import select as sa_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session

from tid.models import (
    Bill,
    BillLedger,
    JournalDay,
    JournalEntry,
    JournalLine,
    LedgerDay,
    OwedDay,
)
from tid.rules.money import ZERO
from tid.services.ledger.accounts import (
    OWNER_CREDIT,
    RECEIVABLE,
    Line,
)

_DAYS: Table = LedgerDay.__table__  # type: ignore[attr-defined]
BILLS: Table = BillLedger.__table__  # type: ignore[attr-defined]
_ENTRY_DAYS: Table = JournalDay.__table__  # type: ignore[attr-defined]
_OWED_DAYS: Table = OwedDay.__table__  # type: ignore[attr-defined]
ENTRIES: Table = JournalEntry.__table__  # type: ignore[attr-defined]
LINES: Table = JournalLine.__table__  # type: ignore[attr-defined]
_BILL_TABLE: Table = Bill.__table__  # type: ignore[attr-defined]
PER_BILL = {RECEIVABLE: "receivable", OWNER_CREDIT: "owner_credit"}
ENTRY_COLUMNS = (
    "district_id",
    "entry_date",
    "kind",
    "memo",
    "idempotency_key",
    "reverses_id",
    "actor",
    "user_id",
    "created_at",
)


_UPSERTS: dict[tuple[str, str], Any] = {}


def _upsert_add(
    session: Session,
    table: Table,
    keys: Sequence[str],
    amounts: Sequence[str],
    rows: list[dict[str, object]],
) -> list[Any]:
    """Insert each row, or add its ``amounts`` to the row already there. The running
    balances per bill return each bill's id, due date and receivable as they now are."""
    if not rows:
        return []
    dialect = session.connection().dialect.name
    stmt = _UPSERTS.get((dialect, table.name))
    if stmt is None:  # built once: the statement is the same for every posting
        stmt = (pg_insert if dialect == "postgresql" else sqlite_insert)(table)
        if table is BILLS:  # a new row takes its bill's due date (the delinquency's order)
            stmt = stmt.values(
                bill_id=bindparam("bill_id"),
                district_id=bindparam("district_id"),
                due_date=sa_select(_BILL_TABLE.c.due_date)
                .where(_BILL_TABLE.c.id == bindparam("bill_id"))
                .scalar_subquery(),
                **{name: bindparam(name) for name in amounts},
            )
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c[k] for k in keys],
            set_={name: table.c[name] + stmt.excluded[name] for name in amounts},
        )
        if table is BILLS:
            stmt = stmt.returning(table.c.bill_id, table.c.due_date, table.c.receivable)
        _UPSERTS[(dialect, table.name)] = stmt
    returned: list[Any] = []
    for start in range(0, len(rows), 5000):
        result = session.execute(stmt, rows[start : start + 5000])
        if table is BILLS:
            returned.extend(result.all())
    return returned


def add_to_balances(
    *, session: Session, district_id: int, postings: Sequence[tuple[date, str, Sequence[Line]]]
) -> None:
    """Add entries (each with its booking date and kind) to the count of entries per day and
    kind, and their lines to the running balances."""
    days: dict[tuple[str, date], Decimal] = defaultdict(Decimal)
    bills: dict[int, dict[str, Decimal]] = {}
    counts: dict[tuple[date, str], int] = defaultdict(int)
    for on, kind, lines in postings:
        counts[(on, kind)] += 1
        for line in lines:
            days[(line.account, on)] += line.amount
            column = PER_BILL.get(line.account)
            if column is not None and line.bill_id is not None:
                per_bill = bills.setdefault(
                    line.bill_id, {"receivable": ZERO, "owner_credit": ZERO}
                )
                per_bill[column] += line.amount
    _upsert_add(
        session,
        _DAYS,
        ("district_id", "account", "day"),
        ("amount",),
        [
            {"district_id": district_id, "account": account, "day": on, "amount": amount}
            for (account, on), amount in days.items()
        ],
    )
    _upsert_add(
        session,
        _ENTRY_DAYS,
        ("district_id", "day", "kind"),
        ("entries",),
        [
            {"district_id": district_id, "day": on, "kind": kind, "entries": n}
            for (on, kind), n in counts.items()
        ],
    )
    now = _upsert_add(
        session,
        BILLS,
        ("bill_id",),
        ("receivable", "owner_credit"),
        [
            {"bill_id": bill_id, "district_id": district_id, **amounts}
            for bill_id, amounts in bills.items()
        ],
    )
    _upsert_add(
        session,
        _OWED_DAYS,
        ("district_id", "due_date"),
        ("bills", "receivable"),
        _owed_changes(district_id, now, {b: amounts["receivable"] for b, amounts in bills.items()}),
    )


def _owed_changes(
    district_id: int, now: Sequence[Any], changes: dict[int, Decimal]
) -> list[dict[str, object]]:
    """What the receivables changed by ``changes`` (bill → amount), ``now`` as they are
    (bill, due date, receivable), add to the bills owed per due date: a bill that comes to
    owe counts one more, one paid off one fewer, and each adds the change in what it owes
    (nothing owed counts as zero, whatever the credit)."""
    per_due: dict[date, list[Any]] = {}
    for bill_id, due, receivable in now:
        change = changes[bill_id]
        if change == 0:
            continue
        was = receivable - change
        if was <= 0 and receivable <= 0:
            continue
        counted = per_due.setdefault(due, [0, ZERO])
        counted[0] += (receivable > 0) - (was > 0)
        counted[1] += max(receivable, ZERO) - max(was, ZERO)
    return [
        {"district_id": district_id, "due_date": due, "bills": n, "receivable": amount}
        for due, (n, amount) in per_due.items()
        if n or amount
    ]
