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
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, select

from tid.clock import utcnow
from tid.models import KnownDevice, Throttle, User
from tid.services.audit_trail import audit
from tid.services.auth import passwords, two_factor, users
from tid.services.limits import throttle

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


# --------------------------------------------------------------------------------------
# A sign-in, step by step: the web reads the form and renders what each step comes to.

REFUSED = "refused"  # too many failures: wait (``Step.refused`` says how long)
WRONG = "wrong"  # the email and password, or the code, are not right
CODE = "code"  # the password was right; the code from the authenticator app comes next
ENROL = "enrol"  # the password was right; the role owes a second factor not yet set up
SIGNED_IN = "signed_in"  # proven: :func:`open_login` opens the login


@dataclass(frozen=True)
class Browser:
    """Who is asking, as the request says: the client's address, the device ids its cookie
    holds, and the installation's limits."""

    address: str
    device_ids: Sequence[str]
    limits: Limits


@dataclass(frozen=True)
class Step:
    """What an attempt came to (one of :data:`REFUSED`, :data:`WRONG`, :data:`CODE`,
    :data:`ENROL`, :data:`SIGNED_IN`), with the person when the password was right, and the
    recovery codes left after a code."""

    outcome: str
    user: User | None = None
    refused: throttle.Refused | None = None
    recovery_codes_left: int | None = None


def reserve(
    *, session: Session, email: str, browser: Browser
) -> tuple[list[tuple[str, throttle.Policy]], throttle.Reservation | throttle.Refused]:
    """The attempt counted before it is checked, and committed: attempts made at once are
    each counted, whatever the others find."""
    device = known_device(session=session, ids=browser.device_ids, email=email)
    found = rules(email=email, address=browser.address, device=device, limits=browser.limits)
    reservation = throttle.reserve(session=session, rules=found)
    session.commit()
    return found, reservation


def by_password(
    *,
    session: Session,
    email: str,
    password: str,
    browser: Browser,
    two_factor_roles: Collection[str],
) -> Step:
    """The first step: the throttle, then the password, then whether a second factor is
    owed (enabled, or required of the person's role). A right password gives the client
    address its attempt back; the account's stays counted until the second factor is
    given."""
    found, reservation = reserve(session=session, email=email, browser=browser)
    if isinstance(reservation, throttle.Refused):
        return Step(REFUSED, refused=reservation)
    user = users.authenticate(session=session, email=email, password=password)
    if user is None or user.id is None:
        session.commit()
        return Step(WRONG)
    enabled = two_factor.is_enabled(user)
    if enabled or two_factor.is_required(user, two_factor_roles):
        throttle.release(session=session, reservation=throttle.Reservation(dict(found[1:])))
        session.commit()
        return Step(CODE if enabled else ENROL, user=user)
    throttle.release(session=session, reservation=reservation, clear=[found[0][0]])
    session.commit()
    return Step(SIGNED_IN, user=user)


def by_code(*, session: Session, user: User, code: str, browser: Browser) -> Step:
    """The second step, for a person whose password was right: the throttle, then the code
    from the app or a recovery code (used up)."""
    found, reservation = reserve(session=session, email=user.email, browser=browser)
    if isinstance(reservation, throttle.Refused):
        return Step(REFUSED, refused=reservation)
    right = two_factor.verify(session=session, user=user, code=code)
    if not right and not two_factor.use_recovery_code(session=session, user=user, code=code):
        session.commit()
        return Step(WRONG, user=user)
    throttle.release(session=session, reservation=reservation, clear=[found[0][0]])
    left = two_factor.recovery_codes_left(session=session, user_id=user.id or 0)
    session.commit()
    return Step(SIGNED_IN, user=user, recovery_codes_left=left)


def open_login(
    *, session: Session, user: User, browser: Browser, user_agent: str
) -> tuple[str, list[str]]:
    """The person is proven: their server-side login opened and this browser remembered as
    one of their devices; the login's token and the browser's device ids to keep."""
    login = users.open_login(
        session=session, user=user, address=browser.address, user_agent=user_agent
    )
    ids = remember(session=session, user=user, ids=browser.device_ids)
    session.commit()
    return login.token, ids


def enrolled(*, session: Session, user: User, browser: Browser) -> None:
    """The second factor is set up, proven by its first code: the account's attempt, kept
    counted since the password, is given back and its failures cleared."""
    device = known_device(session=session, ids=browser.device_ids, email=user.email)
    account = rules(email=user.email, address=browser.address, device=device, limits=browser.limits)
    throttle.release(
        session=session, reservation=throttle.Reservation(dict(account[:1])), clear=[account[0][0]]
    )
    session.commit()


def by_reset_link(
    *, session: Session, user: User, browser: Browser, two_factor_roles: Collection[str]
) -> tuple[Step, list[str]]:
    """A reset link proved who this is (its new password is set): the account's delays and
    locks end, and the person is in, or owes their second factor from a browser that is now
    one of their devices; the browser's device ids to keep (none: it is signed in next)."""
    clear(session=session, user=user)
    session.commit()
    enabled = two_factor.is_enabled(user)
    if enabled or two_factor.is_required(user, two_factor_roles):
        ids = remember(session=session, user=user, ids=browser.device_ids)
        session.commit()
        return Step(CODE if enabled else ENROL, user=user), ids
    return Step(SIGNED_IN, user=user), []


def confirm(*, session: Session, user: User, answer: str, browser: Browser) -> Step:
    """A signed-in person confirms a change of their second factor with their password or a
    current code: counted against the sign-in limits like a password."""
    found, reservation = reserve(session=session, email=user.email, browser=browser)
    if isinstance(reservation, throttle.Refused):
        return Step(REFUSED, refused=reservation)
    if passwords.verify_password(user, answer) or two_factor.verify(
        session=session, user=user, code=answer
    ):
        throttle.release(session=session, reservation=reservation, clear=[found[0][0]])
        session.commit()
        return Step(SIGNED_IN, user=user)
    session.commit()
    return Step(WRONG, user=user)
