"""What the special account's pages and its documents of record read: the fiscal year shown
by default, the journal as it stood at a day's end, the yearly statement's figures and rows,
a property of a district. One read for the page and for its PDF or CSV (tid/documents)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlmodel import Session, func, select

from tid.clock import PUERTO_RICO
from tid.models import District, JournalEntry, Property
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services import audit_statement, ledger


def default_fiscal_year(session: Session, district_id: int, today: date) -> FiscalYear:
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
    session: Session,
    district: District,
    fy: FiscalYear,
    *,
    booked_by: date | None,
    today: date,
    shown: int | None = None,
) -> dict[str, Any]:
    """The yearly statement (pdf/statement.html, account/_statement_body.html): with
    ``shown``, a page's first ``shown`` receivables and journal entries (the counts and
    totals of all of them); without, every row."""
    district_id = district.id or 0
    cut = booked_cut(booked_by)
    if shown is not None and cut is None:
        entries = ledger.journal_page(
            session, district_id, since=fy.start, until=fy.end, per_page=shown
        )
        rows, entries_total = entries.rows, entries.total
        aged = audit_statement.aging_page(session, district_id, fy.end, limit=shown)
    else:
        rows = ledger.journal(session, district_id, since=fy.start, until=fy.end, booked_before=cut)
        entries_total = len(rows)
        every = audit_statement.aging(session, district_id, fy.end, booked_before=cut)
        aged = audit_statement.AgingPage(every, len(every), audit_statement.aging_totals(every))
    checks = audit_statement.bank_checks(session, district_id)
    return {
        "aging_count": aged.count,
        "entries_count": entries_total,
        "shown": shown,
        "district": district,
        "fy": fy,
        "booked_by": booked_by,
        "st": audit_statement.statement(session, district_id, fy, booked_before=cut),
        "aging": aged.rows[:shown] if shown is not None else aged.rows,
        "aging_totals": aged.totals,
        "rows": rows[:shown] if shown is not None else rows,
        "checks": [c for c in checks if fy.contains(c.as_of)],
        "today": today,
    }


def district_property(session: Session, district_id: int, property_id: int) -> Property | None:
    """The property ``property_id`` when it is one of the district's."""
    prop = session.get(Property, property_id)
    return prop if prop is not None and prop.district_id == district_id else None


def property_by_cadastral(session: Session, district_id: int, cadastral: str) -> Property | None:
    """The district's property with this cadastral number."""
    return session.exec(
        select(Property).where(
            Property.district_id == district_id, Property.cadastral_number == cadastral
        )
    ).first()
