"""The district's approved budgets as the public sees them (21 LPRA § 6653(6)): each line as
first approved (the Fiscal Data Package's ``proposed`` phase: what the board voted), as it
stands after its amendments (``approved``) and, for a fiscal year whose figures are public,
what was spent on it (``executed``). A draft is never public, nor are the commitments."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import Budget
from tid.rules.periods import FiscalYear
from tid.services.budget import actuals, planning
from tid.services.public.declared import public_view

PURPOSE = "purpose"
ADMINISTRATIVE = "administrative"
HUNDRED = Decimal(100)


def _first_approved(session: Session, budget: Budget) -> dict[str, Decimal]:
    """The lines as the board first approved them (its history's ``approved`` step)."""
    for step in planning.history(session=session, budget_id=budget.id or 0):
        if step.kind == "approved":
            lines = json.loads(step.figures)["lines"]
            return {key: Decimal(amount) for key, amount in lines.items()}
    return {}


def public_budgets(
    *, session: Session, district_id: int, public_years: set[str]
) -> list[dict[str, Any]]:
    """The district's approved budgets, newest year first, each with its lines."""
    budgets = session.exec(
        select(Budget)
        .where(Budget.district_id == district_id, Budget.status == planning.APPROVED)
        .order_by(col(Budget.fiscal_year).desc())
    )
    found = []
    for budget in budgets:
        fy = FiscalYear(int(budget.fiscal_year[:4]))
        first = _first_approved(session, budget)
        measured = actuals.actuals(session=session, budget=budget, as_of=fy.end)
        public = budget.fiscal_year in public_years
        lines = [
            public_view(
                "budget_line",
                {
                    "district_id": district_id,
                    "fiscal_year": budget.fiscal_year,
                    "kind": ADMINISTRATIVE if line.key == planning.ADMIN else PURPOSE,
                    "purpose": ADMINISTRATIVE if line.key == planning.ADMIN else line.name,
                    "proposed": first.get(line.key, Decimal("0.00")),
                    "approved": line.budget,
                    "executed": line.spent if public else None,
                },
            )
            for line in measured.lines
        ]
        found.append(
            public_view(
                "budget",
                {
                    "district_id": district_id,
                    "fiscal_year": budget.fiscal_year,
                    "approved_on": budget.approved_on,
                    "minutes": budget.minutes,
                    "amendments": budget.amendments,
                    "billed": budget.billed,
                    "collection_rate": (Decimal(budget.collection_rate) * HUNDRED).normalize(),
                    "expected_collections": budget.expected_collections,
                    "other_income": budget.other_income,
                    "carry_over": budget.carry_over,
                    "lines": lines,
                },
            )
        )
    return found
