"""The special account of 21 LPRA § 6653(6) as a balanced, append-only double-entry journal.

Every movement of a district's special account is a :class:`JournalEntry` whose lines add up
to zero (one signed amount per line: debit positive, credit negative). Balances are derived
from the lines, never stored. Nothing is edited or deleted (the database refuses it): a
mistake is undone by a reversing entry.

The accounts (codes):

- ``bank``: the special bank account (debit = money in).
- ``receivable`` (per bill): what an owner still owes on a bill.
- ``impost_assessed``: the impost billed and not yet collected (the counterpart of the
  receivables: its balance is always minus their sum).
- ``impost_revenue``: the impost collected (credit = revenue); the base of the 5% cap.
- ``owner_credit`` (with the bill the money came with): an overpayment held for the owner.
- ``expense:admin``: administrative expenditures; ``expense:purpose:<id>``: spending on an
  authorized purpose of the ordinance.

A bill is booked Dr receivable / Cr impost_assessed. A payment of P applied A to bills and
O = P − A held as credit is booked Dr bank P, Cr receivable A, Dr impost_assessed A,
Cr impost_revenue A, Cr owner_credit O. An expenditure is Dr expense / Cr bank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_DOWN, Decimal

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid.models import Bill, BillingRun, BillStatus, JournalEntry, JournalLine
from tid.rules import admin_cap
from tid.rules.calendar import FiscalYear, fiscal_year_of
from tid.rules.errors import N_, InputError
from tid.rules.money import CENT, MAX_ACCOUNT_AMOUNT, ZERO
from tid.services import audit, year_locks

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
    lines: tuple[JournalLine, ...]
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
) -> Posted:
    """Append one balanced entry, once per ``key``: if the key is already booked (also by a
    concurrent writer that committed first), return that entry and write nothing."""
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
    existing = entry_by_key(session, key)
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
        with session.begin_nested():
            session.add(entry)
            session.flush()
            rows = [
                JournalLine(
                    entry_id=entry.id or 0,
                    account=line.account,
                    bill_id=line.bill_id,
                    amount=line.amount,
                )
                for line in lines
            ]
            session.add_all(rows)
            session.flush()
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
                {"account": r.account, "bill_id": r.bill_id, "amount": str(r.amount)} for r in rows
            ],
        },
    )
    return Posted(entry, tuple(rows), booked=True)


def entry_by_key(session: Session, key: str) -> JournalEntry | None:
    return session.exec(select(JournalEntry).where(JournalEntry.idempotency_key == key)).first()


def entry_lines(session: Session, entry_id: int) -> tuple[JournalLine, ...]:
    stmt = select(JournalLine).where(JournalLine.entry_id == entry_id).order_by(col(JournalLine.id))
    return tuple(session.exec(stmt))


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
) -> Decimal:
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
    return _money(session.exec(stmt).one())


def _money(value: object) -> Decimal:
    """A sum of a Money column: the column type already reads it back as Decimal."""
    if value is None:
        return ZERO.quantize(CENT)
    if isinstance(value, Decimal):
        return value.quantize(CENT)
    raise TypeError(f"unexpected sum {value!r}")


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
    """The balance of an account (debit positive) from the journal, optionally for one bill,
    between two booking dates (inclusive), and as the journal stood at ``booked_before``."""
    return _sum(
        session,
        district_id,
        accounts=[account],
        bill_id=bill_id,
        since=since,
        until=until,
        booked_before=booked_before,
    )


def balances(
    session: Session, district_id: int, *, until: date | None = None
) -> dict[str, Decimal]:
    """Every account's balance (debit positive), bills' receivables summed."""
    stmt = (
        select(JournalLine.account, func.sum(JournalLine.amount))
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(JournalEntry.district_id == district_id)
        .group_by(col(JournalLine.account))
    )
    if until is not None:
        stmt = stmt.where(JournalEntry.entry_date <= until)
    return {account: _money(total) for account, total in session.exec(stmt)}


def bill_balances(
    session: Session,
    district_id: int,
    account: str = RECEIVABLE,
    *,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> dict[int, Decimal]:
    """The balance of ``account`` per bill (receivable: what is still owed on each bill)."""
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
    if until is not None:
        stmt = stmt.where(JournalEntry.entry_date <= until)
    if booked_before is not None:
        stmt = stmt.where(JournalEntry.created_at < booked_before)
    return {int(bill_id or 0): _money(total) for bill_id, total in session.exec(stmt)}


def _booked_bill_ids(
    session: Session, district_id: int, booked_before: datetime | None = None
) -> set[int]:
    stmt = (
        select(JournalLine.bill_id)
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(JournalEntry.district_id == district_id, JournalEntry.kind == "bill")
    )
    if booked_before is not None:
        stmt = stmt.where(JournalEntry.created_at < booked_before)
    return {bill_id for bill_id in session.exec(stmt) if bill_id is not None}


def owed_by_bill(
    session: Session,
    district_id: int,
    *,
    until: date | None = None,
    booked_before: datetime | None = None,
) -> dict[int, Decimal]:
    """What is still owed on each bill: the journal's receivable, plus the full amount of an
    active bill that the journal has not booked yet (it is booked with the next posting)."""
    owed = bill_balances(session, district_id, until=until, booked_before=booked_before)
    booked = _booked_bill_ids(session, district_id, booked_before)
    stmt = (
        select(Bill, BillingRun)
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(Bill.district_id == district_id, Bill.status == BillStatus.ACTIVE.value)
    )
    for bill, run in session.exec(stmt):
        if bill.id is None or bill.id in booked or bill.amount <= 0:
            continue
        if booked_before is not None and bill.created_at >= booked_before:
            continue
        if until is None or run.run_on <= until:
            owed[bill.id] = owed.get(bill.id, ZERO) + bill.amount
    return owed


# --------------------------------------------------------------------------- the 5% cap


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
    rate, citation = admin_cap.admin_cap_rate(fy.end)
    stmt = (
        select(JournalLine.account, func.sum(JournalLine.amount))
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(
            JournalEntry.district_id == district_id,
            col(JournalLine.account).in_((REVENUE, ADMIN_EXPENSE)),
            JournalEntry.entry_date >= fy.start,
            JournalEntry.entry_date <= fy.end,
        )
        .group_by(col(JournalLine.account))
    )
    sums = {account: _money(total) for account, total in session.exec(stmt)}
    revenue = -sums.get(REVENUE, ZERO.quantize(CENT))
    admin = sums.get(ADMIN_EXPENSE, ZERO.quantize(CENT))
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


def sync_bills(session: Session, *, actor: audit.Actor, district_id: int) -> int:
    """Book every active bill of the district not yet in the journal, and move what was paid
    on a superseded bill to the bill that replaced it. Returns how many entries were made."""
    made = 0
    booked_ids = _booked_bill_ids(session, district_id)
    stmt = (
        select(Bill, BillingRun)
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(Bill.district_id == district_id)
        .order_by(col(Bill.id))
    )
    pairs = list(session.exec(stmt))
    for bill, run in pairs:
        if bill.id in booked_ids or bill.amount <= 0:
            continue
        if bill.status != BillStatus.ACTIVE.value and bill.superseded_by_id is not None:
            continue  # superseded before it was ever booked: only its successor is owed
        posted = post_entry(
            session,
            actor=actor,
            district_id=district_id,
            entry_date=run.run_on,
            kind="bill",
            memo=f"Impost FY {bill.fiscal_year}, bill {bill.id}",
            key=f"bill:{bill.id}",
            lines=[
                Line(RECEIVABLE, bill.amount, bill.id),
                Line(ASSESSED, -bill.amount, bill.id),
            ],
        )
        made += int(posted.booked)
        booked_ids.add(bill.id or 0)
    for bill, run in pairs:
        if bill.status == BillStatus.ACTIVE.value or bill.superseded_by_id is None:
            continue
        if bill.id not in booked_ids or entry_by_key(session, f"supersede:{bill.id}"):
            continue
        made += int(_move_superseded(session, actor, district_id, bill, run.run_on))
    return made


def _move_superseded(
    session: Session, actor: audit.Actor, district_id: int, old: Bill, on: date
) -> bool:
    new = session.get(Bill, old.superseded_by_id)
    if new is None or new.id is None or old.id is None:
        return False
    outstanding = balance(session, district_id, RECEIVABLE, bill_id=old.id)
    paid = old.amount - outstanding
    moved = min(paid, new.amount) if paid > 0 else ZERO
    excess = paid - moved if paid > 0 else ZERO
    lines = []
    if outstanding:
        lines += [Line(RECEIVABLE, -outstanding, old.id), Line(ASSESSED, outstanding, old.id)]
    if moved:
        lines += [Line(RECEIVABLE, -moved, new.id), Line(ASSESSED, moved, new.id)]
    if excess:
        lines += [Line(REVENUE, excess, old.id), Line(OWNER_CREDIT, -excess, new.id)]
    if not lines:
        return False
    run = session.get(BillingRun, new.billing_run_id)
    posted = post_entry(
        session,
        actor=actor,
        district_id=district_id,
        entry_date=max(on, run.run_on if run else on),
        kind="bill_superseded",
        memo=f"Bill {old.id} superseded by bill {new.id}",
        key=f"supersede:{old.id}",
        lines=lines,
    )
    return posted.booked


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
                    "Reversing this payment would leave administrative spending above 5 percent of "
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
        memo=f"Reverses entry {entry_id}: {reason.strip()}",
        key=f"reverse:{entry_id}",
        lines=[Line(line.account, -line.amount, line.bill_id) for line in lines],
        reverses_id=entry_id,
    )


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class JournalRow:
    entry: JournalEntry
    lines: tuple[JournalLine, ...]
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
    stmt = select(JournalEntry).where(JournalEntry.district_id == district_id)
    if booked_before is not None:
        stmt = stmt.where(JournalEntry.created_at < booked_before)
    if since is not None:
        stmt = stmt.where(JournalEntry.entry_date >= since)
    if until is not None:
        stmt = stmt.where(JournalEntry.entry_date <= until)
    entries = list(session.exec(stmt.order_by(col(JournalEntry.entry_date), col(JournalEntry.id))))
    ids = [e.id for e in entries]
    by_entry: dict[int, list[JournalLine]] = defaultdict(list)
    reversed_by: dict[int, int] = {}
    if ids:
        for line in session.exec(
            select(JournalLine)
            .where(col(JournalLine.entry_id).in_(ids))
            .order_by(col(JournalLine.id))
        ):
            by_entry[line.entry_id].append(line)
        reversals = select(JournalEntry).where(col(JournalEntry.reverses_id).in_(ids))
        if booked_before is not None:
            reversals = reversals.where(JournalEntry.created_at < booked_before)
        for rev in session.exec(reversals):
            reversed_by[rev.reverses_id or 0] = rev.id or 0
    return [JournalRow(e, tuple(by_entry[e.id or 0]), reversed_by.get(e.id or 0)) for e in entries]
