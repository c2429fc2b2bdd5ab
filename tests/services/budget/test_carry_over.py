"""The year through: a budget drafted, approved and amended, a year booked against it month
by month (an expenditure over its line warned, the cap refusing as always), the year closed,
its result carried over into the next year's budget by the statement's own figures, and its
yearly report issued (PDF/A), archived and published."""

from __future__ import annotations

import hashlib
import json
from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner
from sqlmodel import Session

from tests.pdf_checks import assert_archival, pdf_text
from tests.services.budget.support import BEFORE, FY, District
from tests.services.ledger_support import ACTOR, pay_bill
from tid import documents
from tid.app_reader import reader
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear
from tid.services.account import expenditures, year_locks
from tid.services.archive.store import archived_bytes
from tid.services.budget import actuals, carry_over, planning
from tid.services.ledger import CapExceededError
from tid.services.public import published_records

AFTER = date(2026, 7, 10)  # the year has ended


def _approved(session: Session, d: District) -> None:
    planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, plan=d.plan(), today=BEFORE
    )
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        approved_on=BEFORE,
        minutes="Minutes of June 15, 2025",
        today=BEFORE,
    )
    planning.amend_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        plan=d.plan(cleaning="850.00"),
        reason="The beach festival",
        today=date(2025, 8, 1),
    )


def _spend(session: Session, d: District, on: date, amount: str, key: str, **what: object) -> None:
    expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        spent_on=on,
        amount=Decimal(amount),
        payee="Vendor",
        today=AFTER,
        key=key,
        **what,  # type: ignore[arg-type]
    )


# Long: the whole year, step by step, each step's figures checked where it happens.
def test_a_year_booked_against_its_budget_closed_carried_over_and_reported(
    app: Flask, session: Session
) -> None:
    d = District(session)
    _approved(session, d)
    bills = [d.s.bill(d.s.property(), "1000.00"), d.s.bill(d.s.property(), "500.00")]
    pay_bill(session, d.s, "1000.00", date(2025, 8, 1), "p1", bills[0].id)
    pay_bill(session, d.s, "120.00", date(2025, 8, 2), "p2", bills[1].id)
    _spend(session, d, date(2025, 9, 3), "300.00", "e1", purpose_id=d.cleaning)
    warn = dict(session=session, district_id=d.id, spent_on=date(2025, 10, 5))
    # 850.00 budgeted, 300.00 spent: 550.00 fits, 600.00 does not.
    assert (
        actuals.line_warning(
            amount=Decimal("550.00"), administrative=False, purpose_id=d.cleaning, **warn
        )
        is None
    )  # type: ignore[arg-type]
    warning = actuals.line_warning(
        amount=Decimal("600.00"), administrative=False, purpose_id=d.cleaning, **warn
    )  # type: ignore[arg-type]
    assert str(warning) == (
        "This expenditure takes the line “Street cleaning” of the FY 2025-26 budget over: "
        "$850.00 budgeted, $300.00 spent and $0.00 committed before it."
    )
    _spend(session, d, date(2025, 10, 5), "600.00", "e2", purpose_id=d.cleaning)
    _spend(session, d, date(2025, 10, 6), "50.00", "e3", administrative=True)
    # The cap refuses as always: 5% of 1,120.00 collected is 56.00, 50.00 already spent.
    with pytest.raises(CapExceededError):
        _spend(session, d, date(2025, 10, 7), "6.01", "e4", administrative=True)
    budget = planning.budget_of(session=session, district_id=d.id, fy=FY)
    assert budget is not None
    actuals.record_commitment(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FY,
        key=str(d.security),
        committed_on=date(2025, 11, 1),
        payee="Guards Inc.",
        amount=Decimal("100.00"),
        today=AFTER,
    )
    seen = actuals.actuals(session=session, budget=budget, as_of=date(2026, 6, 30))
    rows = {line.key: line for line in seen.lines}
    cleaning = rows[str(d.cleaning)]
    assert cleaning.months[2:4] == (Decimal("300.00"), Decimal("600.00"))  # September, October
    assert (cleaning.budget, cleaning.spent, cleaning.left, cleaning.over) == (
        Decimal("850.00"),
        Decimal("900.00"),
        Decimal("-50.00"),
        True,
    )
    security = rows[str(d.security)]
    assert (security.spent, security.committed, security.left) == (
        Decimal("0.00"),
        Decimal("100.00"),
        Decimal("300.00"),
    )
    # Now: 56.00 allowed, 50.00 spent; at the year's end: 5% of 1,350.00 expected = 67.50,
    # less the 60.00 line.
    assert (seen.cap_now.headroom, seen.cap_projected, seen.headroom_projected) == (
        Decimal("6.00"),
        Decimal("67.50"),
        Decimal("7.50"),
    )
    # Earlier in the year, only what was spent by then.
    early = actuals.actuals(session=session, budget=budget, as_of=date(2025, 9, 30))
    assert {line.key: line.spent for line in early.lines}[str(d.cleaning)] == Decimal("300.00")
    # The year closes: nothing carries over before it is locked.
    with pytest.raises(InputError) as open_year:
        carry_over.carry_over(session=session, actor=ACTOR, district_id=d.id, fy=FY, today=AFTER)
    assert open_year.value.field == "fy"
    year_locks.lock_year(session=session, actor=ACTOR, district_id=d.id, fy=FY, today=AFTER)
    with pytest.raises(InputError) as closed:  # a closed year's budget no longer changes
        planning.amend_budget(
            session=session,
            actor=ACTOR,
            district_id=d.id,
            fy=FY,
            plan=d.plan(cleaning="900.00"),
            reason="After the fact",
            today=AFTER,
        )
    assert closed.value.field == "fy"
    # 1,120.00 collected − 900.00 − 50.00 spent = 170.00, from an opening of zero.
    found = carry_over.carry_over_of(session=session, district_id=d.id, fy=FY)
    assert (found.opening, found.closing, found.result) == (
        Decimal("0.00"),
        Decimal("170.00"),
        Decimal("170.00"),
    )
    following = carry_over.carry_over(
        session=session, actor=ACTOR, district_id=d.id, fy=FY, today=AFTER
    )
    session.commit()
    # The next year's draft: last year's billing at last year's own rate, 1,120 / 1,500.
    assert (following.fiscal_year, following.status, following.carry_over) == (
        "2026-27",
        "draft",
        Decimal("170.00"),
    )
    assert (following.billed, following.collection_rate, following.expected_collections) == (
        Decimal("1500.00"),
        "0.7467",
        Decimal("1120.05"),
    )
    # The next year approved, the closed year's report is issued, archived and published.
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FiscalYear(2026),
        approved_on=AFTER,
        minutes="Minutes of July 10, 2026",
        today=AFTER,
    )
    with app.app_context():
        made = documents.make(
            session, "budget-report.pdf", reader=reader("en"), district=d.id, year=FY
        )
    assert_archival(made.data, lang="en", tagged=True)
    text = " ".join(pdf_text(made.data).split())
    for said in (
        "Yearly report of the district, FY 2025-26",
        "Street cleaning $850.00 $900.00 -$50.00",
        "Administration spent $50.00 of the $56.00 the cap allowed",
        "a result of $170.00",
        "Minutes of July 10, 2026",
        "0.01 * assessed_value",
        "approved by the board Minutes of June 15, 2025",
    ):
        assert said in text, said
    published_records.publish(
        session=session,
        actor=ACTOR,
        district=d.s.district,
        fy=FY,
        kind="budget-report.pdf",
        title="Yearly report of the district, FY 2025-26",
        language="en",
        content=made.data,
        media_type=made.media_type,
    )
    session.commit()
    rows = published_records.public_rows(session=session, district_id=d.id)
    assert [(r["kind"], r["sha256"]) for r in rows] == [
        ("budget-report.pdf", hashlib.sha256(made.data).hexdigest())
    ]
    assert archived_bytes(session=session, sha256=rows[0]["sha256"]) == made.data


