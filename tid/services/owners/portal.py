"""The owners' portal of the certified-mail notices (21 LPRA § 6653(5)): public, no account.

An owner proves they hold the paper notice with its number and the access code printed on
it. A look-up that fails — a wrong code or a number that does not exist — gets one and the
same answer, and costs the same time (the code's HMAC is computed and compared in constant
time either way). Look-ups are limited in the database per client address and its network
(see "rate limit" below), so the limit holds across several workers and never locks an
owner out. What a look-up opened is kept in a server-side portal session that expires and
that leaving revokes.

What one successful look-up opens: the mailed notices of the same property addressed to the
same owner (a later owner of the property does not see an earlier owner's notices).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from tid.clock import utcnow
from tid.models import (
    Bill,
    BillStatus,
    District,
    JournalEntry,
    JournalLine,
    Municipality,
    Notice,
    NoticeBatch,
    PortalAttempt,
    PortalSession,
    Property,
    PropertyYear,
)
from tid.rules.errors import N_, Finding
from tid.services import notices as notice_service
from tid.services.auth import sign_in
from tid.services.limits import throttle

MAX_FAILURES = 5
WINDOW = timedelta(minutes=15)
NETWORK_FAILURES = 20  # per /24 (IPv4) or /64 (IPv6): rotating addresses within one block
GLOBAL_FAILURES = 500  # failures across the portal within WINDOW: the slow-down starts
SLOWED_FAILURES = 1  # failures each address makes with no wait while the portal is slowed
SLOWED_DELAY = timedelta(seconds=30)  # then its wait, doubling with each further failure
SESSION_IDLE = timedelta(minutes=20)
SESSION_LIFETIME = timedelta(hours=2)
_DUMMY_HASH = "0" * 64

# The access code: 12 characters from a 31-letter alphabet.
CODE_BITS = notice_service.ACCESS_LENGTH * math.log2(len(notice_service.ACCESS_ALPHABET))


# --------------------------------------------------------------------------- rate limit
#
# Who is limited, and why no one can lock an owner out: a failed look-up counts against the
# client's address (and its network), never against the notice number. Notice numbers are
# sequential, so a limit per number would let anyone lock every owner out by typing wrong
# codes. The code's entropy (about 59.5 bits) keeps guessing infeasible instead: with 5
# guesses per address per 15 minutes, a million addresses guessing at one number for a
# year would find its code with a chance of about 1 in 4.5 million (1e6 x 5 x 4 x 24 x 365
# / 2^59.45 ≈ 2.2e-7), and while an attack is on each address waits between its failures.
# Only failures are slowed down: the right code from an address that has not failed opens
# the notice, always, whatever its network's failures (the network's limit holds back the
# addresses of it that have failed).


def _network(client: str) -> str:
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def _policies(
    session: Session, *, client: str, now: datetime, max_failures: int, window: timedelta
) -> list[tuple[str, throttle.Policy]]:
    since = now - window
    recent = session.exec(
        select(func.count()).select_from(PortalAttempt).where(col(PortalAttempt.at) >= since)
    ).one()
    slowed = int(recent) >= GLOBAL_FAILURES
    # Slowed down, an address keeps its allowance but waits after each failure past the
    # first (30 s, 1 min, 2 min …): one typo costs an owner nothing.
    address = throttle.Policy(
        free=SLOWED_FAILURES if slowed else max_failures,
        lockout_after=max_failures,
        lockout=window,
        window=window,
        base_delay=SLOWED_DELAY if slowed else timedelta(0),
    )
    network_allowance = (
        max(1, NETWORK_FAILURES * SLOWED_FAILURES // MAX_FAILURES)
        if slowed
        else max(max_failures, NETWORK_FAILURES)
    )
    return [
        (f"portal-address:{client[:64]}", address),
        (
            f"portal-network:{_network(client)[:64]}",
            throttle.Policy(
                free=network_allowance,
                lockout_after=network_allowance,
                lockout=window,
                window=window,
            ),
        ),
    ]


def reserve_look_up(
    *,
    session: Session,
    client: str,
    now: datetime | None = None,
    max_failures: int = MAX_FAILURES,
    window: timedelta = WINDOW,
) -> throttle.Reservation | throttle.Refused:
    """Check the client's allowance and count this look-up as a failure, atomically (the
    caller commits before evaluating the code, and releases the reservation on success)."""
    now = now or utcnow()
    rules = _policies(session, client=client, now=now, max_failures=max_failures, window=window)
    # An address that has not failed is judged by its own allowance alone: its neighbours'
    # failures never refuse its right code (only its own failures are slowed down).
    return throttle.reserve(session=session, rules=rules, now=now, fresh_key=rules[0][0])


def tries_left(
    *,
    session: Session,
    client: str,
    now: datetime | None = None,
    max_failures: int = MAX_FAILURES,
    window: timedelta = WINDOW,
) -> int:
    """How many more wrong look-ups this client may make before it must wait."""
    now = now or utcnow()
    rules = _policies(session, client=client, now=now, max_failures=max_failures, window=window)
    return throttle.tries_left(session=session, rules=rules, now=now)


def record_failure(
    *, session: Session, client: str, notice_number: str, now: datetime | None = None
) -> None:
    """Log one failed look-up (the global slow-down counts these; the caller commits)."""
    session.add(
        PortalAttempt(
            at=now or utcnow(),
            client=client[:64],
            notice_number=notice_service.normalize_notice_number(notice_number),
        )
    )


def prune_attempts(*, session: Session, before: datetime) -> None:
    """Forget failed look-ups older than ``before`` (a daily job may call this), the
    portal sessions that ended before it, the idle throttles of sign-in and the portal, and
    the browsers that have not signed in for a year."""
    session.exec(delete(PortalAttempt).where(col(PortalAttempt.at) < before))
    session.exec(
        delete(PortalSession).where(
            (col(PortalSession.revoked_at) < before)
            | (col(PortalSession.created_at) < before - SESSION_LIFETIME)
        )
    )
    throttle.prune(session=session, before=before)
    sign_in.forget_devices(session=session, unused_since=before - sign_in.DEVICE_LIFETIME)


# --------------------------------------------------------------------------- sessions


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def open_session(*, session: Session, notice_ids: Collection[int], token: str = "") -> str:
    """Remember on the server what a look-up opened; the cookie keeps only the token. A
    live session's token (a second look-up in the same visit) keeps its notices too."""
    now = utcnow()
    ids = [int(i) for i in notice_ids]
    current = _live(session, token, now) if token else None
    if current is not None:
        ids = list(dict.fromkeys([*ids, *_ids(current)]))[:50]
        current.revoked_at = now
        session.add(current)
    new_token = secrets.token_urlsafe(32)
    session.add(
        PortalSession(
            token_hash=_token_hash(new_token),
            notice_ids=",".join(str(i) for i in ids),
            created_at=current.created_at if current is not None else now,
            last_seen_at=now,
        )
    )
    return new_token


