"""A budget drafted, checked against the law at its fields, approved with its minutes and
amended only by a recorded amendment, with its history."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.budget.support import BEFORE, FY, District
from tests.services.ledger_support import ACTOR
from tid.rules.errors import FindingsError, InputError
from tid.services.account import expenditures
from tid.services.budget import planning


def _draft(session: Session, d: District, plan: planning.Plan) -> None:
    planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=plan, today=BEFORE
    )


def test_a_line_outside_the_purposes_and_administration_above_the_cap_are_said_at_their_fields(
    session: Session,
) -> None:
    d = District(session)
    # 5% of the 1,350.00 expected is 67.50: 67.51 is above it; purpose 999999 is none of the
    # district's, nor is the other district's purpose.
    with pytest.raises(FindingsError) as refused:
        _draft(session, d, d.plan(admin="67.51", **{"999999": "10.00"}))
    by_field = {f.field: str(f.message) for f in refused.value.findings}
    assert by_field["line_999999"] == "This is not a purpose the ordinance authorizes."
    assert by_field["line_admin"] == (
        "Administration of $67.51 is above the cap: 5% of the $1,350.00 expected "
        "collections is $67.50 (21 LPRA § 6653(6))."
    )
    assert planning.budget_of(session=session, district_id=d.id, fy=FY) is None
    # 67.50 is within it.
    _draft(session, d, d.plan(admin="67.50"))
    stored = planning.budget_of(session=session, district_id=d.id, fy=FY)
    assert stored is not None and stored.status == "draft"
    assert planning.plan_of(session=session, budget=stored).lines["admin"] == Decimal("67.50")


def test_a_retired_purpose_the_total_and_a_changed_rate_without_reason_are_refused(
    session: Session,
) -> None:
    d = District(session)
    expenditures.set_purpose_active(
        session=session, actor=ACTOR, purpose_id=d.security, active=False
    )
    plan = d.plan(cleaning="1300.00")
    plan = planning.Plan(billed=plan.billed, collection_rate=plan.collection_rate, lines=plan.lines)
    with pytest.raises(FindingsError) as refused:
        _draft(session, d, plan)
    by_field = {f.field: str(f.message) for f in refused.value.findings}
    assert by_field[f"line_{d.security}"] == "This purpose is no longer authorized."
    # 60 + 1,300 + 400 = 1,760.00 against 1,350.00 expected.
    assert by_field["total"] == (
        "The spending of $1,760.00 is above the $1,350.00 expected (collections, other "
        "income and the carry-over)."
    )
    assert "rate_reason" in by_field  # 90% is not the proposed 100% and says no why


def test_draft_approve_and_amend_keep_their_history(session: Session) -> None:
    d = District(session)
    offer = planning.proposal(session=session, district_id=d.id, fy=FY)
    assert (offer.billed, offer.billed_from, offer.rate, offer.years) == (
        Decimal("1500.00"),
        "2025-26",
        Decimal("1"),
        [],
    )
    budget = planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=d.plan(), today=BEFORE
    )
    assert budget.expected_collections == Decimal("1350.00")
    # A draft is revised freely.
    planning.draft_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        plan=d.plan(security="350.00"),
        today=BEFORE,
    )
    with pytest.raises(InputError) as no_minutes:
        planning.approve_budget(
            session=session,
            actor=ACTOR,
            district_id=d.id,
            fy=FY,
            approved_on=BEFORE,
            minutes=" ",
            today=BEFORE,
        )
    assert no_minutes.value.field == "minutes"
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        approved_on=date(2025, 6, 14),
        minutes="Minutes of the board, June 14, 2025",
        today=BEFORE,
    )
    with pytest.raises(InputError) as approved:
        planning.draft_budget(
            session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=d.plan(), today=BEFORE
        )
    assert approved.value.field == "status"
    with pytest.raises(InputError) as no_reason:
        planning.amend_budget(
            session=session,
            actor=ACTOR,
            district_id=d.id,
            fy=FY,
            plan=d.plan(cleaning="850.00"),
            reason="",
            today=BEFORE,
        )
    assert no_reason.value.field == "reason"
    planning.amend_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        plan=d.plan(cleaning="850.00"),
        reason="The beach festival",
        today=date(2025, 9, 1),
    )
    session.commit()
    stored = planning.budget_of(session=session, district_id=d.id, fy=FY)
    assert stored is not None
    assert (stored.status, stored.amendments, stored.approved_on) == (
        "approved",
        1,
        date(2025, 6, 14),
    )
    assert planning.plan_of(session=session, budget=stored).lines == {
        "admin": Decimal("60.00"),
        str(d.cleaning): Decimal("850.00"),
        str(d.security): Decimal("400.00"),
    }
    steps = planning.history(session=session, budget_id=stored.id or 0)
    assert [(s.kind, s.reason) for s in steps] == [
        ("drafted", ""),
        ("revised", ""),
        ("approved", "Minutes of the board, June 14, 2025"),
        ("amended", "The beach festival"),
    ]
    assert json.loads(steps[1].figures)["lines"][str(d.security)] == "350.00"
    assert json.loads(steps[3].figures)["lines"][str(d.cleaning)] == "850.00"


def test_a_form_is_read_every_field_at_once() -> None:
    with pytest.raises(FindingsError) as refused:
        planning.read_plan(
            {"billed": "", "collection_rate": "ninety", "line_admin": "1.234"},
            line_keys=["admin"],
        )
    assert {f.field for f in refused.value.findings} == {"billed", "collection_rate", "line_admin"}
    plan = planning.read_plan(
        {"billed": "$1,500.00", "collection_rate": "90 %", "line_admin": "60"}, line_keys=["admin"]
    )
    assert (plan.collection_rate, plan.expected_collections) == (
        Decimal("0.9000"),
        Decimal("1350.00"),
    )
