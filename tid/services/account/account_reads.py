"""What the special account's pages and its documents of record read: the fiscal year shown
by default, the journal as it stood at a day's end, the yearly statement's figures and rows,
a property of a district. One read for the page and for its PDF or CSV (tid/documents)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import case, extract
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, func, select

from tid.clock import PUERTO_RICO
from tid.models import District, JournalEntry, JournalLine, Property
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services import ledger
from tid.services.account import audit_statement, expenditures

# The yearly statement's PDF lists the receivables bill by bill and the journal entry by
# entry when together they are at most this many rows (a layout of about a second); past it,
# the PDF holds the year's figures, the journal's totals by month and by account and the
# receivables by age, and the detail is in the statement's CSV files, whose totals those are
# (/readings#statement-pdf-detail). A PDF so bounded is laid out in about a second and a
# bounded memory whatever the district's size.
DETAIL_ROWS = 100


def statement_in_detail(aging: int, entries: int) -> bool:
    """Whether the yearly statement's PDF lists its ``aging`` bills owed and ``entries``
    journal entries one by one (:data:`DETAIL_ROWS`)."""
    return aging + entries <= DETAIL_ROWS


def default_fiscal_year(*, session: Session, district_id: int, today: date) -> FiscalYear:
    """Today's fiscal year, or the last one the district booked anything in when that is
    earlier (a page of empty months helps nobody)."""
    current = fiscal_year_of(today)
    latest = session.exec(
        select(func.max(JournalEntry.entry_date)).where(JournalEntry.district_id == district_id)
    ).one()
    if latest is not None and latest < current.start:
        return fiscal_year_of(latest)
    return current


def booked_cut(booked_by: date | None) -> datetime | None:
    """The instant that ends ``booked_by`` in Puerto Rico (UTC): the journal as it stood then,
    to reproduce a statement already issued. None (everything booked) for no day or the
    last day there is."""
    if booked_by is None or booked_by == date.max:
        return None
    end = datetime.combine(booked_by + timedelta(days=1), time(0), tzinfo=PUERTO_RICO)
    return end.astimezone(UTC)


def statement_context(
    *,
    session: Session,
    district: District,
    fy: FiscalYear,
    booked_by: date | None,
    today: date,
) -> dict[str, Any]:
    """The yearly statement's PDF (pdf/statement.html): its figures, the journal's totals by
    month and by account, and either the receivables bill by bill and the year's journal
    (account/_statement_body.html) or, past :data:`DETAIL_ROWS`, the receivables by age
    (account/_statement_totals.html)."""
    page = statement_page_context(
        session=session, district=district, fy=fy, booked_by=booked_by, today=today
    )
    cut = booked_cut(booked_by)
    months, accounts = journal_totals(
        session=session, district_id=district.id or 0, fy=fy, booked_before=cut
    )
    in_detail = statement_in_detail(page["aging_count"], page["entries_count"])
    if in_detail:
        page = statement_detail(
            session=session, district=district, fy=fy, booked_by=booked_by, today=today
        )
    entries = sum(m.entries or 0 for m in months)
    return {
        **page,
        "in_detail": in_detail,
        "months": months,
        "accounts": accounts,
        "entries_count": entries,
    }


def statement_detail(
    *,
    session: Session,
    district: District,
    fy: FiscalYear,
    booked_by: date | None,
    today: date,
) -> dict[str, Any]:
    """The yearly statement with every row: its figures, the receivables bill by bill and
    the year's journal."""
    district_id = district.id or 0
    cut = booked_cut(booked_by)
    rows = ledger.journal(
        session=session, district_id=district_id, since=fy.start, until=fy.end, booked_before=cut
    )
    every = audit_statement.aging(
        session=session, district_id=district_id, as_of=fy.end, booked_before=cut
    )
    return {
        **_statement_figures(session, district, fy, booked_by=booked_by, cut=cut, today=today),
        "aging": every,
        "aging_count": len(every),
        "aging_totals": audit_statement.aging_totals(every),
        "rows": rows,
        "entries_count": len(rows),
    }


