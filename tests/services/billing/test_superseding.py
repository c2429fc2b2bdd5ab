"""A corrected formula or roll supersedes the year's active run, with an audit trail."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlmodel import Session, col, select

from tests.conftest import People
from tests.services.billing.helpers import ACTOR, ROLL, amounts, count, import_roll, run
from tid.models import AuditEvent, Bill, BillingRun, Ordinance
from tid.services import billing


def test_a_corrected_formula_supersedes_with_an_audit_trail(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    old_bills = {b.property_id: b for b in session.exec(select(Bill))}
    mailed_id = next(iter(old_bills.values())).id or 0
    billing.mark_mailed(
        session=session, actor=ACTOR, bill_ids=[mailed_id], at=datetime(2026, 7, 3, tzinfo=UTC)
    )
    session.commit()
    ordinance = session.get(Ordinance, billed.run.ordinance_id)
    assert ordinance is not None
    ordinance.formula = "max(80.00, 0.0125 * assessed_value)"
    session.add(ordinance)
    session.commit()

    second = run(session, people, run_on=date(2026, 7, 5), reason="Ordinance amended")
    assert second.unchanged is False
    assert second.run.version == 2 and second.run.supersedes_id == billed.run.id
    assert second.superseded is not None and second.superseded.id == billed.run.id
    assert (second.superseded_bills, second.mailed_superseded) == (3, 1)
    # 393.75, max(80, 5,000.00) = 5,000.00, max(80, 50.00) = 80.00
    assert amounts(session, second.run.id or 0) == {
        "040-010-001-01": Decimal("393.75"),
        "040-010-001-02": Decimal("5000.00"),
        "040-010-001-03": Decimal("80.00"),
    }
    old = session.get(BillingRun, billed.run.id)
    assert old is not None and old.status == "superseded" and old.superseded_at is not None
    # The old bills stay, unchanged in amount, each pointing to its replacement.
    session.expire_all()
    for bill in session.exec(select(Bill).where(Bill.billing_run_id == billed.run.id)):
        assert bill.status == "superseded"
        assert bill.amount == old_bills[bill.property_id].amount
        replacement = session.get(Bill, bill.superseded_by_id)
        assert replacement is not None
        assert replacement.billing_run_id == second.run.id
        assert replacement.property_id == bill.property_id
    assert count(session, Bill) == 6
    # The due date of the active run is kept when none is given.
    assert second.run.due_date == billed.run.due_date
    needing = billing.corrected_notices_needed(session=session, run=second.run)
    assert [line.bill.id for line in needing] == [mailed_id]
    assert needing[0].replacement is not None
    actions = [
        e.action
        for e in session.exec(
            select(AuditEvent)
            .where(col(AuditEvent.action).startswith("billing_run"))
            .order_by(col(AuditEvent.id))
        )
    ]
    assert actions == ["billing_run.run", "billing_run.supersede", "billing_run.run"]
    supersede = session.exec(
        select(AuditEvent).where(AuditEvent.action == "billing_run.supersede")
    ).one()
    assert json.loads(supersede.before or "{}")["status"] == "active"
    assert json.loads(supersede.after or "{}")["status"] == "superseded"


def test_a_corrected_roll_supersedes(
    session: Session, people: People, billed: billing.BillingResult
) -> None:
    import_roll(session, people, ROLL.replace("31500.00", "32000.00"))
    second = run(session, people)
    assert second.run.version == 2
    # 0.0125 × 32,000.00 = 400.00
    assert amounts(session, second.run.id or 0)["040-010-001-01"] == Decimal("400.00")
    assert second.total == Decimal("5775.00")  # 400.00 + 5,300.00 + 75.00
