"""The bills whose certified-mail notices went out (§ 6653(5))."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import update
from sqlalchemy.engine import CursorResult
from sqlmodel import Session

from tid.models import Bill
from tid.services.audit_trail import audit


def mark_mailed(*, session: Session, actor: audit.Actor, bill_ids: list[int], at: datetime) -> int:
    """Record that the certified-mail notices of these bills went out (§ 6653(5)); a bill
    already marked keeps its first date. Returns how many were marked now."""
    if not bill_ids:
        return 0
    bill = Bill.__table__  # type: ignore[attr-defined]
    changed = session.execute(
        update(bill)
        .where(bill.c.id.in_(bill_ids), bill.c.mailed_at.is_(None))
        .values(mailed_at=at),
        execution_options={"synchronize_session": False},
    )
    count = int(cast(CursorResult[Any], changed).rowcount or 0)
    audit.record(
        session=session,
        actor=actor,
        action="bill.mailed",
        # The entity id column holds 60 characters: the range of the bills; their ids after.
        entity=("bill", f"{min(bill_ids)}-{max(bill_ids)}"),
        after={
            "bills": len(bill_ids),
            "marked": count,
            "at": at.isoformat(),
            "bill_ids": sorted(bill_ids),
        },
    )
    return count
