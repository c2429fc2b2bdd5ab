"""Locked fiscal years of a district's special account.

Once the auditor's statement of a closed fiscal year is issued, an administrator locks the
year: from then on nothing can be booked on a date inside it (a late payment, a backdated
expenditure, a reversal dated in it), so the issued statement stays true. A correction is
booked in the open year, with a reference to what it corrects (a reversal names the entry it
reverses). The lock is checked where every entry is booked (:func:`ledger.post_entry`).
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import Table, bindparam, literal
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from tid.models import FiscalYearLock
from tid.rules.errors import N_, InputError
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district

LOCKED = N_(
    "This date falls in a fiscal year that an administrator has locked after its statement "
    "was issued. Book the correction in the open fiscal year, with a reference to the entry "
    "it corrects."
)


def lock_of(*, session: Session, district_id: int, fy: FiscalYear) -> FiscalYearLock | None:
    stmt = select(FiscalYearLock).where(
        FiscalYearLock.district_id == district_id, FiscalYearLock.fiscal_year == fy.label
    )
    return session.exec(stmt).first()


_LOCKS: Table = FiscalYearLock.__table__  # type: ignore[attr-defined]
# Asked on every booking: built once (its cache key is kept with it), one indexed row or none.
_IS_LOCKED = (
    sa_select(literal(1))
    .where(
        _LOCKS.c.district_id == bindparam("district_id"),
        _LOCKS.c.fiscal_year == bindparam("fiscal_year"),
    )
    .limit(1)
)


def ensure_open(
    *, session: Session, district_id: int, entry_date: date, field: str = "date"
) -> None:
    """Refuse a booking dated in a locked fiscal year."""
    params = {"district_id": district_id, "fiscal_year": fiscal_year_of(entry_date).label}
    if session.execute(_IS_LOCKED, params).first() is not None:
        raise InputError(field, LOCKED)


def lock_year(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    fy: FiscalYear,
    today: date,
    note: str = "",
) -> FiscalYearLock:
    """Lock a closed fiscal year (one that has ended); locking it again changes nothing."""
    if fy.end >= today:
        raise InputError("fy", N_("Only a fiscal year that has ended can be locked."))
    lock_district(session=session, district_id=district_id)
    existing = lock_of(session=session, district_id=district_id, fy=fy)
    if existing is not None:
        return existing
    lock = FiscalYearLock(
        district_id=district_id, fiscal_year=fy.label, note=note.strip()[:300], actor=actor.label
    )
    session.add(lock)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="account.year_locked",
        entity=lock,
        after=audit.snapshot(lock),
    )
    return lock


def unlock_year(*, session: Session, actor: audit.Actor, district_id: int, fy: FiscalYear) -> bool:
    """Lift a lock (recorded in the audit trail); False when the year was not locked."""
    lock_district(session=session, district_id=district_id)
    lock = lock_of(session=session, district_id=district_id, fy=fy)
    if lock is None:
        return False
    audit.record(
        session=session,
        actor=actor,
        action="account.year_unlocked",
        entity=lock,
        before=audit.snapshot(lock),
    )
    session.delete(lock)
    session.flush()
    return True
