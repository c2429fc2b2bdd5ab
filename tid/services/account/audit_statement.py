"""The yearly statement of the special account for the CPA's audit, and the CRIM's at the
municipality's request — 21 LPRA § 6653(6) (/readings#admin-cap-per-fiscal-year).

For one fiscal year, from the journal alone (so any past year can be produced again): the
opening bank balance, the impost revenue collected, the expenditures by authorized purpose,
the administrative total and its ratio to the revenue, the closing balance; the bill-by-bill
receivable aging at the year's end; the journal of the year. Also the check of the balances
the bank reported against the journal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, exists, literal_column
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tid import csv_safe
from tid.models import (
    AuthorizedPurpose,
    BankBalance,
    Bill,
    BillLedger,
    JournalEntry,
    JournalLine,
    OwedDay,
    Property,
)
from tid.rules import admin_cap
from tid.rules.account_months import Month
from tid.rules.aging import AGING_BUCKETS, AgedBill, bucket_index
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message, render
from tid.rules.money import ZERO, money_str
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.audit_trail import audit, audit_words
from tid.services.files.csv_columns import column_label, csv_text
from tid.services.ledger import (
    ADMIN_EXPENSE,
    BANK,
    OWNER_CREDIT,
    PURPOSE_PREFIX,
    REVENUE,
)


@dataclass(frozen=True)
class PurposeLine:
    name: str
    amount: Decimal


@dataclass(frozen=True)
class Statement:
    fiscal_year: FiscalYear
    opening_balance: Decimal
    impost_revenue: Decimal
    owner_credits: Decimal  # overpayments received (net of reversals) and held for owners
    program: tuple[PurposeLine, ...]
    program_total: Decimal
    admin_total: Decimal
    admin_ratio: Decimal | None  # admin ÷ revenue, None without revenue
    cap_rate: Decimal
    cap: Decimal
    closing_balance: Decimal
    other_movements: Decimal  # anything else through the bank (should be 0)
    # The day the district moved in from its earlier books, when that was in this year: the
    # year opens with the bank balance brought forward then (its opening entries are not
    # the year's revenue, credits or spending).
    opened_on: date | None = None

    @property
    def admin_ratio_percent(self) -> Decimal | None:
        return admin_cap.ratio_percent(self.admin_ratio)


def statement(
    *,
    session: Session,
    district_id: int,
    fy: FiscalYear,
    booked_before: datetime | None = None,
) -> Statement:
    """The statement of the special account for ``fy`` (booking dates July 1 – June 30), as
    the journal stood at ``booked_before`` if given (to reproduce a statement already issued:
    entries booked later, even dated inside the year, are left out)."""
    cut = booked_before
    opening = ledger.balance(
        session=session,
        district_id=district_id,
        account=BANK,
        until=date(fy.start_year, 6, 30),
        booked_before=cut,
    )
    sums: dict[str, Decimal] = {}
    if cut is None:  # the running balances of the year's days
        sums = ledger.day_sums(
            session=session, district_id=district_id, since=fy.start, until=fy.end
        )
    else:  # as the journal stood then: the year's entries booked before the cut
        year = ledger.journal(
            session=session,
            district_id=district_id,
            since=fy.start,
            until=fy.end,
            booked_before=cut,
        )
        for row in year:
            for line in row.lines:
                sums[line.account] = sums.get(line.account, ZERO) + line.amount
    closing = opening + sums.get(BANK, ZERO)  # the bank at the year's end
    opened_on, brought = _brought_forward(session, district_id, fy, cut)
    for account, amount in brought.items():
        sums[account] = sums.get(account, ZERO) - amount
    opening += brought.get(BANK, ZERO)
    revenue = -sums.get(REVENUE, ZERO)
    credits = -sums.get(OWNER_CREDIT, ZERO)
    admin = sums.get(ADMIN_EXPENSE, ZERO)
    names = {
        p.id: p.name
        for p in session.exec(
            select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == district_id)
        )
    }
    program = []
    for account, amount in sorted(sums.items()):
        if account.startswith(PURPOSE_PREFIX) and amount != 0:
            purpose_id = int(account.removeprefix(PURPOSE_PREFIX))
            program.append(PurposeLine(names.get(purpose_id, account), amount))
    program.sort(key=lambda p: p.name)
    program_total = sum((p.amount for p in program), ZERO)
    rate, _citation = admin_cap.admin_cap_rate(fy.end)
    cap = admin_cap.measure(rate=rate, revenue=revenue, admin=admin)
    other = (closing - opening) - (revenue + credits - program_total - admin)
    return Statement(
        fiscal_year=fy,
        opening_balance=opening,
        impost_revenue=revenue,
        owner_credits=credits,
        program=tuple(program),
        program_total=program_total,
        admin_total=admin,
        admin_ratio=cap.ratio,
        cap_rate=cap.rate,
        cap=cap.cap,
        closing_balance=closing,
        other_movements=other,
        opened_on=opened_on,
    )


def _brought_forward(
    session: Session, district_id: int, fy: FiscalYear, cut: datetime | None
) -> tuple[date | None, dict[str, Decimal]]:
    """The opening entries of a district that moved in during ``fy`` (booked before ``cut``
    when given): their day and what they add to each account."""
    stmt = (
        select(col(JournalEntry.entry_date), col(JournalLine.account), col(JournalLine.amount))
        .join(JournalLine, col(JournalLine.entry_id) == col(JournalEntry.id))
        .where(
            JournalEntry.district_id == district_id,
            JournalEntry.kind == "opening",
            col(JournalEntry.entry_date) >= fy.start,
            col(JournalEntry.entry_date) <= fy.end,
        )
    )
    if cut is not None:
        stmt = stmt.where(col(JournalEntry.created_at) < cut)
    day: date | None = None
    sums: dict[str, Decimal] = {}
    for on, account, amount in session.exec(stmt):
        day = on
        sums[account] = sums.get(account, ZERO) + amount
    return day, sums


# --------------------------------------------------------------------------- aging


@dataclass(frozen=True)
class AgingRow:
    bill: AgedBill
    cadastral_number: str
    outstanding: Decimal
    days_past_due: int
    bucket: str


def aging(
    *, session: Session, district_id: int, as_of: date, booked_before: datetime | None = None
) -> list[AgingRow]:
    """Every bill with something owed at ``as_of`` (from the journal up to that date), with
    how many days past its due date it was then."""
    owed = ledger.owed_by_bill(
        session=session, district_id=district_id, until=as_of, booked_before=booked_before
    )
    owed = {bill_id: amount for bill_id, amount in owed.items() if amount != 0}
    found: list[tuple[AgedBill, str]] = []
    ids = sorted(owed)
    for start in range(0, len(ids), 2000):  # only the bills with something owed
        stmt = (
            sa_select(
                col(Bill.id),
                col(Bill.fiscal_year),
                col(Bill.due_date),
                col(Bill.amount),
                col(Property.cadastral_number),
            )
            .join(Property, col(Property.id) == col(Bill.property_id))
            .where(col(Bill.id).in_(ids[start : start + 2000]))
        )
        found.extend(
            (AgedBill(bill_id or 0, fiscal_year, due, amount), cadastral_number)
            for bill_id, fiscal_year, due, amount, cadastral_number in session.execute(stmt)
        )
    found.sort(key=lambda pair: (pair[0].due_date, pair[0].id))  # as the index of owed bills
    rows = []
    for bill, cadastral_number in found:
        outstanding = owed[bill.id]
        days = max(0, (as_of - bill.due_date).days)
        bucket = AGING_BUCKETS[bucket_index(days)][1]
        rows.append(AgingRow(bill, cadastral_number, outstanding, days, bucket))
    return rows


@dataclass(frozen=True)
class AgingPage:
    """The first rows of the aging with the count and the totals of all of it."""

    rows: list[AgingRow]
    count: int
    totals: list[tuple[str, Decimal]]


# Whether anything is booked after the day asked, whether a bill's receivable is below zero
# (:func:`aging` lists it, the bills owed per due date do not), and whether a bill may not be
# booked yet: any of them, and the aging is read from the journal.
_FROM_THE_JOURNAL_IF = sa_select(
    exists().where(
        col(JournalEntry.district_id) == bindparam("district_id"),
        col(JournalEntry.entry_date) > bindparam("as_of"),
    ),
    exists().where(
        col(BillLedger.district_id) == bindparam("district_id"), col(BillLedger.receivable) < 0
    ),
    ledger.maybe_unbooked(bindparam("district_id")),
)
_OWED_BY_DUE = sa_select(col(OwedDay.due_date), col(OwedDay.bills), col(OwedDay.receivable)).where(
    col(OwedDay.district_id) == bindparam("district_id"), col(OwedDay.bills) > 0
)


def aging_page(*, session: Session, district_id: int, as_of: date, limit: int) -> AgingPage:
    """The aging at ``as_of`` for a page: its first ``limit`` rows, its count and its totals
    per bucket. When nothing is booked after ``as_of`` (the current year's statement) the
    count and the totals are read from the bills owed per due date (``owed_day``) and the
    rows from the index of owed bills, so the page does not grow with the bills owed over
    the years; otherwise (an earlier year) all from the journal, as :func:`aging`."""
    later, negative, maybe_unbooked = session.execute(
        _FROM_THE_JOURNAL_IF, {"district_id": district_id, "as_of": as_of}
    ).one()
    if (
        later
        or negative
        or (maybe_unbooked and ledger.unbooked_owed(session=session, district_id=district_id))
    ):
        rows = aging(session=session, district_id=district_id, as_of=as_of)
        return AgingPage(rows[:limit], len(rows), aging_totals(rows))
    owed: list[Any] = [
        col(BillLedger.district_id) == district_id,
        col(BillLedger.receivable) > literal_column("0"),
    ]
    # The bills owed per due date (a district has a due date or two a year), each due
    # date in its bucket.
    sums = [ZERO] * len(AGING_BUCKETS)
    count = 0
    for due, n, total in session.execute(_OWED_BY_DUE, {"district_id": district_id}):
        days = max(0, (as_of - due).days)
        sums[bucket_index(days)] += total
        count += int(n)
    totals = [(label, sums[i]) for i, (_start, label) in enumerate(AGING_BUCKETS)]
    if limit == 0:  # the count and the totals only
        return AgingPage([], count, totals)
    first = session.execute(
        sa_select(
            col(Bill.id),
            col(Bill.fiscal_year),
            col(Bill.due_date),
            col(Bill.amount),
            col(Property.cadastral_number),
            col(BillLedger.receivable),
        )
        .select_from(BillLedger)
        .join(Bill, col(Bill.id) == col(BillLedger.bill_id))
        .join(Property, col(Property.id) == col(Bill.property_id))
        .where(*owed)
        .order_by(col(BillLedger.due_date), col(BillLedger.bill_id))
        .limit(limit)
    ).all()
    rows = []
    for bill_id, fiscal_year, due, amount, cadastral_number, receivable in first:
        days = max(0, (as_of - due).days)
        bucket = AGING_BUCKETS[bucket_index(days)][1]
        outstanding = ledger.cents(receivable)
        rows.append(
            AgingRow(
                AgedBill(bill_id, fiscal_year, due, amount),
                cadastral_number,
                outstanding,
                days,
                bucket,
            )
        )
    return AgingPage(rows, count, totals)


def aging_totals(rows: Sequence[AgingRow]) -> list[tuple[str, Decimal]]:
    return [
        (label, sum((r.outstanding for r in rows if r.bucket == label), ZERO))
        for _, label in AGING_BUCKETS
    ]


# --------------------------------------------------------------------------- bank check


def record_bank_balance(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    as_of: date,
    balance: Decimal,
    today: date,
    note: str = "",
) -> BankBalance:
    """Record the balance the bank reported at a date (its monthly statement)."""
    if as_of > today:
        raise InputError("as_of", N_("The date cannot be in the future."))
    ledger.lock_district(session=session, district_id=district_id)
    clash = session.exec(
        select(BankBalance).where(
            BankBalance.district_id == district_id, BankBalance.as_of == as_of
        )
    ).first()
    if clash is not None:
        raise InputError("as_of", N_("A bank balance for this date is already recorded."))
    row = BankBalance(
        district_id=district_id,
        as_of=as_of,
        balance=balance,
        note=note.strip()[:300],
        actor=actor.label,
    )
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="bank_balance.create",
        entity=row,
        after=audit.snapshot(row),
    )
    return row


@dataclass(frozen=True)
class BankCheck:
    as_of: date
    reported: Decimal  # what the bank says (expected)
    booked: Decimal  # what the journal says
    difference: Decimal  # reported − booked

    @property
    def agrees(self) -> bool:
        return self.difference == 0


def bank_checks(*, session: Session, district_id: int, limit: int | None = None) -> list[BankCheck]:
    """The bank's reported balances against the journal's, the latest first (``limit``)."""
    rows = session.exec(
        select(BankBalance)
        .where(BankBalance.district_id == district_id)
        .order_by(col(BankBalance.as_of).desc())
        .limit(limit)
    )
    result = []
    for row in rows:
        booked = ledger.balance(
            session=session, district_id=district_id, account=BANK, until=row.as_of
        )
        result.append(BankCheck(row.as_of, row.balance, booked, row.balance - booked))
    return result


# --------------------------------------------------------------------------- monthly series


def months(*, session: Session, district_id: int, fy: FiscalYear) -> list[Month]:
    """Revenue, program and administrative spending by month of the FY, with running totals."""
    totals: dict[tuple[int, int], dict[str, Decimal]] = {ym: {} for ym in fy.months()}
    sums = ledger.month_sums(session=session, district_id=district_id, since=fy.start, until=fy.end)
    for account, year, month, amount in sums:
        bucket = totals[(year, month)]
        key = (
            "revenue"
            if account == REVENUE
            else "admin"
            if account == ADMIN_EXPENSE
            else "program"
            if account.startswith(PURPOSE_PREFIX)
            else None
        )
        if key is not None:
            bucket[key] = bucket.get(key, ZERO) + amount
    result = []
    revenue_to_date = admin_to_date = ZERO
    for (year, month), bucket in totals.items():
        revenue = -bucket.get("revenue", ZERO)
        admin = bucket.get("admin", ZERO)
        revenue_to_date += revenue
        admin_to_date += admin
        result.append(
            Month(
                year,
                month,
                revenue,
                bucket.get("program", ZERO),
                admin,
                revenue_to_date,
                admin_to_date,
            )
        )
    return result


# --------------------------------------------------------------------------- CSV


# The lines of the yearly statement's CSV.
STATEMENT_LINES = {
    "fiscal_year": N_("Fiscal year"),
    "opening_balance": N_("Opening balance"),
    "impost_revenue": N_("Impost revenue"),
    "owner_credits_received": N_("Owner credits received"),
    "expenditure": N_("Expenditure"),
    "program_total": N_("Program total"),
    "administrative_total": N_("Administrative total"),
    "administrative_ratio": N_("Administrative ratio"),
    "cap_rate": N_("Administrative cap rate"),
    "closing_balance": N_("Closing balance"),
    "other_movements": N_("Other movements"),
    "moved_in_on": N_("Moved in from the earlier books on"),
}


def _line(key: str) -> str:
    return render(Message(STATEMENT_LINES[key]))


def statement_csv(st: Statement) -> str:
    ratio = "" if st.admin_ratio is None else f"{st.admin_ratio:.6f}"
    rows: list[Sequence[object]] = [
        ("line", "purpose", "amount"),
        (_line("fiscal_year"), "", st.fiscal_year.label),
        *([(_line("moved_in_on"), "", st.opened_on.isoformat())] if st.opened_on else []),
        (_line("opening_balance"), "", money_str(st.opening_balance)),
        (_line("impost_revenue"), "", money_str(st.impost_revenue)),
        (_line("owner_credits_received"), "", money_str(st.owner_credits)),
    ]
    rows += [(_line("expenditure"), p.name, money_str(p.amount)) for p in st.program]
    rows += [
        (_line("program_total"), "", money_str(st.program_total)),
        (_line("administrative_total"), "", money_str(st.admin_total)),
        (_line("administrative_ratio"), "", ratio),
        (_line("cap_rate"), "", str(st.cap_rate)),
        (_line("closing_balance"), "", money_str(st.closing_balance)),
    ]
    if st.other_movements:
        rows.append((_line("other_movements"), "", money_str(st.other_movements)))
    return csv_text(rows, numbers={"amount"})


def aging_csv(rows: Sequence[AgingRow], as_of: date, bills: Mapping[int, str] | None = None) -> str:
    """The receivables at ``as_of``, a bill a row, each bill by its name (``bills``, by id:
    its notice's number, or its property and year; record_names.bill_names)."""
    names = bills or {}
    return csv_text(
        [
            (
                "as_of",
                "bill",
                "cadastral_number",
                "fiscal_year",
                "due_date",
                "amount",
                "outstanding",
                "days_past_due",
                "bucket",
            )
        ]
        + [
            (
                as_of.isoformat(),
                render(names.get(r.bill.id or 0, "")),
                r.cadastral_number,
                r.bill.fiscal_year,
                r.bill.due_date.isoformat(),
                money_str(r.bill.amount),
                money_str(r.outstanding),
                r.days_past_due,
                render(Message(r.bucket)),
            )
            for r in rows
        ],
        numbers={"amount", "outstanding", "days_past_due"},
    )


JOURNAL_COLUMNS = (
    "entry",
    "date",
    "kind",
    "memo",
    "reverses",
    "reversed_by",
    "actor",
    "account",
    "bill",
    "debit",
    "credit",
)


def journal_csv(
    rows: Sequence[ledger.JournalRow],
    purposes: dict[int, str] | None = None,
    bills: Mapping[int, str] | None = None,
) -> str:
    """The journal, one row per line: kinds, memos and accounts in the reader's language
    (an authorized purpose by its name, from ``purposes``), each entry by its number in the
    district's journal and each bill by its name (``bills``, by id), never by an id."""
    return journal_csv_of([(rows, bills or {})], purposes)


def journal_csv_of(
    chunks: Iterable[tuple[Sequence[ledger.JournalRow], Mapping[int, str]]],
    purposes: dict[int, str] | None = None,
) -> str:
    """:func:`journal_csv` of the journal read a chunk at a time (each with its bills'
    names): written as it is read, so only a chunk's rows are held at once."""
    body = (line for rows, names in chunks for line in _journal_lines(rows, purposes, names))
    header = [column_label(key) for key in JOURNAL_COLUMNS]
    numeric = {column_label(k) for k in ("entry", "reverses", "reversed_by", "debit", "credit")}
    return csv_safe.write(header, body, numbers=numeric)


def _journal_lines(
    rows: Sequence[ledger.JournalRow],
    purposes: dict[int, str] | None,
    names: Mapping[int, str],
) -> Iterator[tuple[object, ...]]:
    for row in rows:
        kind = render(ledger.entry_kind_label(row.entry.kind))
        memo = render(ledger.memo_message(row.entry.kind, row.entry.memo, names))
        actor = render(audit_words.actor_label(row.entry.actor))
        for line in row.lines:
            yield (
                row.entry.number,
                row.entry.entry_date.isoformat(),
                kind,
                memo,
                row.reverses_number,
                row.reversed_by_number,
                actor,
                render(ledger.account_label(line.account, purposes)),
                render(names.get(line.bill_id, "")) if line.bill_id else "",
                money_str(line.amount) if line.amount > 0 else "",
                money_str(-line.amount) if line.amount < 0 else "",
            )
