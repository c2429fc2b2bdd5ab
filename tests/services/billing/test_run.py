"""The billing run: every property by the ordinance's formula, idempotent, totals against
the expected amount (21 LPRA § 6653(3)); and the command that runs it."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

from flask.testing import FlaskCliRunner
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.billing.helpers import (
    EXPECTED_AMOUNTS,
    FORMULA,
    FY,
    RUN_ON,
    amounts,
    count,
    import_roll,
    make_ordinance,
    run,
)
from tid.models import AuditEvent, Bill, BillingRun
from tid.services import billing


def test_every_property_is_billed_by_the_formula(
    session: Session, billed: billing.BillingResult
) -> None:
    assert billed.unchanged is False
    assert amounts(session, billed.run.id or 0) == EXPECTED_AMOUNTS
    assert billed.total == Decimal("5768.75")
    assert billed.run.total == Decimal("5768.75")
    # § 6653(3)(b): against the ordinance's expected amount 6,000.00: 5,768.75 − 6,000.00
    assert billed.expected_amount == Decimal("6000.00")
    assert billed.difference == Decimal("-231.25")
    assert billed.run.version == 1 and billed.run.status == "active"
    assert billed.run.formula == FORMULA
    hotel = session.exec(select(Bill).where(Bill.amount == Decimal("5300.00"))).one()
    assert "15.00 × 20 rooms" in hotel.explanation.replace("$", "")
    assert hotel.fiscal_year == FY and hotel.status == "active"
    assert session.exec(select(AuditEvent).where(AuditEvent.action == "billing_run.run")).one()


def test_rerunning_changes_nothing_and_says_so(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    bills = count(session, Bill)
    events = count(session, AuditEvent)
    again = run(session, people, run_on=RUN_ON + timedelta(days=3))
    assert again.unchanged is True
    assert again.run.id == billed.run.id
    assert count(session, Bill) == bills
    assert count(session, BillingRun) == 1
    assert count(session, AuditEvent) == events


def test_an_apportionment_adds_up_to_the_expected_amount(session: Session, people: People) -> None:
    make_ordinance(
        session,
        people,
        formula="expected_amount * assessed_value / sum(assessed_value)",
        expected="10000.00",
    )
    import_roll(session, people)
    result = run(session, people)
    assert result.total == Decimal("10000.00")
    assert result.difference == Decimal("0.00")
    assert json.loads(result.run.parameters) == {"expected_amount": "10000.00"}
    assert sum(amounts(session, result.run.id or 0).values()) == Decimal("10000.00")


def test_the_command_line_run(runner: FlaskCliRunner, session: Session, people: People) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    args = ["billing", "run", "--district", people.district.name, "--fiscal-year", FY]
    first = runner.invoke(args=[*args, "--run-date", "2026-07-01"])
    assert first.exit_code == 0, first.output
    document = json.loads(first.output)
    assert document["total"] == "5768.75" and document["difference"] == "-231.25"
    assert document["due_date"] == "2026-08-30" and document["unchanged"] is False
    again = runner.invoke(args=[*args, "--run-date", "2026-07-02"])
    assert json.loads(again.output)["unchanged"] is True
    early = runner.invoke(args=[*args, "--run-date", "2026-07-01", "--due-date", "2026-07-05"])
    assert early.exit_code == 2
    assert json.loads(early.stderr)["field"] == "due_date"