def test_the_carry_over_amends_an_approved_budget_of_the_next_year(
    session: Session, runner: FlaskCliRunner
) -> None:
    d = District(session)
    bill = d.s.bill(d.s.property(), "1000.00")
    pay_bill(session, d.s, "1000.00", date(2025, 8, 1), "p1", bill.id)
    nxt = FiscalYear(2026)
    plan = d.plan()
    planning.draft_budget(
        session=session, actor=ACTOR, district_id=d.id, fy=nxt, plan=plan, today=BEFORE
    )
    planning.approve_budget(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=nxt,
        approved_on=date(2026, 6, 1),
        minutes="Minutes",
        today=date(2026, 6, 1),
    )
    year_locks.lock_year(session=session, actor=ACTOR, district_id=d.id, fy=FY, today=AFTER)
    session.commit()
    carried = runner.invoke(
        args=["budget", "carry-over", "--district", str(d.id), "--fiscal-year", "2025-26"]
    )
    assert carried.exit_code == 0, carried.output
    assert json.loads(carried.output) == {
        "fiscal_year": "2026-27",
        "status": "approved",
        "carry_over": "1000.00",
    }
    shown = runner.invoke(
        args=["budget", "show", "--district", str(d.id), "--fiscal-year", "2026-27"]
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["lines"][0] == {
        "line": str(d.security),
        "name": "Security",
        "budget": "400.00",
        "spent": "0.00",
        "committed": "0.00",
        "left": "400.00",
    }
    missing = runner.invoke(
        args=["budget", "show", "--district", str(d.id), "--fiscal-year", "2030-31"]
    )
    assert missing.exit_code != 0 and "fiscal_year" in missing.output
    session.expire_all()
    budget = planning.budget_of(session=session, district_id=d.id, fy=nxt)
    assert budget is not None
    assert (budget.status, budget.amendments, budget.carry_over) == (
        "approved",
        1,
        Decimal("1000.00"),
    )
    last = planning.history(session=session, budget_id=budget.id or 0)[-1]
    assert (last.kind, last.reason) == (
        "carried",
        "The carry-over of FY 2025-26 by its yearly statement.",
    )