def _ids(row: PortalSession) -> list[int]:
    return [int(v) for v in row.notice_ids.split(",") if v.isascii() and v.isdigit()]


def _live(
    session: Session,
    token: str,
    now: datetime,
    idle: timedelta = SESSION_IDLE,
    lifetime: timedelta = SESSION_LIFETIME,
) -> PortalSession | None:
    if not token or len(token) > 100:
        return None
    row = session.exec(
        select(PortalSession).where(PortalSession.token_hash == _token_hash(token))
    ).first()
    if row is None or row.revoked_at is not None:
        return None
    if now - row.last_seen_at > idle or now - row.created_at > lifetime:
        return None
    return row


def session_notices(
    *, session: Session, token: str, idle: timedelta = SESSION_IDLE, now: datetime | None = None
) -> set[int]:
    """The notices a live portal session opened (empty: none, expired or left)."""
    now = now or utcnow()
    row = _live(session, token, now, idle=idle)
    if row is None:
        return set()
    if now - row.last_seen_at > timedelta(seconds=60):
        row.last_seen_at = now
        session.add(row)
        session.commit()
    return set(_ids(row))


def close_session(*, session: Session, token: str) -> None:
    """Leaving: the token stops opening anything, even from a copy of the cookie."""
    if not token or len(token) > 100:
        return
    row = session.exec(
        select(PortalSession).where(PortalSession.token_hash == _token_hash(token))
    ).first()
    if row is not None and row.revoked_at is None:
        row.revoked_at = utcnow()
        session.add(row)


# --------------------------------------------------------------------------- look-up


