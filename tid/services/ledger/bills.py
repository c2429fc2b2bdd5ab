"""The bills in the journal: each active bill booked once, and what was paid on a
superseded bill moved to the bill that replaced it."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, func, select

from tid.models import (
    Bill,
    BillingRun,
    BillStatus,
    LedgerState,
)
from tid.rules.money import ZERO
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.ledger.accounts import (
    ASSESSED,
    OWNER_CREDIT,
    RECEIVABLE,
    REVENUE,
    Line,
    memo,
)
from tid.services.ledger.balances import bill_balances, keys_booked
from tid.services.ledger.posting import Pending, post_many

# The bills made since the last sync (``ledger_state.bills_through``): asked before every
# payment, so built once (its cache key is kept with it); usually one indexed look at nothing.
_NEW_BILLS = (
    sa_select(
        col(Bill.id),
        col(Bill.amount),
        col(Bill.status),
        col(Bill.superseded_by_id),
        col(Bill.fiscal_year),
        col(BillingRun.run_on),
    )
    .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
    .where(
        col(Bill.district_id) == bindparam("district_id"),
        col(Bill.id)
        > func.coalesce(
            select(LedgerState.bills_through)
            .where(LedgerState.district_id == bindparam("district_id"))
            .scalar_subquery(),
            0,
        ),
    )
    .order_by(col(Bill.id))
)


def sync_bills(*, session: Session, actor: audit.Actor, district_id: int) -> int:
    """Book every active bill of the district not yet in the journal, and move what was paid
    on a superseded bill to the bill that replaced it. Only the bills made since the last
    time are looked at (``ledger_state``). Returns how many entries were made."""
    lock_district(session=session, district_id=district_id)
    new = session.execute(_NEW_BILLS, {"district_id": district_id}).all()
    if not new:  # the usual case: one indexed look that finds nothing
        return 0
    state = session.get(LedgerState, district_id)
    through = state.bills_through if state is not None else 0
    # The bills superseded by one of these: what was paid on them moves to the new bill.
    old = session.exec(
        select(col(Bill.id), col(Bill.amount), col(Bill.superseded_by_id), col(BillingRun.run_on))
        .join(BillingRun, col(BillingRun.id) == col(Bill.billing_run_id))
        .where(
            Bill.district_id == district_id,
            Bill.status != BillStatus.ACTIVE.value,
            col(Bill.superseded_by_id) > through,
        )
        .order_by(col(Bill.id))
    ).all()
    keys = [f"bill:{row[0]}" for row in new]
    keys += [k for row in old for k in (f"bill:{row[0]}", f"supersede:{row[0]}")]
    booked = set(keys_booked(session=session, keys=keys))
    bills: list[Pending] = []
    for bill_id, amount, status, superseded_by, fiscal_year, run_on in new:
        if f"bill:{bill_id}" in booked or amount <= 0:
            continue
        if status != BillStatus.ACTIVE.value and superseded_by is not None:
            continue  # superseded before it was ever booked: only its successor is owed
        bills.append(
            Pending(
                run_on,
                "bill",
                memo("bill", fiscal_year=fiscal_year, bill=bill_id),
                f"bill:{bill_id}",
                (Line(RECEIVABLE, amount, bill_id), Line(ASSESSED, -amount, bill_id)),
            )
        )
        booked.add(f"bill:{bill_id}")
    post_many(session=session, actor=actor, district_id=district_id, entries=bills)
    moving = [
        row for row in old if f"bill:{row[0]}" in booked and f"supersede:{row[0]}" not in booked
    ]
    outstanding = bill_balances(
        session=session, district_id=district_id, bill_ids=[row[0] or 0 for row in moving]
    )
    successors = {row[0]: (row[1], row[5]) for row in new}
    moves: list[Pending] = []
    for old_id, old_amount, new_id, old_run_on in moving:
        if new_id not in successors or old_id is None:
            continue
        new_amount, new_run_on = successors[new_id]
        owed = outstanding.get(old_id, ZERO)
        paid = old_amount - owed
        moved = min(paid, new_amount) if paid > 0 else ZERO
        excess = paid - moved if paid > 0 else ZERO
        lines = []
        if owed:
            lines += [Line(RECEIVABLE, -owed, old_id), Line(ASSESSED, owed, old_id)]
        if moved:
            lines += [Line(RECEIVABLE, -moved, new_id), Line(ASSESSED, moved, new_id)]
        if excess:
            lines += [Line(REVENUE, excess, old_id), Line(OWNER_CREDIT, -excess, new_id)]
        if lines:
            moves.append(
                Pending(
                    max(old_run_on, new_run_on),
                    "bill_superseded",
                    memo("bill_superseded", old=old_id, new=new_id),
                    f"supersede:{old_id}",
                    tuple(lines),
                )
            )
    post_many(session=session, actor=actor, district_id=district_id, entries=moves)
    state = state if state is not None else LedgerState(district_id=district_id)
    state.bills_through = max(int(row[0] or 0) for row in new)
    session.add(state)
    session.flush()
    return len(bills) + len(moves)
