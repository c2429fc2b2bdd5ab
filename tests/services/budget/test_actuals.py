"""Commitments against a line counted until settled, and the warnings of an expenditure on a
year with a budget: none for a draft, one for a purpose the budget has no line for."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.budget.support import BEFORE, FY, District
from tests.services.ledger_support import ACTOR
from tid.rules.errors import FindingsError, InputError
from tid.services.account import expenditures
from tid.services.budget import actuals, planning

TODAY = date(2025, 12, 1)


def test_commitments_count_until_settled_and_are_checked(session: Session) -> None:
    d = District(session)
    planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=d.plan(), today=BEFORE
    )
    common = dict(session=session, actor=ACTOR, district_id=d.id, fy=FY, today=TODAY)
    with pytest.raises(InputError) as draft:
        actuals.record_commitment(  # type: ignore[arg-type]
            key="admin", committed_on=TODAY, payee="X", amount=Decimal("1"), **common
        )
    assert draft.value.field == "line"
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        approved_on=BEFORE,
        minutes="Minutes",
        today=BEFORE,
    )
    with pytest.raises(FindingsError) as bad:
        actuals.record_commitment(
            key="42424242", committed_on=date(2026, 1, 1), payee=" ", amount=Decimal("0"), **common
        )  # type: ignore[arg-type]
    assert {f.field for f in bad.value.findings} == {"line", "amount", "payee", "committed_on"}
    made = actuals.record_commitment(
        key=str(d.security), committed_on=TODAY, payee="Guards", amount=Decimal("150.00"), **common
    )  # type: ignore[arg-type]
    budget = planning.budget_of(session=session, district_id=d.id, fy=FY)
    assert budget is not None
    left = {
        r.key: r.left for r in actuals.actuals(session=session, budget=budget, as_of=TODAY).lines
    }
    assert left[str(d.security)] == Decimal("250.00")
    assert [c.id for c in actuals.open_commitments(session=session, budget_id=budget.id or 0)] == [
        made.id
    ]
    # an amendment keeps the line and the commitment against it; a line left out with a
    # commitment stays at zero
    planning.amend_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        plan=planning.Plan(
            billed=Decimal("1500.00"),
            collection_rate=Decimal("0.9"),
            rate_reason="Same",
            lines={"admin": Decimal("60.00"), str(d.cleaning): Decimal("800.00")},
        ),
        reason="Security paid by the municipality",
        today=TODAY,
    )
    session.commit()
    left = {
        r.key: r.left for r in actuals.actuals(session=session, budget=budget, as_of=TODAY).lines
    }
    assert left[str(d.security)] == Decimal("-150.00")
    assert planning.plan_of(session=session, budget=budget).lines[str(d.security)] == 0
    actuals.settle(
        session=session, actor=ACTOR, district_id=d.id, commitment_id=made.id or 0, today=TODAY
    )
    left = {
        r.key: r.left for r in actuals.actuals(session=session, budget=budget, as_of=TODAY).lines
    }
    assert left[str(d.security)] == Decimal(
        "0.00"
    )  # settled: nothing counts against the zeroed line
    assert actuals.open_commitments(session=session, budget_id=budget.id or 0) == []


def test_a_draft_warns_nothing_and_a_purpose_without_a_line_is_warned(session: Session) -> None:
    d = District(session)
    other = expenditures.add_purpose(session=session, actor=ACTOR, district_id=d.id, name="Signage")
    planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=d.plan(), today=BEFORE
    )
    ask = dict(session=session, district_id=d.id, spent_on=TODAY, amount=Decimal("5000.00"))
    assert actuals.line_warning(administrative=False, purpose_id=d.cleaning, **ask) is None  # type: ignore[arg-type]
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        approved_on=BEFORE,
        minutes="Minutes",
        today=BEFORE,
    )
    assert str(actuals.line_warning(administrative=False, purpose_id=other.id, **ask)) == (  # type: ignore[arg-type]
        "The approved budget of FY 2025-26 has no line for this expenditure."
    )
    assert actuals.line_warning(administrative=True, purpose_id=None, **ask) is not None  # type: ignore[arg-type]