def statement_page_context(
    *,
    session: Session,
    district: District,
    fy: FiscalYear,
    booked_by: date | None,
    today: date,
) -> dict[str, Any]:
    """The yearly statement's page (account/statement.html): its figures and the receivables'
    count and totals by age, without the rows (the PDF and the CSV files have them, the
    delinquency and the journal pages a page at a time); the year's journal entries counted
    (whether its documents are long)."""
    district_id = district.id or 0
    cut = booked_cut(booked_by)
    if cut is None:  # the index of owed bills
        aged = audit_statement.aging_page(
            session=session, district_id=district_id, as_of=fy.end, limit=0
        )
        count, totals = aged.count, aged.totals
    else:  # as the journal stood then
        every = audit_statement.aging(
            session=session, district_id=district_id, as_of=fy.end, booked_before=cut
        )
        count, totals = len(every), audit_statement.aging_totals(every)
    return {
        **_statement_figures(session, district, fy, booked_by=booked_by, cut=cut, today=today),
        "aging_count": count,
        "aging_totals": totals,
        "entries_count": ledger.entries_count(
            session=session, district_id=district_id, since=fy.start, until=fy.end
        ),
    }


def _statement_figures(
    session: Session,
    district: District,
    fy: FiscalYear,
    *,
    booked_by: date | None,
    cut: datetime | None,
    today: date,
) -> dict[str, Any]:
    """What the statement's page and its PDF both show: the year's figures and bank checks."""
    district_id = district.id or 0
    checks = audit_statement.bank_checks(session=session, district_id=district_id)
    return {
        "district": district,
        "fy": fy,
        "booked_by": booked_by,
        "st": audit_statement.statement(
            session=session, district_id=district_id, fy=fy, booked_before=cut
        ),
        "checks": [c for c in checks if fy.contains(c.as_of)],
        "today": today,
    }


@dataclass(frozen=True)
class JournalTotal:
    """The journal's lines of a month or of an account in a fiscal year, summed: a month's
    ``key`` is its first day, an account's its name (``label`` what users call it)."""

    key: Any
    label: Any
    entries: int | None  # a month's; None for an account
    debits: Decimal
    credits: Decimal


def journal_totals(
    *, session: Session, district_id: int, fy: FiscalYear, booked_before: datetime | None
) -> tuple[list[JournalTotal], list[JournalTotal]]:
    """The year's journal summed by month (every month of the year, with its entries' count)
    and by account (each account used), as it stood at ``booked_before``: the control
    totals of the journal's CSV file, summed by the database in one pass over the year's
    lines (the entries counted apart, without their lines)."""
    day = col(JournalEntry.entry_date)
    where = [col(JournalEntry.district_id) == district_id, day >= fy.start, day <= fy.end]
    if booked_before is not None:
        where.append(col(JournalEntry.created_at) < booked_before)
    year, month = extract("year", day), extract("month", day)
    amount = col(JournalLine.amount)
    sums = (
        sa_select(
            year,
            month,
            col(JournalLine.account),
            func.sum(case((amount > 0, amount), else_=0)),
            func.sum(case((amount < 0, -amount), else_=0)),
        )
        .select_from(JournalLine)
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(*where)
        .group_by(year, month, col(JournalLine.account))
    )
    zero = ledger.cents(None)
    by_month: dict[tuple[int, int], list[Decimal]] = {ym: [zero, zero] for ym in fy.months()}
    by_account: dict[str, list[Decimal]] = {}
    for y, m, account, debit, credit in session.execute(sums):
        for total in (by_month[(int(y), int(m))], by_account.setdefault(account, [zero, zero])):
            total[0] += ledger.cents(debit)
            total[1] += ledger.cents(credit)
    counts = sa_select(year, month, func.count()).where(*where).group_by(year, month)
    entries = {(int(y), int(m)): int(n) for y, m, n in session.execute(counts)}
    months = [
        JournalTotal(date(y, m, 1), f"{y:04d}-{m:02d}", entries.get((y, m), 0), *by_month[(y, m)])
        for y, m in fy.months()
    ]
    names = expenditures.account_purpose_names(session=session, accounts=by_account)
    accounts = [
        JournalTotal(a, ledger.account_label(a, names), None, *by_account[a])
        for a in sorted(by_account)
    ]
    return months, accounts


def district_property(*, session: Session, district_id: int, property_id: int) -> Property | None:
    """The property ``property_id`` when it is one of the district's."""
    prop = session.get(Property, property_id)
    return prop if prop is not None and prop.district_id == district_id else None


def property_by_cadastral(*, session: Session, district_id: int, cadastral: str) -> Property | None:
    """The district's property with this cadastral number."""
    return session.exec(
        select(Property).where(
            Property.district_id == district_id, Property.cadastral_number == cadastral
        )
    ).first()
