"""An opening position found wrong, reversed as one: every opening entry it booked reversed
in the journal (a reversing entry dated the cut-over day, every line negated: the record
keeps both), its bills and billing runs marked superseded, the liens it brought cancelled,
the earlier years' totals it brought withdrawn, and the position itself kept with when, by
whom and why it was reversed. A corrected position may then be booked, even after business
was booked since (tid/services/aboard/file_checks.py says on which day it may start).

It is refused, saying what stands in the way, while anything depends on the position that
this reversal cannot undo: a payment or another entry booked on one of its bills (reverse
it first), a notice issued for one of them (a document of record: it is never withdrawn),
its bills replaced by a later billing run, or its cut-over day in a closed fiscal year."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from sqlalchemy import delete, update
from sqlmodel import Session, col, func, select
from sqlmodel.sql.expression import SelectOfScalar

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    JournalEntry,
    JournalLine,
    Notice,
    OpeningPosition,
    OpeningYear,
    PropertyLien,
)
from tid.rules.errors import N_, InputError
from tid.rules.messages import Message, joined
from tid.rules.periods import fiscal_year_of
from tid.rules.vocab.journal_terms import ENTRY_KINDS, reversible_kinds
from tid.services import ledger
from tid.services.account import year_locks
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district

NO_POSITION = N_("This district has no opening position to reverse.")
ALREADY_REVERSED = N_("This opening position has already been reversed.")
GIVE_REASON = N_("Give the reason for the reversal.")
BLOCKED = N_("The opening position cannot be reversed as one: %(what)s")
ENTRY_TO_REVERSE = N_(
    "entry %(number)s of %(day)s (%(kind)s) was booked on its bill %(bill)s: reverse it first"
)
ENTRY_FOR_GOOD = N_(
    "entry %(number)s of %(day)s (%(kind)s) was booked on its bill %(bill)s and cannot be reversed"
)
MORE_ENTRIES = N_("and %(count)s more entries on its bills")
NOTICES_ISSUED = N_(
    "%(count)s notice(s) were issued for its bills (%(numbers)s): a notice of record is "
    "never withdrawn"
)
YEAR_CLOSED = N_(
    "the fiscal year %(fiscal_year)s of its cut-over day is closed: an administrator reopens "
    "it first"
)
SHOWN = 5  # entries or notices named one by one in a refusal
LIEN_CANCELLED = "Opening position of %(day)s reversed: %(reason)s"


@dataclass(frozen=True)
class Reversed:
    """What a reversal did."""

    position: OpeningPosition
    entries: int
    bills: int
    liens: int


def live_position(*, session: Session, district_id: int) -> OpeningPosition | None:
    """The district's opening position not reversed (at most one)."""
    return session.exec(
        select(OpeningPosition).where(
            OpeningPosition.district_id == district_id,
            col(OpeningPosition.reversed_at).is_(None),
        )
    ).first()


def _runs(position: OpeningPosition) -> SelectOfScalar[int | None]:
    """The billing runs the position booked (a select of their ids)."""
    return select(col(BillingRun.id)).where(
        BillingRun.district_id == position.district_id,
        BillingRun.formula == "",
        BillingRun.fingerprint == position.fingerprint,
        BillingRun.status == BillingRunStatus.ACTIVE.value,
    )


def _bills(position: OpeningPosition) -> SelectOfScalar[int | None]:
    return select(col(Bill.id)).where(col(Bill.billing_run_id).in_(_runs(position)))


def _openings(district_id: int) -> SelectOfScalar[int | None]:
    """The district's opening entries not yet reversed (a select of their ids)."""
    reversed_ = select(col(JournalEntry.reverses_id)).where(
        JournalEntry.district_id == district_id, col(JournalEntry.reverses_id).is_not(None)
    )
    return select(col(JournalEntry.id)).where(
        JournalEntry.district_id == district_id,
        JournalEntry.kind == "opening",
        col(JournalEntry.id).not_in(reversed_),
    )


def _entry_blockers(session: Session, position: OpeningPosition) -> list[str]:
    """The entries booked on the position's bills other than its own opening entries (an
    entry reversed and its reversal cancel out: neither stands in the way)."""
    d = position.district_id
    rows = session.exec(
        select(JournalEntry, func.min(JournalLine.bill_id))
        .join(JournalLine, col(JournalLine.entry_id) == col(JournalEntry.id))
        .where(
            col(JournalLine.bill_id).in_(_bills(position)),
            JournalEntry.kind != "opening",
            col(JournalEntry.reverses_id).is_(None),
            col(JournalEntry.id).not_in(
                select(col(JournalEntry.reverses_id)).where(
                    JournalEntry.district_id == d, col(JournalEntry.reverses_id).is_not(None)
                )
            ),
        )
        .group_by(col(JournalEntry.id))
        .order_by(col(JournalEntry.id))
    ).all()
    found: list[str] = []
    for entry, bill_id in rows[:SHOWN]:
        words = {
            "number": entry.number,
            "kind": _kind(entry.kind),
            "day": entry.entry_date.isoformat(),
            "bill": bill_id,
        }
        undoable = entry.kind in reversible_kinds() and entry.reverses_id is None
        found.append(Message(ENTRY_TO_REVERSE if undoable else ENTRY_FOR_GOOD, **words))
    if len(rows) > SHOWN:
        found.append(Message(MORE_ENTRIES, count=len(rows) - SHOWN))
    return found


