"""After the year: its surplus or deficit by the yearly statement's own figures, carried
over as the next year's opening line (/readings#budget-carry-over) once the year is closed
(locked after its statement)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tid.models import Budget
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message
from tid.rules.periods import FiscalYear
from tid.services.account import audit_statement, year_locks
from tid.services.audit_trail import audit
from tid.services.budget import planning


@dataclass(frozen=True)
class CarryOver:
    fiscal_year: FiscalYear
    opening: Decimal
    closing: Decimal
    closed: bool  # the year is locked

    @property
    def result(self) -> Decimal:
        """The year's surplus (positive) or deficit (negative)."""
        return self.closing - self.opening


def carry_over_of(*, session: Session, district_id: int, fy: FiscalYear) -> CarryOver:
    """The year's statement's opening and closing balances: what it carries to the next."""
    st = audit_statement.statement(session=session, district_id=district_id, fy=fy)
    locked = year_locks.lock_of(session=session, district_id=district_id, fy=fy) is not None
    return CarryOver(fy, st.opening_balance, st.closing_balance, locked)


def carry_over(
    *, session: Session, actor: audit.Actor, district_id: int, fy: FiscalYear, today: date
) -> Budget:
    """Carry the closed year's closing balance into the next year's budget: a new draft
    from the proposal, the draft's line changed, or an amendment of an approved budget."""
    found = carry_over_of(session=session, district_id=district_id, fy=fy)
    if not found.closed:
        raise InputError(
            "fy", N_("Close the fiscal year (lock it after its statement) before carrying it over.")
        )
    following = FiscalYear(fy.start_year + 1)
    budget = planning.budget_of(session=session, district_id=district_id, fy=following)
    reason = Message("The carry-over of FY %(fy)s by its yearly statement.", fy=fy.label)
    if budget is None:
        offer = planning.proposal(session=session, district_id=district_id, fy=following)
        plan = planning.Plan(
            billed=offer.billed, collection_rate=offer.rate, carry_over=found.closing
        )
    else:
        before = planning.plan_of(session=session, budget=budget)
        plan = planning.Plan(
            billed=before.billed,
            collection_rate=before.collection_rate,
            other_income=before.other_income,
            carry_over=found.closing,
            rate_reason=before.rate_reason,
            lines=before.lines,
        )
    if budget is not None and budget.status == planning.APPROVED:
        return planning.amend_budget(
            session=session,
            actor=actor,
            district_id=district_id,
            fy=following,
            plan=plan,
            reason=reason,
            today=today,
            kind="carried",
        )
    return planning.draft_budget(
        session=session, actor=actor, district_id=district_id, fy=following, plan=plan, today=today
    )