def look_up_problems(*, number: str, code: str) -> list[Finding]:
    """What the look-up form lacks, field by field: a form without the number or the code
    cannot match a notice, so it is refused before it spends one of the tries."""
    problems = []
    if not number.strip():
        problems.append(Finding("number", N_("Write the notice number printed on the notice.")))
    if not code.strip():
        problems.append(Finding("code", N_("Write the access code printed on the notice.")))
    return problems


def look_up(*, session: Session, number: str, code: str, secret: str) -> Notice | None:
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


def notices_opened_by(*, session: Session, notice: Notice) -> list[Notice]:
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


def balance_for_bill(*, session: Session, bill: Bill) -> BillBalance:
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
    # A bill brought from the district's earlier books (tid/services/aboard) opens with what
    # was still owed on the cut-over day: what was paid before shows as paid on that day.
    brought = [Payment(on, bill.amount - amount) for on, kind, amount in rows if kind == "opening"]
    payments = tuple(
        [p for p in brought if p.amount]
        + [Payment(on, -amount) for on, kind, amount in rows if kind in ("payment", "reversal")]
    )
    outstanding = sum((amount for _on, _kind, amount in rows), Decimal("0.00"))
    paid = sum((p.amount for p in payments), Decimal("0.00"))
    return BillBalance(bill.amount, paid, outstanding, payments, superseded, True)


@dataclass(frozen=True)
class Contact:
    """Who mailed a notice (the association), as printed on its envelope."""

    district: str
    municipality: str
    name: str
    address: tuple[str, ...]


@dataclass(frozen=True)
class PortalNotice:
    notice: Notice
    bill: Bill
    explanation: str
    balance: BillBalance
    delivery: str  # the latest delivery status, or ""
    cadastral_number: str = ""
    property_address: str = ""
    how_to_pay: str = ""  # as printed on the notice (the run's text): Spanish
    how_to_pay_en: str = ""  # the run's English text, printed on the notice's English page
    contact: Contact | None = None


def _contact(session: Session, batch: NoticeBatch) -> Contact:
    district = session.get(District, batch.district_id)
    municipality = session.get(Municipality, district.municipality_id) if district else None
    return Contact(
        district=district.name if district else "",
        municipality=municipality.name if municipality else "",
        name=batch.sender_name,
        address=tuple(line for line in batch.sender_address.splitlines() if line.strip()),
    )


def contacts(*, session: Session) -> list[Contact]:
    """Whom to ask about a lost code: each district's association as its latest mailed run
    names it (the name and address on the envelope), by municipality and district."""
    latest = (
        select(NoticeBatch.district_id, func.max(NoticeBatch.id).label("id"))
        .where(col(NoticeBatch.mailed_on).is_not(None))
        .group_by(col(NoticeBatch.district_id))
        .subquery()
    )
    found = session.exec(select(NoticeBatch).join(latest, col(NoticeBatch.id) == latest.c.id)).all()
    result = [_contact(session, batch) for batch in found]
    return sorted(result, key=lambda c: (c.municipality, c.district))


def portal_view(*, session: Session, notice_ids: Collection[int]) -> list[PortalNotice]:
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
    status = notice_service.latest_delivery(session=session, notice_ids=[n.id or 0 for n in found])
    result = []
    for notice in found:
        bill = session.get(Bill, notice.bill_id)
        if bill is None:  # pragma: no cover - a foreign key guarantees it
            continue
        event = status.get(notice.id or 0)
        prop = session.get(Property, notice.property_id)
        year = session.get(PropertyYear, bill.property_year_id)
        batch = session.get(NoticeBatch, notice.batch_id)
        result.append(
            PortalNotice(
                notice=notice,
                bill=bill,
                explanation=bill.explanation,
                balance=balance_for_bill(session=session, bill=bill),
                delivery=event.status if event else "",
                cadastral_number=prop.cadastral_number if prop else "",
                property_address=year.physical_address if year else "",
                how_to_pay=batch.how_to_pay if batch else "",
                how_to_pay_en=batch.how_to_pay_en if batch else "",
                contact=_contact(session, batch) if batch else None,
            )
        )
    return result


def notice_by_public_id(*, session: Session, public_id: str) -> Notice | None:
    if not public_id or len(public_id) > 32:
        return None
    return session.exec(select(Notice).where(Notice.public_id == public_id)).first()
