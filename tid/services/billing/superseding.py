"""A corrected run supersedes the year's active run: the old run and its bills are marked
superseded, each old bill pointing to the bill that replaced it; nothing is deleted."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, cast

from sqlalchemy import func, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import aliased
from sqlmodel import Session

from tid.models import Bill, BillingRun, BillingRunStatus, BillStatus, Ordinance
from tid.services.audit_trail import audit


def _supersede_run(
    session: Session, actor: audit.Actor, current: BillingRun, now: datetime
) -> None:
    """Mark the year's active run superseded (its bills follow once the new ones exist)."""
    before = audit.snapshot(current)
    current.status = BillingRunStatus.SUPERSEDED.value
    current.superseded_at = now
    session.add(current)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="billing_run.supersede",
        entity=current,
        before=before,
        after=audit.snapshot(current),
    )


def _supersede_bills(session: Session, old_run_id: int, new_run_id: int) -> tuple[int, int]:
    """Mark the old run's bills superseded, each pointing to the new bill of its property
    (none when the property left the roll); return (bills superseded, of which mailed)."""
    bill = Bill.__table__  # type: ignore[attr-defined]
    newer = aliased(bill)
    mailed = int(
        session.execute(
            select(func.count()).where(
                bill.c.billing_run_id == old_run_id, bill.c.mailed_at.is_not(None)
            )
        ).scalar_one()
    )
    replacement = (
        select(newer.c.id)
        .where(newer.c.billing_run_id == new_run_id, newer.c.property_id == bill.c.property_id)
        .scalar_subquery()
    )
    changed = session.execute(
        update(bill)
        .where(bill.c.billing_run_id == old_run_id)
        .values(status=BillStatus.SUPERSEDED.value, superseded_by_id=replacement),
        execution_options={"synchronize_session": False},
    )
    return int(cast(CursorResult[Any], changed).rowcount or 0), mailed


def active_runs_of(*, session: Session, ordinance_id: int) -> list[BillingRun]:
    """The active runs (one per fiscal year) made by the ordinance, the latest year first."""
    return list(
        session.scalars(
            select(BillingRun)
            .where(
                BillingRun.ordinance_id == ordinance_id,  # type: ignore[arg-type]
                BillingRun.status == BillingRunStatus.ACTIVE.value,  # type: ignore[arg-type]
            )
            .order_by(BillingRun.fiscal_year.desc())  # type: ignore[attr-defined]
        )
    )


def applies_other_terms(run: BillingRun, ordinance: Ordinance) -> bool:
    """Whether ``run`` applied other terms than the ordinance now has: another formula,
    another value of one of the ordinance's parameters, or another expected amount. A
    superseding run (the same year billed again) applies the corrected ones."""
    if run.formula != ordinance.formula or run.expected_amount != ordinance.expected_amount:
        return True
    used = json.loads(run.parameters or "{}")
    own = json.loads(ordinance.parameters or "{}")
    return any(used.get(name) != value for name, value in own.items())
