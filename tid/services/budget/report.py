"""The yearly report of a district to its municipality and the public (a document of record,
PDF/A, archived and published like the published statement): the year's spending by purpose
against its approved budget, the collections against those expected, the administrative
cap, the carry-over and the next year's approved budget (the document adds how an owner
estimates the impost, tid/documents/budget.py)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from tid.models import District
from tid.rules.errors import N_, InputError
from tid.rules.periods import FiscalYear
from tid.services.account import audit_statement
from tid.services.budget import actuals, carry_over, planning

NOT_READY = N_(
    "The yearly report is made of a closed year (locked after its statement) with an "
    "approved budget."
)


def report_context(
    *, session: Session, district: District, fy: FiscalYear, today: date
) -> dict[str, Any]:
    """What the report shows; refused (field ``fy``) before the year is closed or without
    its approved budget."""
    district_id = district.id or 0
    budget = planning.budget_of(session=session, district_id=district_id, fy=fy)
    carried = carry_over.carry_over_of(session=session, district_id=district_id, fy=fy)
    if budget is None or budget.status != planning.APPROVED or not carried.closed:
        raise InputError("fy", NOT_READY)
    following = planning.budget_of(
        session=session, district_id=district_id, fy=FiscalYear(fy.start_year + 1)
    )
    next_year = None
    if following is not None and following.status == planning.APPROVED:
        next_year = actuals.actuals(session=session, budget=following, as_of=fy.end)
    return {
        "district": district,
        "fy": fy,
        "today": today,
        "budget": budget,
        "collection_rate": Decimal(budget.collection_rate),
        "found": actuals.actuals(session=session, budget=budget, as_of=fy.end),
        "st": audit_statement.statement(session=session, district_id=district_id, fy=fy),
        "carried": carried,
        "next_year": next_year,
        "history": planning.history(session=session, budget_id=budget.id or 0),
    }
