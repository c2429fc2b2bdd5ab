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
    """The yearly statement with every row (pdf/statement.html, account/_statement_body.html):
    its figures, the receivables bill by bill and the year's journal."""
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