def _kind(code: str) -> str:
    """The entry kind's label, said in the reader's language."""
    term = ENTRY_KINDS.get(code)
    return Message(term.label) if term is not None else code


def blockers(*, session: Session, position: OpeningPosition) -> list[str]:
    """What must be undone before the position can be reversed (or what never can be), each
    a message naming it; empty when it may be reversed."""
    found = _entry_blockers(session, position)
    numbers = list(
        session.exec(
            select(Notice.number)
            .where(col(Notice.bill_id).in_(_bills(position)))
            .order_by(col(Notice.number))
        )
    )
    if numbers:
        shown = ", ".join(numbers[:SHOWN]) + (", …" if len(numbers) > SHOWN else "")
        found.append(Message(NOTICES_ISSUED, count=len(numbers), numbers=shown))
    fy = fiscal_year_of(position.cut_over)
    if year_locks.lock_of(session=session, district_id=position.district_id, fy=fy):
        found.append(Message(YEAR_CLOSED, fiscal_year=fy.label))
    return found


def _reversals(session: Session, district_id: int, on: date, reason: str) -> list[ledger.Pending]:
    """A reversing entry for every opening entry not yet reversed, dated ``on``."""
    entries = session.exec(
        select(JournalEntry)
        .where(col(JournalEntry.id).in_(_openings(district_id)))
        .order_by(col(JournalEntry.id))
    ).all()
    lines: dict[int, list[ledger.Line]] = {}
    for line in session.exec(
        select(JournalLine)
        .where(col(JournalLine.entry_id).in_(_openings(district_id)))
        .order_by(col(JournalLine.id))
    ):
        lines.setdefault(line.entry_id, []).append(
            ledger.Line(line.account, -line.amount, line.bill_id)
        )
    return [
        ledger.Pending(
            on,
            "reversal",
            ledger.memo("reversal", entry=entry.id, reason=reason),
            f"reverse:{entry.id}",
            tuple(lines[entry.id or 0]),
            reverses_id=entry.id,
        )
        for entry in entries
    ]


# Long: one transaction's steps in their order (refusals, journal, bills, liens, record).
def reverse_position(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    position_id: int,
    reason: str,
    today: date,
) -> Reversed:
    """Reverse the district's opening position ``position_id`` as one, under the district's
    lock (two requests at once: the second finds it reversed). ``InputError`` naming what
    stands in the way. The caller commits."""
    reason = " ".join(reason.split())[:500]
    if not reason:
        raise InputError("reason", GIVE_REASON)
    lock_district(session=session, district_id=district_id)
    position = session.get(OpeningPosition, position_id)
    if position is not None:
        session.refresh(position)  # as it stands now that the lock is held
    if position is None or position.district_id != district_id:
        raise InputError("position", NO_POSITION)
    if position.reversed_at is not None:
        raise InputError("position", ALREADY_REVERSED)
    found = blockers(session=session, position=position)
    if found:
        raise InputError("position", Message(BLOCKED, what=joined(found)))
    pending = _reversals(session, district_id, position.cut_over, reason)
    ledger.post_many(session=session, actor=actor, district_id=district_id, entries=pending)
    now = utcnow()
    bills = session.exec(
        select(func.count()).select_from(Bill).where(col(Bill.id).in_(_bills(position)))
    ).one()
    run_ids = list(session.exec(_runs(position)))
    session.execute(
        update(Bill)
        .where(col(Bill.billing_run_id).in_(run_ids))
        .values(status=BillStatus.SUPERSEDED.value)
    )
    session.execute(
        update(BillingRun)
        .where(col(BillingRun.id).in_(run_ids))
        .values(status=BillingRunStatus.SUPERSEDED.value, superseded_at=now)
    )
    words = {"day": position.cut_over.isoformat(), "reason": reason}
    brought = list(
        session.exec(
            select(PropertyLien).where(
                PropertyLien.opening_position_id == position.id,
                PropertyLien.status == "recorded",
            )
        )
    )
    for lien in brought:
        lien.status = "cancelled"
        lien.cancelled_on = today
        lien.cancel_reason = (LIEN_CANCELLED % words)[:500]
        session.add(lien)
    liens = len(brought)
    years = session.exec(select(OpeningYear).where(OpeningYear.district_id == district_id)).all()
    withdrawn = [
        {
            "fiscal_year": y.fiscal_year,
            "billed": str(y.billed),
            "collected": str(y.collected),
            "admin_spending": str(y.admin_spending),
        }
        for y in years
    ]
    session.execute(delete(OpeningYear).where(col(OpeningYear.district_id) == district_id))
    position.reversed_at = now
    position.reversed_by = actor.label
    position.reversal_reason = reason
    session.add(position)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="opening.reverse",
        entity=position,
        before={"totals": json.loads(position.totals), "years": withdrawn},
        after={
            "reason": reason,
            "entries_reversed": len(pending),
            "bills_superseded": int(bills),
            "liens_cancelled": liens,
        },
    )
    return Reversed(position, entries=len(pending), bills=int(bills), liens=liens)
