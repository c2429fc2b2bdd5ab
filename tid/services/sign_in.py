"""Who waits after failed sign-ins, so that a lock-out slows an attacker and not the person
whose account is attacked (OWASP's "device cookies").

- A **known device** is a browser that signed in to the account before: it holds a signed
  cookie with a random id (only the id's SHA-256 is kept, per account). Its failures count
  against its own allowance only (three free, then a doubling delay, and a lock-out at
  ``login_lockout_after``); no one else's failures ever make it wait.
- Any other browser counts its failures per client address (the delay after twice
  ``login_lockout_after``, the lock-out at ten times it) and per account: three free, then a
  delay that doubles up to :data:`UNKNOWN_MAX_DELAY` and never a lock-out. Strangers'
  failures slow the account down for unknown browsers only, and by minutes at most.
- A reset link always lets the person in, and clears the account's delays and locks.

The first rule of a sign-in's list is the account's (its device's, or its own): a right
password clears it, and it stays counted until the second factor is given.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, select

from tid.clock import utcnow
from tid.models import KnownDevice, Throttle, User
from tid.services import audit, throttle

UNKNOWN_MAX_DELAY = timedelta(minutes=5)
DEVICE_LIFETIME = timedelta(days=365)  # a device unused this long is forgotten
DEVICES_PER_BROWSER = 5  # accounts one browser remembers (a shared office computer)
_DAY = timedelta(days=1)
_NEVER = 1 << 30  # failures that would lock: none


@dataclass(frozen=True)
class Limits:
    """The installation's settings: failures that lock a device, and the first lock-out."""

    after: int = 10
    lockout: timedelta = timedelta(minutes=30)


def account_key(email: str) -> str:
    return f"login-account:{throttle.key_part(email)}"


def address_key(address: str) -> str:
    return f"login-address:{throttle.key_part(address, 64)}"


def device_key(device: KnownDevice, email: str) -> str:
    """A device's key names its account (for the administrators' list of lock-outs)."""
    return f"login-device:{device.id}:{throttle.key_part(email, 170)}"


def rules(
    *, email: str, address: str, device: KnownDevice | None, limits: Limits
) -> list[tuple[str, throttle.Policy]]:
    """The keys a sign-in attempt counts under (the account's first)."""
    free = min(3, limits.after - 1)
    second = timedelta(seconds=1)
    if device is not None:
        own = throttle.Policy(
            free=free,
            lockout_after=limits.after,
            lockout=limits.lockout,
            window=_DAY,
            base_delay=second,
        )
        return [(device_key(device, email), own)]
    account = throttle.Policy(
        free=free,
        lockout_after=_NEVER,
        lockout=limits.lockout,
        window=_DAY,
        base_delay=second,
        max_delay=UNKNOWN_MAX_DELAY,
    )
    per_address = throttle.Policy(
        free=2 * limits.after,
        lockout_after=10 * limits.after,
        lockout=limits.lockout,
        window=_DAY,
        base_delay=second,
    )
    return [(account_key(email), account), (address_key(address), per_address)]


def _digest(device_id: str) -> str:
    return hashlib.sha256(device_id.encode()).hexdigest()


def known_device(*, session: Session, ids: Sequence[str], email: str) -> KnownDevice | None:
    """The device of the account with this email among a browser's device ids (None: the
    browser has not signed in to it, or the email has no account)."""
    if not ids:
        return None
    found = session.exec(
        select(KnownDevice)
        .join(User, col(User.id) == col(KnownDevice.user_id))
        .where(
            col(KnownDevice.token_hash).in_([_digest(i) for i in ids]),
            col(User.email) == email.strip().lower(),
        )
    ).first()
    return found


def remember(*, session: Session, user: User, ids: Sequence[str]) -> list[str]:
    """The browser signed in to ``user``'s account: its device ids afterwards (an id of
    this account first: the one it had, or a new one recorded now)."""
    now = utcnow()
    mine = session.exec(
        select(KnownDevice).where(
            KnownDevice.user_id == user.id,
            col(KnownDevice.token_hash).in_([_digest(i) for i in ids] or [""]),
        )
    ).first()
    if mine is not None:
        mine.last_used_at = now
        session.add(mine)
        kept = next(i for i in ids if _digest(i) == mine.token_hash)
    else:
        kept = secrets.token_urlsafe(32)
        session.add(KnownDevice(user_id=user.id or 0, token_hash=_digest(kept), last_used_at=now))
    others = [i for i in ids if i != kept]
    return [kept, *others][:DEVICES_PER_BROWSER]


def clear(*, session: Session, user: User) -> None:
    """The person proved who they are another way (a reset link): the account's delay and
    the locks of its devices end."""
    keys = [account_key(user.email)]
    devices = session.exec(select(KnownDevice).where(KnownDevice.user_id == user.id))
    keys += [device_key(d, user.email) for d in devices]
    throttle.forgive(session=session, keys=keys)


def unlock(*, session: Session, actor: audit.Actor, email: str) -> bool:
    """Lift the delays and lock-outs of the account with this email (as typed) and of its
    devices (an administrator, or the command line); whether any was in force."""
    keys = [account_key(email)]
    user = session.exec(select(User).where(User.email == email.strip().lower())).first()
    if user is not None:
        devices = session.exec(select(KnownDevice).where(KnownDevice.user_id == user.id))
        keys += [device_key(d, user.email) for d in devices]
    waiting = {row.key for row in throttle.active(session=session, prefix="login-")}
    lifted = False
    for key in keys:
        if key in waiting:
            lifted = throttle.lift(session=session, actor=actor, key=key) or lifted
    return lifted


def forget_devices(*, session: Session, unused_since: datetime) -> None:
    """Forget devices that have not signed in since ``unused_since``."""
    session.exec(delete(KnownDevice).where(col(KnownDevice.last_used_at) < unused_since))


@dataclass(frozen=True)
class Lockout:
    """A sign-in lock-out or delay in force, as the administrators' list shows it: ``kind``
    is ``account`` (the email typed), ``device`` (a known browser of the account ``who``) or
    ``address``."""

    id: int | None
    kind: str
    who: str
    failures: int
    last_failure_at: datetime | None
    blocked_until: datetime | None


def _lockout(row: Throttle) -> Lockout:
    name, _colon, rest = row.key.partition(":")
    if name == "login-account":
        kind, who = "account", rest
    elif name == "login-device":
        kind, who = "device", rest.split(":", 1)[-1]
    else:
        kind, who = "address", rest
    return Lockout(
        id=row.id,
        kind=kind,
        who=who,
        failures=row.failures,
        last_failure_at=row.last_failure_at,
        blocked_until=row.blocked_until,
    )


def lockouts(*, session: Session) -> list[Lockout]:
    """The sign-in lock-outs and delays in force now, latest first."""
    return [_lockout(row) for row in throttle.active(session=session, prefix="login-")]


def lift_lockout(*, session: Session, actor: audit.Actor, throttle_id: int) -> bool:
    """An administrator lifts one lock-out of the list; False: there is no such row."""
    row = session.get(Throttle, throttle_id)
    if row is None:
        return False
    throttle.lift(session=session, actor=actor, key=row.key)
    return True
