"""The owners' portal of the certified-mail notices (21 LPRA § 6653(5)): public, no account.

An owner proves they hold the paper notice with its number and the access code printed on
it. A look-up that fails — a wrong code or a number that does not exist — gets one and the
same answer, and costs the same time (the code's HMAC is computed and compared in constant
time either way). Failures are counted in the database per client address and per notice
number, so the limit holds across several workers: ``MAX_FAILURES`` within ``WINDOW`` and
further look-ups are refused until the window passes.

What one successful look-up opens: the mailed notices of the same property addressed to the
same owner (a later owner of the property does not see an earlier owner's notices).
"""

from __future__ import annotations

import hmac
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from tid.clock import utcnow
from tid.models import Bill, BillStatus, JournalEntry, JournalLine, Notice, PortalAttempt
from tid.services import notices as notice_service

MAX_FAILURES = 5
WINDOW = timedelta(minutes=15)
_DUMMY_HASH = "0" * 64


# --------------------------------------------------------------------------- rate limit


def is_limited(
    session: Session,
    *,
    client: str,
    notice_number: str,
    now: datetime | None = None,
    max_failures: int = MAX_FAILURES,
    window: timedelta = WINDOW,
) -> bool:
    """Whether this client or this notice number has used up its failed look-ups."""
    since = (now or utcnow()) - window
    number = notice_service.normalize_notice_number(notice_number)
    by_client = session.exec(
        select(func.count())
        .select_from(PortalAttempt)
        .where(PortalAttempt.client == client[:64], col(PortalAttempt.at) >= since)
    ).one()
    if int(by_client) >= max_failures:
        return True
    if not number:
        return False
    by_number = session.exec(
        select(func.count())
        .select_from(PortalAttempt)
        .where(PortalAttempt.notice_number == number, col(PortalAttempt.at) >= since)
    ).one()
    return int(by_number) >= max_failures


def record_failure(
    session: Session, *, client: str, notice_number: str, now: datetime | None = None
) -> None:
    """Count one failed look-up (the caller commits, even though the look-up failed)."""
    session.add(
        PortalAttempt(
            at=now or utcnow(),
            client=client[:64],
            notice_number=notice_service.normalize_notice_number(notice_number),
        )
    )


def prune_attempts(session: Session, *, before: datetime) -> None:
    """Forget failed look-ups older than ``before`` (a daily job may call this)."""
    session.exec(delete(PortalAttempt).where(col(PortalAttempt.at) < before))


# --------------------------------------------------------------------------- look-up


def look_up(session: Session, *, number: str, code: str, secret: str) -> Notice | None:
    """The mailed notice with this number if ``code`` is its access code; otherwise None,
    with no hint whether the number exists (same work either way)."""
    normalized = notice_service.normalize_notice_number(number)
    notice = (
        session.exec(
            select(Notice).where(Notice.number == normalized, col(Notice.mailed_on).is_not(None))
        ).first()
        if normalized
        else None
    )
    expected = notice.access_code_hash if notice is not None else _DUMMY_HASH
    given = notice_service.access_code_hash(secret, normalized, code)
    matches = hmac.compare_digest(given.encode(), expected.encode())
    return notice if (matches and notice is not None) else None


def _owner_key(name: str) -> str:
    return " ".join(name.casefold().split())


def notices_opened_by(session: Session, notice: Notice) -> list[Notice]:
    """The mailed notices one successful look-up opens: same property, same owner."""
    candidates = session.exec(
        select(Notice)
        .where(Notice.property_id == notice.property_id, col(Notice.mailed_on).is_not(None))
        .order_by(col(Notice.issued_on).desc(), col(Notice.id).desc())
    )
    owner = _owner_key(notice.owner_name)
    return [n for n in candidates if _owner_key(n.owner_name) == owner]


# --------------------------------------------------------------------------- what the owner sees


@dataclass(frozen=True)
class Payment:
    on: date
    amount: Decimal  # applied to the bill (negative: a reversal)


@dataclass(frozen=True)
class BillBalance:
    """What a bill asked for, what was paid on it, and what is still owed."""

    billed: Decimal
    paid: Decimal
    balance: Decimal
    payments: tuple[Payment, ...]
    superseded: bool
    from_ledger: bool  # False: the bill is not yet in the special account's journal


def balance_for_bill(session: Session, bill: Bill) -> BillBalance:
    """The bill's balance from the special account's journal (receivable lines of the bill):
    payments are the receivable credits of payment entries (reversals show as negative)."""
    from tid.services import ledger

    rows = session.exec(
        select(col(JournalEntry.entry_date), col(JournalEntry.kind), col(JournalLine.amount))
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .where(JournalLine.bill_id == bill.id, JournalLine.account == ledger.RECEIVABLE)
        .order_by(col(JournalEntry.entry_date), col(JournalEntry.id))
    ).all()
    superseded = bill.status != BillStatus.ACTIVE.value
    if not rows:
        return BillBalance(bill.amount, Decimal("0.00"), bill.amount, (), superseded, False)
    payments = tuple(
        Payment(on, -amount) for on, kind, amount in rows if kind in ("payment", "reversal")
    )
    outstanding = sum((amount for _on, _kind, amount in rows), Decimal("0.00"))
    paid = sum((p.amount for p in payments), Decimal("0.00"))
    return BillBalance(bill.amount, paid, outstanding, payments, superseded, True)


@dataclass(frozen=True)
class PortalNotice:
    notice: Notice
    bill: Bill
    explanation: str
    balance: BillBalance
    delivery: str  # the latest delivery status, or ""


def portal_view(session: Session, notice_ids: Collection[int]) -> list[PortalNotice]:
    """The notices the owner is authorized to see, newest first, with their bills."""
    if not notice_ids:
        return []
    found = list(
        session.exec(
            select(Notice)
            .where(col(Notice.id).in_(list(notice_ids)), col(Notice.mailed_on).is_not(None))
            .order_by(col(Notice.issued_on).desc(), col(Notice.id).desc())
        )
    )
    status = notice_service.latest_delivery(session, [n.id or 0 for n in found])
    result = []
    for notice in found:
        bill = session.get(Bill, notice.bill_id)
        if bill is None:  # pragma: no cover - a foreign key guarantees it
            continue
        event = status.get(notice.id or 0)
        result.append(
            PortalNotice(
                notice=notice,
                bill=bill,
                explanation=bill.explanation,
                balance=balance_for_bill(session, bill),
                delivery=event.status if event else "",
            )
        )
    return result


def notice_by_public_id(session: Session, public_id: str) -> Notice | None:
    if not public_id or len(public_id) > 32:
        return None
    return session.exec(select(Notice).where(Notice.public_id == public_id)).first()
