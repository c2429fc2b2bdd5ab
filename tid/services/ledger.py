"""The special account of 21 LPRA § 6653(6) as a balanced, append-only double-entry journal.

Every movement of a district's special account is a :class:`JournalEntry` whose lines add up
to zero (one signed amount per line: debit positive, credit negative). Balances are derived
from the lines. Nothing is edited or deleted (the database refuses it): a mistake is undone
by a reversing entry.

So that no page reads the whole journal, each posting also adds its lines, in the same
transaction, to two running aggregates: ``ledger_day`` (per account and booking day) and
``bill_ledger`` (per bill: receivable and owner credit), counts its entry in
``journal_day`` (per booking day and kind) and the bills owed in ``owed_day`` (per due date,
with what they owe). They are derived data: :func:`verify`
(``tid account verify``) recomputes them from the journal and reports any difference.

The accounts (codes):

- ``bank``: the special bank account (debit = money in).
- ``receivable`` (per bill): what an owner still owes on a bill.
- ``impost_assessed``: the impost billed and not yet collected (the counterpart of the
  receivables: its balance is always minus their sum).
- ``impost_revenue``: the impost collected (credit = revenue); the base of the administrative cap.
- ``owner_credit`` (with the bill the money came with): an overpayment held for the owner.
- ``expense:admin``: administrative expenditures; ``expense:purpose:<id>``: spending on an
  authorized purpose of the ordinance.

A bill is booked Dr receivable / Cr impost_assessed. A payment of P applied A to bills and
O = P − A held as credit is booked Dr bank P, Cr receivable A, Dr impost_assessed A,
Cr impost_revenue A, Cr owner_credit O. An expenditure is Dr expense / Cr bank.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import ROUND_DOWN, Decimal
from typing import Any

from sqlalchemy import String as SqlString
from sqlalchemy import Table, bindparam, cast, extract, insert, literal, or_
from sqlalchemy import select as sa_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillingRun,
    BillLedger,
    BillStatus,
    JournalDay,
    JournalEntry,
    JournalLine,
    LedgerDay,
    LedgerState,
    OwedDay,
)
from tid.rules import admin_cap
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message
from tid.rules.money import CENT, MAX_ACCOUNT_AMOUNT, ZERO
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services import audit, year_locks
from tid.services.paging import PER_PAGE

BANK = "bank"
RECEIVABLE = "receivable"
ASSESSED = "impost_assessed"
REVENUE = "impost_revenue"
OWNER_CREDIT = "owner_credit"
ADMIN_EXPENSE = "expense:admin"
PURPOSE_PREFIX = "expense:purpose:"

# A key for pg_advisory_xact_lock(namespace, district_id): every posting of one district
# waits for the one before it, so a cap check or a bill's outstanding amount is never stale.
_LOCK_NAMESPACE = 6653


def purpose_account(purpose_id: int) -> str:
    return f"{PURPOSE_PREFIX}{purpose_id}"


def is_expense(account: str) -> bool:
    return account == ADMIN_EXPENSE or account.startswith(PURPOSE_PREFIX)


# The journal's vocabulary: what each account, kind of entry and memo is called where users
# read the journal (pages, the yearly statement, its PDF and CSV). The database keeps the keys.
ACCOUNT_LABELS = {
    BANK: N_("Bank"),
    RECEIVABLE: N_("Impost receivable"),
    ASSESSED: N_("Impost assessed"),
    REVENUE: N_("Impost revenue"),
    OWNER_CREDIT: N_("Owner credit held"),
    ADMIN_EXPENSE: N_("Administrative expenses"),
}
ENTRY_KINDS = {
    "bill": N_("Bill"),
    "bill_superseded": N_("Bill superseded"),
    "payment": N_("Payment"),
    "credit_applied": N_("Owner credit applied"),
    "expenditure": N_("Expenditure"),
    "reversal": N_("Reversal"),
}
# The memos the services write, by kind of entry: a memo is stored as its English sentence
# (Message), and read back in the reader's language by matching these templates.
MEMOS = {
    "bill": (N_("Impost FY %(fiscal_year)s, bill %(bill)s"),),
    "bill_superseded": (N_("Bill %(old)s superseded by bill %(new)s"),),
    "payment": (N_("Payment %(amount)s, ref. %(reference)s"), N_("Payment %(amount)s")),
    "credit_applied": (N_("Owner's credit %(amount)s applied, %(cadastral_number)s"),),
    "expenditure": (
        N_("%(payee)s: %(amount)s (administrative)"),
        N_("%(payee)s: %(amount)s (%(purpose)s)"),
    ),
    "reversal": (N_("Reverses entry %(entry)s: %(reason)s"),),
}


def _memo_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    regex = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(regex, re.DOTALL)


_MEMO_PATTERNS = {
    kind: tuple((t, _memo_pattern(t)) for t in templates) for kind, templates in MEMOS.items()
}


def memo(kind: str, **params: Any) -> Message:
    """The memo of an entry of ``kind`` (the first of its templates whose fields are given)."""
    for template in MEMOS[kind]:
        names = set(re.findall(r"%\((\w+)\)s", template))
        if names == set(params):
            return Message(template, **params)
    raise ValueError(f"no memo of {kind} takes {sorted(params)}")


def memo_message(kind: str, text: str) -> str:
    """A stored memo as a message (shown in the reader's language); a memo no template
    matches (typed by a user, or older) is data and is shown as written."""
    for template, pattern in _MEMO_PATTERNS.get(kind, ()):
        match = pattern.fullmatch(text)
        if match:
            return Message(template, **match.groupdict())
    return text


def account_label(account: str, purposes: dict[int, str] | None = None) -> str:
    """What users call an account (an authorized purpose by its name, when known)."""
    if account in ACCOUNT_LABELS:
        return Message(ACCOUNT_LABELS[account])
    if account.startswith(PURPOSE_PREFIX):
        purpose_id = account.removeprefix(PURPOSE_PREFIX)
        name = (purposes or {}).get(int(purpose_id)) if purpose_id.isdigit() else None
        if name:
            return Message("Expenses: %(purpose)s", purpose=name)
        return Message("Expenses of authorized purpose #%(purpose)s", purpose=purpose_id)
    return account


def entry_kind_label(kind: str) -> str:
    return Message(ENTRY_KINDS[kind]) if kind in ENTRY_KINDS else kind


@dataclass(frozen=True)
class Line:
    """A line to post: debit positive, credit negative."""

    account: str
    amount: Decimal
    bill_id: int | None = None


@dataclass(frozen=True)
class Posted:
    """An entry and its lines; ``booked`` is False when the key was already in the journal
    (the same payment posted again), in which case nothing was written."""

    entry: JournalEntry
    lines: tuple[Line | JournalLine, ...]  # as posted (Line), or as read back (JournalLine)
    booked: bool


# --------------------------------------------------------------------------- locking


def lock_district(session: Session, district_id: int) -> None:
    """Serialize the postings of one district until the transaction ends.

    PostgreSQL: ``pg_advisory_xact_lock``. SQLite: ``BEGIN IMMEDIATE`` (the write lock is
    taken before anything is read, so two writers cannot both read the old figures).
    """
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(_LOCK_NAMESPACE, district_id)))
        return
    raw = connection.connection.dbapi_connection
    if raw is not None and not raw.in_transaction:
        raw.execute("BEGIN IMMEDIATE")


# --------------------------------------------------------------------------- posting

AMOUNT_TOO_LARGE = N_("An amount of the special account can be at most 999,999,999.99.")


# Long: the idempotent insert of a balanced entry and its running balances, in one transaction.
def post_entry(
    session: Session,
    *,
    actor: audit.Actor,
    district_id: int,
    entry_date: date,
    kind: str,
    memo: str,
    key: str,
    lines: Sequence[Line],
    reverses_id: int | None = None,
    looked_up: bool = False,
) -> Posted:
    """Append one balanced entry, once per ``key``: if the key is already booked (also by a
    concurrent writer that committed first), return that entry and write nothing.
    ``looked_up``: the caller holds the district's lock (:func:`lock_district`) and has just
    found the key unbooked; a key names its district, so no other writer can book it now."""
    if not lines:
        raise ValueError("an entry needs lines")
    for line in lines:
        if line.amount == 0 or line.amount != line.amount.quantize(CENT):
            raise ValueError(f"line amounts are non-zero whole cents: {line}")
    if sum((line.amount for line in lines), ZERO) != 0:
        raise ValueError(f"an entry must balance: {lines}")
    if any(abs(line.amount) > MAX_ACCOUNT_AMOUNT for line in lines):
        raise InputError("amount", AMOUNT_TOO_LARGE)
    year_locks.ensure_open(session, district_id, entry_date)
    existing = None if looked_up else entry_by_key(session, key)
    if existing is not None:
        return Posted(existing, entry_lines(session, existing.id or 0), booked=False)
    entry = JournalEntry(
        district_id=district_id,
        entry_date=entry_date,
        kind=kind,
        memo=memo[:500],
        idempotency_key=key,
        reverses_id=reverses_id,
        actor=actor.label,
        user_id=actor.user_id,
    )
    try:
        # Under the district's lock with the key just looked up, no other writer can book
        # it: no savepoint to fall back to. Otherwise one, for a key booked meanwhile.
        with nullcontext() if looked_up else session.begin_nested():
            # Core inserts (the rows are only written, never changed): fewer round trips
            # and no unit of work on the path of every payment.
            entry.id = session.execute(
                insert(_ENTRIES).returning(_ENTRIES.c.id),
                {c: getattr(entry, c) for c in _ENTRY_COLUMNS},
            ).scalar_one()
            session.execute(
                insert(_LINES),
                [
                    {
                        "entry_id": entry.id,
                        "account": line.account,
                        "bill_id": line.bill_id,
                        "amount": line.amount,
                    }
                    for line in lines
                ],
            )
            _add_to_balances(session, district_id, [(entry_date, kind, lines)])
    except IntegrityError:
        # The savepoint's rollback has already taken the new rows out of the session.
        existing = entry_by_key(session, key)
        if existing is None and reverses_id is not None:
            existing = session.exec(
                select(JournalEntry).where(JournalEntry.reverses_id == reverses_id)
            ).first()
        if existing is None:
            raise
        return Posted(existing, entry_lines(session, existing.id or 0), booked=False)
    audit.record(
        session,
        actor,
        f"journal.{kind}",
        entry,
        after={
            **(audit.snapshot(entry) or {}),
            "lines": [
                {"account": r.account, "bill_id": r.bill_id, "amount": str(r.amount)} for r in lines
            ],
        },
    )
    return Posted(entry, tuple(lines), booked=True)


# Asked before every posting: built once (its cache key is kept with it).
_ENTRY_BY_KEY = select(JournalEntry).where(JournalEntry.idempotency_key == bindparam("key"))


def entry_by_key(session: Session, key: str) -> JournalEntry | None:
    return session.exec(_ENTRY_BY_KEY, params={"key": key}).first()


def entry_lines(session: Session, entry_id: int) -> tuple[JournalLine, ...]:
    stmt = select(JournalLine).where(JournalLine.entry_id == entry_id).order_by(col(JournalLine.id))
    return tuple(session.exec(stmt))


# --------------------------------------------------------------------------- running balances

_DAYS: Table = LedgerDay.__table__  # type: ignore[attr-defined]
_BILLS: Table = BillLedger.__table__  # type: ignore[attr-defined]
_ENTRY_DAYS: Table = JournalDay.__table__  # type: ignore[attr-defined]
_OWED_DAYS: Table = OwedDay.__table__  # type: ignore[attr-defined]
_ENTRIES: Table = JournalEntry.__table__  # type: ignore[attr-defined]
_LINES: Table = JournalLine.__table__  # type: ignore[attr-defined]
_BILL_TABLE: Table = Bill.__table__  # type: ignore[attr-defined]
_PER_BILL = {RECEIVABLE: "receivable", OWNER_CREDIT: "owner_credit"}
_ENTRY_COLUMNS = (
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
        if table is _BILLS:  # a new row takes its bill's due date (the delinquency's order)
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
        if table is _BILLS:
            stmt = stmt.returning(table.c.bill_id, table.c.due_date, table.c.receivable)
        _UPSERTS[(dialect, table.name)] = stmt
    returned: list[Any] = []
    for start in range(0, len(rows), 5000):
        result = session.execute(stmt, rows[start : start + 5000])
        if table is _BILLS:
            returned.extend(result.all())
    return returned


def _add_to_balances(
    session: Session, district_id: int, postings: Sequence[tuple[date, str, Sequence[Line]]]
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
            column = _PER_BILL.get(line.account)
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
        _BILLS,
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


@dataclass(frozen=True)
class Pending:
    """An entry to post in bulk (see :func:`post_many`)."""

    entry_date: date
    kind: str
    memo: str
    key: str
    lines: tuple[Line, ...]


def post_many(
    session: Session, *, actor: audit.Actor, district_id: int, entries: Sequence[Pending]
) -> list[int]:
    """Append many balanced entries at once (a billing run's bills): the same rows as
    :func:`post_entry` one by one, with one audit event for the lot. The caller holds the
    district's lock and has checked that no key is already booked. Returns the entry ids."""
    if not entries:
        return []
    for pending in entries:
        if not pending.lines or sum((line.amount for line in pending.lines), ZERO) != 0:
            raise ValueError(f"an entry must have lines and balance: {pending}")
        for line in pending.lines:
            if line.amount == 0 or line.amount != line.amount.quantize(CENT):
                raise ValueError(f"line amounts are non-zero whole cents: {line}")
            if abs(line.amount) > MAX_ACCOUNT_AMOUNT:
                raise InputError("amount", AMOUNT_TOO_LARGE)
    # The same guards as post_entry: nothing is booked on a date of a locked fiscal year.
    for entry_date in sorted({p.entry_date for p in entries}):
        year_locks.ensure_open(session, district_id, entry_date)
    now = utcnow()
    ids: dict[str, int] = {}
    for start in range(0, len(entries), 2000):
        chunk = entries[start : start + 2000]
        result = session.execute(
            insert(_ENTRIES).returning(_ENTRIES.c.id, _ENTRIES.c.idempotency_key),
            [
                {
                    "district_id": district_id,
                    "entry_date": p.entry_date,
                    "kind": p.kind,
                    "memo": p.memo[:500],
                    "idempotency_key": p.key,
                    "reverses_id": None,
                    "actor": actor.label,
                    "user_id": actor.user_id,
                    "created_at": now,
                }
                for p in chunk
            ],
        )
        ids.update({key: int(entry_id) for entry_id, key in result})
    lines = [
        {
            "entry_id": ids[p.key],
            "account": line.account,
            "bill_id": line.bill_id,
            "amount": line.amount,
        }
        for p in entries
        for line in p.lines
    ]
    for start in range(0, len(lines), 5000):
        session.execute(insert(_LINES), lines[start : start + 5000])
    _add_to_balances(session, district_id, [(p.entry_date, p.kind, p.lines) for p in entries])
    made = [ids[p.key] for p in entries]
    kinds = sorted({p.kind for p in entries})
    audit.record(
        session,
        actor,
        "journal.bulk",
        ("district", district_id),
        after={
            "kinds": kinds,
            "entries": len(made),
            "entry_ids": made,
            "lines": len(lines),
            "debits": str(
                sum((ln.amount for p in entries for ln in p.lines if ln.amount > 0), ZERO)
            ),
        },
    )
    return made


# --------------------------------------------------------------------------- balances


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
    return _money(session.exec(stmt).one())


def cents(value: object) -> Decimal:
    """A sum read from the database (None: nothing), as an amount."""
    return _money(value)


def _money(value: object) -> Decimal:
    """A sum of a Money column: the column type already reads it back as Decimal."""
    if value is None:
        return ZERO.quantize(CENT)
    if isinstance(value, Decimal):
        return value.quantize(CENT)
    if isinstance(value, int):  # a sum the database typed as a plain integer (cents)
        return (Decimal(value) / 100).quantize(CENT)
    raise TypeError(f"unexpected sum {value!r}")


def _day_sum(
    session: Session,
    district_id: int,
    accounts: Sequence[str],
    since: date | None,
    until: date | None,
) -> dict[str, Decimal]:
    stmt = (
        select(LedgerDay.account, func.sum(LedgerDay.amount))
        .where(LedgerDay.district_id == district_id, col(LedgerDay.account).in_(accounts))
        .group_by(col(LedgerDay.account))
    )
    if since is not None:
        stmt = stmt.where(LedgerDay.day >= since)
    if until is not None:
        stmt = stmt.where(LedgerDay.day <= until)
    return {account: _money(total) for account, total in session.exec(stmt)}


def day_sums(
    session: Session, district_id: int, *, since: date | None = None, until: date | None = None
) -> dict[str, Decimal]:
    """Every account's lines booked between two dates (inclusive), summed."""
    stmt = (
        select(LedgerDay.account, func.sum(LedgerDay.amount))
        .where(LedgerDay.district_id == district_id)
        .group_by(col(LedgerDay.account))
    )
    if since is not None:
        stmt = stmt.where(LedgerDay.day >= since)
    if until is not None:
        stmt = stmt.where(LedgerDay.day <= until)
    return {account: _money(total) for account, total in session.exec(stmt)}


def month_sums(
    session: Session, district_id: int, *, since: date, until: date
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
    return [(account, int(y), int(m), _money(amount)) for account, y, m, amount in rows]


def balance(
    session: Session,
    district_id: int,
    account: str,
    *,
    bill_id: int | None = None,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> Decimal:
    """The balance of an account (debit positive), optionally for one bill, between two
    booking dates (inclusive), and as the journal stood at ``booked_before``."""
    if bill_id is not None:
        column = _PER_BILL.get(account)
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
    total = _day_sum(session, district_id, [account], since, until).get(account, ZERO)
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
    session: Session,
    district_id: int,
    *,
    until: date | None = None,
    accounts: Sequence[str] | None = None,
) -> dict[str, Decimal]:
    """Every account's balance (debit positive), bills' receivables summed; of ``accounts``
    only, if given (their days alone are read)."""
    if accounts is not None:
        return _day_sum(session, district_id, accounts, None, until)
    return day_sums(session, district_id, until=until)


_BALANCES_OF_BILLS = {
    column: sa_select(_BILLS.c.bill_id, _BILLS.c[column]).where(
        _BILLS.c.bill_id.in_(bindparam("bill_ids", expanding=True)),
        _BILLS.c.district_id == bindparam("district_id"),
    )
    for column in _PER_BILL.values()
}


def bill_balances(
    session: Session,
    district_id: int,
    account: str = RECEIVABLE,
    *,
    until: date | None = None,
    booked_before: datetime | None = None,
    bill_ids: Sequence[int] | None = None,
) -> dict[int, Decimal]:
    """The balance of ``account`` per bill (receivable: what is still owed on each bill),
    bills with a balance only; of the bills ``bill_ids`` only, if given."""
    result: dict[int, Decimal] = defaultdict(Decimal)
    column = _PER_BILL.get(account)
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
            result[int(line_bill_id or 0)] += sign * _money(total)
    return {bill_id: amount.quantize(CENT) for bill_id, amount in result.items() if amount != 0}


def _past_the_mark(district_id: Any) -> Any:
    """An SQL test: a bill made since the journal last booked the district's bills (its
    mark, ``ledger_state``, read in the same query)."""
    mark = sa_select(col(LedgerState.bills_through)).where(
        col(LedgerState.district_id) == district_id
    )
    return col(Bill.id) > func.coalesce(mark.scalar_subquery(), 0)


def _keys_booked(session: Session, keys: Sequence[str]) -> dict[str, datetime]:
    """Which of ``keys`` are in the journal, with when each was booked."""
    found: dict[str, datetime] = {}
    for start in range(0, len(keys), 500):
        stmt = select(JournalEntry.idempotency_key, JournalEntry.created_at).where(
            col(JournalEntry.idempotency_key).in_(keys[start : start + 500])
        )
        found.update(dict(session.exec(stmt).all()))
    return found


def owed_by_bill(
    session: Session,
    district_id: int,
    *,
    until: date | None = None,
    booked_before: datetime | None = None,
    bill_ids: Sequence[int] | None = None,
) -> dict[int, Decimal]:
    """What is still owed on each bill (of ``bill_ids`` only, if given): the journal's
    receivable, plus the full amount of an active bill that the journal has not booked yet
    (it is booked with the next posting)."""
    owed = bill_balances(
        session, district_id, until=until, booked_before=booked_before, bill_ids=bill_ids
    )
    for bill_id, amount in unbooked_owed(
        session, district_id, until=until, booked_before=booked_before, bill_ids=bill_ids
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
    session: Session,
    district_id: int,
    *,
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
    booked = _keys_booked(session, [f"bill:{row[0]}" for row in pending])
    for bill_id, amount, created_at, run_on in pending:
        when = booked.get(f"bill:{bill_id}")
        if when is not None and (booked_before is None or when < booked_before):
            continue  # in the journal (as it stood then): its receivable says it
        if booked_before is not None and created_at >= booked_before:
            continue
        if until is None or run_on <= until:
            unbooked[bill_id or 0] = amount
    return unbooked


# --------------------------------------------------------------------------- the administrative cap


@dataclass(frozen=True)
class CapFigures:
    """RULES.md § 1.4: administrative spending booked in a FY against the cap rate times the
    impost revenue collected in that FY so far."""

    fiscal_year: FiscalYear
    rate: Decimal
    citation: str
    revenue: Decimal
    admin: Decimal
    cap: Decimal  # rate × revenue, exact (not rounded)
    headroom: Decimal  # what may still be spent, cut down to whole cents

    @property
    def ratio(self) -> Decimal | None:
        return None if self.revenue <= 0 else self.admin / self.revenue

    @property
    def ratio_percent(self) -> Decimal | None:
        """The ratio as a percentage with two decimals (for display)."""
        ratio = self.ratio
        return None if ratio is None else (ratio * 100).quantize(CENT)


def cap_figures(session: Session, district_id: int, fy: FiscalYear) -> CapFigures:
    """21 LPRA § 6653(6): the figures of the administrative cap of one FY, to this moment."""
    sums = _day_sum(session, district_id, (REVENUE, ADMIN_EXPENSE), fy.start, fy.end)
    return cap_figures_of(
        fy,
        revenue=-sums.get(REVENUE, ZERO.quantize(CENT)),
        admin=sums.get(ADMIN_EXPENSE, ZERO.quantize(CENT)),
    )


def cap_figures_of(fy: FiscalYear, *, revenue: Decimal, admin: Decimal) -> CapFigures:
    """The administrative cap's figures of ``fy`` from the year's revenue and administrative
    spending already summed (the dashboard has them by month)."""
    rate, citation = admin_cap.admin_cap_rate(fy.end)
    cap = rate * revenue
    headroom = max(ZERO, (cap - max(ZERO, admin)).quantize(CENT, rounding=ROUND_DOWN))
    return CapFigures(fy, rate, citation, revenue, admin, cap, headroom)


def check_cap(
    figures: CapFigures, *, more_admin: Decimal = ZERO, less_revenue: Decimal = ZERO
) -> admin_cap.AdminCapDecision:
    """The rule's decision (tid/rules/admin_cap.py) on spending ``more_admin`` or taking
    ``less_revenue`` out of the FY's revenue."""
    return admin_cap.check_admin_expenditure(
        revenue_to_date=max(ZERO, figures.revenue - less_revenue),
        # A refund booked this FY of last year's administrative spending makes the FY's
        # total negative; it does not make room for more (the cap is measured per FY).
        admin_to_date=max(ZERO, figures.admin),
        proposed=more_admin,
        cap_rate=figures.rate,
    )


class CapExceededError(InputError):
    """An administrative expenditure (or a reversal of revenue) that would break the cap."""

    def __init__(
        self,
        field: str,
        message: str,
        figures: CapFigures,
        decision: admin_cap.AdminCapDecision,
    ) -> None:
        super().__init__(field, message)
        self.figures = figures
        self.decision = decision


# --------------------------------------------------------------------------- bills


# The bills made since the last sync (``ledger_state.bills_through``): asked before every
# payment, so built once (its cache key is kept with it); usually one indexed look at nothing.
_NEW_BILLS = (
    sa_select(
        col(Bill.id),
        col(Bill.amount),
        col(Bill.status),
        col(Bill.superseded_by_id),
        col(Bill.fiscal_year),
        col(BillingRun.run_on),
    )
    .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
    .where(
        col(Bill.district_id) == bindparam("district_id"),
        col(Bill.id)
        > func.coalesce(
            select(LedgerState.bills_through)
            .where(LedgerState.district_id == bindparam("district_id"))
            .scalar_subquery(),
            0,
        ),
    )
    .order_by(col(Bill.id))
)


def sync_bills(session: Session, *, actor: audit.Actor, district_id: int) -> int:
    """Book every active bill of the district not yet in the journal, and move what was paid
    on a superseded bill to the bill that replaced it. Only the bills made since the last
    time are looked at (``ledger_state``). Returns how many entries were made."""
    lock_district(session, district_id)
    new = session.execute(_NEW_BILLS, {"district_id": district_id}).all()
    if not new:  # the usual case: one indexed look that finds nothing
        return 0
    state = session.get(LedgerState, district_id)
    through = state.bills_through if state is not None else 0
    # The bills superseded by one of these: what was paid on them moves to the new bill.
    old = session.exec(
        select(col(Bill.id), col(Bill.amount), col(Bill.superseded_by_id), col(BillingRun.run_on))
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(
            Bill.district_id == district_id,
            Bill.status != BillStatus.ACTIVE.value,
            col(Bill.superseded_by_id) > through,
        )
        .order_by(col(Bill.id))
    ).all()
    keys = [f"bill:{row[0]}" for row in new]
    keys += [k for row in old for k in (f"bill:{row[0]}", f"supersede:{row[0]}")]
    booked = set(_keys_booked(session, keys))
    bills: list[Pending] = []
    for bill_id, amount, status, superseded_by, fiscal_year, run_on in new:
        if f"bill:{bill_id}" in booked or amount <= 0:
            continue
        if status != BillStatus.ACTIVE.value and superseded_by is not None:
            continue  # superseded before it was ever booked: only its successor is owed
        bills.append(
            Pending(
                run_on,
                "bill",
                memo("bill", fiscal_year=fiscal_year, bill=bill_id),
                f"bill:{bill_id}",
                (Line(RECEIVABLE, amount, bill_id), Line(ASSESSED, -amount, bill_id)),
            )
        )
        booked.add(f"bill:{bill_id}")
    post_many(session, actor=actor, district_id=district_id, entries=bills)
    moving = [
        row for row in old if f"bill:{row[0]}" in booked and f"supersede:{row[0]}" not in booked
    ]
    outstanding = bill_balances(session, district_id, bill_ids=[row[0] or 0 for row in moving])
    successors = {row[0]: (row[1], row[5]) for row in new}
    moves: list[Pending] = []
    for old_id, old_amount, new_id, old_run_on in moving:
        if new_id not in successors or old_id is None:
            continue
        new_amount, new_run_on = successors[new_id]
        owed = outstanding.get(old_id, ZERO)
        paid = old_amount - owed
        moved = min(paid, new_amount) if paid > 0 else ZERO
        excess = paid - moved if paid > 0 else ZERO
        lines = []
        if owed:
            lines += [Line(RECEIVABLE, -owed, old_id), Line(ASSESSED, owed, old_id)]
        if moved:
            lines += [Line(RECEIVABLE, -moved, new_id), Line(ASSESSED, moved, new_id)]
        if excess:
            lines += [Line(REVENUE, excess, old_id), Line(OWNER_CREDIT, -excess, new_id)]
        if lines:
            moves.append(
                Pending(
                    max(old_run_on, new_run_on),
                    "bill_superseded",
                    memo("bill_superseded", old=old_id, new=new_id),
                    f"supersede:{old_id}",
                    tuple(lines),
                )
            )
    post_many(session, actor=actor, district_id=district_id, entries=moves)
    if state is None:
        state = LedgerState(district_id=district_id)
    state.bills_through = max(int(row[0] or 0) for row in new)
    session.add(state)
    session.flush()
    return len(bills) + len(moves)


# --------------------------------------------------------------------------- reversals


def reverse_entry(
    session: Session,
    *,
    actor: audit.Actor,
    entry_id: int,
    on: date,
    reason: str,
    today: date,
) -> Posted:
    """Undo an entry with a reversing entry (every line negated), dated ``on``. A bill is
    undone by its billing run, not here; a reversal is not reversed (post the entry again).
    A reversal of collected revenue that would leave the FY's administrative spending above
    the cap is refused with the figures: reverse administrative spending first."""
    entry = session.get(JournalEntry, entry_id)
    if entry is None:
        raise InputError("entry", N_("There is no such entry in the journal."))
    if entry.kind in ("bill", "bill_superseded"):
        raise InputError("entry", N_("A bill is corrected by a new billing run, not reversed."))
    if entry.reverses_id is not None:
        raise InputError("entry", N_("A reversal cannot itself be reversed."))
    if not reason.strip():
        raise InputError("reason", N_("Give the reason for the reversal."))
    if on > today:
        raise InputError("date", N_("The date cannot be in the future."))
    if on < entry.entry_date:
        raise InputError("date", N_("A reversal cannot be dated before the entry it reverses."))
    lock_district(session, entry.district_id)
    already = session.exec(select(JournalEntry).where(JournalEntry.reverses_id == entry_id)).first()
    if already is not None:
        raise InputError("entry", N_("This entry has already been reversed."))
    lines = entry_lines(session, entry_id)
    revenue_change = sum((line.amount for line in lines if line.account == REVENUE), ZERO)
    if revenue_change < 0:  # the entry brought in revenue: its reversal takes it out
        fy = fiscal_year_of(on)
        figures = cap_figures(session, entry.district_id, fy)
        decision = check_cap(figures, less_revenue=-revenue_change)
        if not decision.allowed:
            raise CapExceededError(
                "entry",
                N_(
                    "Reversing this payment would leave administrative spending above %(rate)s of "
                    "the impost revenue collected in the fiscal year. Reverse administrative "
                    "expenditures first."
                ),
                figures,
                decision,
            )
    return post_entry(
        session,
        actor=actor,
        district_id=entry.district_id,
        entry_date=on,
        kind="reversal",
        memo=memo("reversal", entry=entry_id, reason=reason.strip()),
        key=f"reverse:{entry_id}",
        lines=[Line(line.account, -line.amount, line.bill_id) for line in lines],
        reverses_id=entry_id,
    )


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class LineRead:
    """A journal line as the pages and documents read it: its columns, without the ORM's
    bookkeeping (a page shows hundreds of lines)."""

    id: int
    entry_id: int
    account: str
    bill_id: int | None
    amount: Decimal

    @property
    def debit(self) -> Decimal | None:
        return self.amount if self.amount > 0 else None

    @property
    def credit(self) -> Decimal | None:
        return -self.amount if self.amount < 0 else None


_LINE_COLUMNS = (
    col(JournalLine.id),
    col(JournalLine.entry_id),
    col(JournalLine.account),
    col(JournalLine.bill_id),
    col(JournalLine.amount),
)


@dataclass(frozen=True, slots=True)
class EntryRead:
    """A journal entry as the pages and documents read it: its columns, without the ORM's
    bookkeeping (a statement's documents list a year's 40,000)."""

    id: int
    district_id: int
    entry_date: date
    kind: str
    memo: str
    idempotency_key: str
    reverses_id: int | None
    actor: str
    user_id: int | None
    created_at: datetime


_ENTRY_READ = tuple(col(getattr(JournalEntry, f.name)) for f in fields(EntryRead))


def _read_entries(session: Session, stmt: Any) -> list[EntryRead]:
    """The entries a query of :func:`_entries` finds, as rows."""
    return [EntryRead(*row) for row in session.execute(stmt)]


@dataclass(frozen=True)
class JournalRow:
    entry: EntryRead
    lines: tuple[LineRead, ...]
    reversed_by: int | None


def journal(
    session: Session,
    district_id: int,
    *,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> list[JournalRow]:
    """The entries of a district between two booking dates, in booking order, with lines
    (as the journal stood at ``booked_before``, if given)."""
    stmt = _entries(district_id, since=since, until=until, booked_before=booked_before)
    order = (col(JournalEntry.entry_date), col(JournalEntry.id))
    entries = _read_entries(session, stmt.order_by(*order))
    return _with_lines(session, entries, booked_before)


def _entries(
    district_id: int,
    *,
    since: date | None = None,
    until: date | None = None,
    booked_before: datetime | None = None,
    kinds: Sequence[str] | None = None,
) -> Any:
    stmt = sa_select(*_ENTRY_READ).where(col(JournalEntry.district_id) == district_id)
    if booked_before is not None:
        stmt = stmt.where(col(JournalEntry.created_at) < booked_before)
    if since is not None:
        stmt = stmt.where(col(JournalEntry.entry_date) >= since)
    if until is not None:
        stmt = stmt.where(col(JournalEntry.entry_date) <= until)
    if kinds is not None:
        stmt = stmt.where(col(JournalEntry.kind).in_(kinds))
    return stmt


def _with_lines(
    session: Session, entries: list[EntryRead], booked_before: datetime | None = None
) -> list[JournalRow]:
    ids = [e.id for e in entries]
    by_entry: dict[int, list[LineRead]] = defaultdict(list)
    reversed_by: dict[int, int] = {}
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        for row in session.execute(
            sa_select(*_LINE_COLUMNS)
            .where(col(JournalLine.entry_id).in_(chunk))
            .order_by(col(JournalLine.id))
        ):
            by_entry[row[1]].append(LineRead(*row))
        # A reversal's key names the entry it reverses (the unique key's index finds it).
        reversals = select(col(JournalEntry.id), col(JournalEntry.reverses_id)).where(
            col(JournalEntry.idempotency_key).in_([f"reverse:{i}" for i in chunk]),
            col(JournalEntry.reverses_id).is_not(None),
        )
        if booked_before is not None:
            reversals = reversals.where(JournalEntry.created_at < booked_before)
        for reversal_id, reversed_id in session.exec(reversals):
            reversed_by[reversed_id or 0] = reversal_id or 0
    return [JournalRow(e, tuple(by_entry[e.id or 0]), reversed_by.get(e.id or 0)) for e in entries]


@dataclass(frozen=True)
class JournalPage:
    """One page of a district's journal, in booking order (or newest first)."""

    rows: list[JournalRow]
    total: int
    page: int
    pages: int
    per_page: int

    @property
    def previous_page(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next_page(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def entries_count(
    session: Session,
    district_id: int,
    *,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] | None = None,
) -> int:
    """How many entries were booked between two dates (inclusive), from their count per day
    and kind (``journal_day``): a row a day, however many entries a day has."""
    stmt = select(func.sum(JournalDay.entries)).where(JournalDay.district_id == district_id)
    if since is not None:
        stmt = stmt.where(JournalDay.day >= since)
    if until is not None:
        stmt = stmt.where(JournalDay.day <= until)
    if kinds is not None:
        stmt = stmt.where(col(JournalDay.kind).in_(kinds))
    return int(session.exec(stmt).one() or 0)


def journal_page(
    session: Session,
    district_id: int,
    *,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[str] | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    newest_first: bool = False,
    counted: bool = True,
) -> JournalPage:
    """A page of the entries between two booking dates, with their lines: only the page's
    entries are read (the index on district, booking date and id). Not ``counted``: the
    first page only, without the count of all (total and pages are then those of the page)."""
    base = _entries(district_id, since=since, until=until, kinds=kinds)
    if counted:
        total = entries_count(session, district_id, since=since, until=until, kinds=kinds)
        pages = max(1, -(-total // per_page))
        page = min(max(1, page), pages)
    else:
        total, pages, page = 0, 1, 1
    order = (
        (col(JournalEntry.entry_date).desc(), col(JournalEntry.id).desc())
        if newest_first
        else (col(JournalEntry.entry_date), col(JournalEntry.id))
    )
    start = (page - 1) * per_page
    if counted and start > total // 2:  # the later pages: counted from the other end
        end = min(start + per_page, total)
        back = (
            (col(JournalEntry.entry_date), col(JournalEntry.id))
            if newest_first
            else (col(JournalEntry.entry_date).desc(), col(JournalEntry.id).desc())
        )
        later = base.order_by(*back).offset(total - end).limit(end - start)
        entries = _read_entries(session, later)
        entries.reverse()
    else:
        entries = _read_entries(session, base.order_by(*order).offset(start).limit(per_page))
    if not counted:
        total = len(entries)
    return JournalPage(_with_lines(session, entries), total, page, pages, per_page)


# --------------------------------------------------------------------------- verify


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
        (d, account, on): _money(total)
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
        (d, on): (int(n), _money(total))
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
                col(JournalLine.account).in_(list(_PER_BILL)),
            )
            .group_by(
                col(JournalEntry.district_id), col(JournalLine.bill_id), col(JournalLine.account)
            ),
            JournalEntry.district_id,
        )
    ):
        journal_bills[(d, int(bill_id or 0), account)] = _money(total)
    stored_bills: dict[tuple[int, int, str], Decimal] = {}
    for row in session.exec(where_district(select(BillLedger), BillLedger.district_id)):
        for account, column in _PER_BILL.items():
            stored_bills[(row.district_id, row.bill_id, account)] = getattr(row, column)
    for d, bill_id, account in sorted(set(journal_bills) | set(stored_bills)):
        stored = stored_bills.get((d, bill_id, account), ZERO)
        found = journal_bills.get((d, bill_id, account), ZERO)
        if stored != found:
            differences.append(Difference(d, "bill", f"{bill_id} {account}", stored, found))
    return differences


def verify(session: Session, district_id: int | None = None) -> tuple[int, list[Difference]]:
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
        differences.append(Difference(d, "entry", str(entry_id), ZERO, _money(total)))
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
