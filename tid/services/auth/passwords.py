"""Passwords: the rules a new password meets, changing one's own, the "forgot password"
link (single use, expiring, only its hash kept) and an administrator's forced reset."""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlmodel import Session, col, select, update

from tid.clock import utcnow
from tid.models import LoginSession, PasswordReset, User
from tid.rules.errors import N_, InputError
from tid.services.audit_trail import audit

MIN_LENGTH = 10
MAX_LENGTH = 256  # argon2 hashes any length; a bound keeps one request from costing much
RESET_LIFETIME = timedelta(hours=1)
COMMON_FILE = Path(__file__).resolve().parent.parent.parent / "security" / "common-passwords.txt"
# An account whose password was reset by an administrator: no password matches this.
UNUSABLE_PREFIX = "!reset!"

# The argon2 hasher of every password (the tests replace it by a cheap one here).
_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    result: str = _hasher.hash(password)
    return result


def needs_rehash(password_hash: str) -> bool:
    """Whether a stored hash was made with other parameters than today's."""
    return bool(_hasher.check_needs_rehash(password_hash))


def verify_password(user: User, password: str) -> bool:
    """Whether ``password`` is the user's; an account whose password an administrator
    reset matches nothing (and costs the same time)."""
    if len(password) > MAX_LENGTH or user.password_hash.startswith(UNUSABLE_PREFIX):
        dummy_verify(password[:MAX_LENGTH])
        return False
    try:
        _hasher.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
    return True


def dummy_verify(password: str) -> None:
    """A real argon2 verification against a hash made with the current parameters."""
    with contextlib.suppress(VerificationError, InvalidHashError):
        _hasher.verify(_dummy_hash(_hasher), password[:MAX_LENGTH])


_DUMMIES: dict[int, str] = {}


def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash of no one's password with ``hasher``'s parameters (so that a check against it
    costs what a real account's does)."""
    key = id(hasher)
    if key not in _DUMMIES:
        _DUMMIES[key] = hasher.hash(secrets.token_urlsafe(16))
    return _DUMMIES[key]


@cache
def common_passwords() -> frozenset[str]:
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().casefold() for w in lines if w.strip() and not w.startswith("#"))


def is_common(password: str) -> bool:
    """One of the list, or one of the list followed only by digits and symbols
    ("contraseña2026!")."""
    folded = password.casefold().strip()
    base = folded.rstrip("0123456789!@#$%^&*()-_=+.,;:?¡¿ ")
    common = common_passwords()
    return folded in common or (bool(base) and base in common)


def check_new_password(password: str, *, email: str = "", field: str = "password") -> None:
    """Refuse a password that is too short, too long, common, or the account's email."""
    if len(password) < MIN_LENGTH:
        raise InputError(field, N_("The password needs at least 10 characters."))
    if len(password) > MAX_LENGTH:
        raise InputError(field, N_("The password may have at most 256 characters."))
    local = email.partition("@")[0].casefold()
    if is_common(password) or (local and password.casefold().strip() in (local, email.casefold())):
        raise InputError(
            field, N_("This password is too common or too easy to guess. Choose another one.")
        )


def set_password(
    *, session: Session, user: User, password: str, actor: audit.Actor, action: str
) -> None:
    """Store a new password (the caller checked it) and end every other login."""
    user.password_hash = hash_password(password)
    user.password_changed_at = utcnow()
    session.add(user)
    audit.record(session=session, actor=actor, action=action, entity=user)


def change_own(
    *, session: Session, user: User, current: str, new: str, confirm: str, keep_token: str
) -> None:
    """A user changes their own password: the current one first; every other login of
    theirs ends (this one stays), and so does every reset link asked for before."""
    if not verify_password(user, current):
        raise InputError("current", N_("The current password is not right."))
    check_new_password(new, email=user.email, field="new")
    if new != confirm:
        raise InputError("confirm", N_("The two new passwords differ."))
    if verify_password(user, new):
        raise InputError("new", N_("Choose a password different from the current one."))
    set_password(
        session=session,
        user=user,
        password=new,
        actor=audit.Actor(user.email, user.id),
        action="user.password_change",
    )
    end_logins(session=session, user_id=user.id or 0, keep_token=keep_token)
    spend_reset_links(session=session, user_id=user.id or 0)


def end_logins(*, session: Session, user_id: int, keep_token: str = "") -> int:
    """Revoke every live login of the user (except ``keep_token``); how many ended."""
    stmt = (
        update(LoginSession)
        .where(
            col(LoginSession.user_id) == user_id,
            col(LoginSession.revoked_at).is_(None),
            col(LoginSession.token) != keep_token,
        )
        .values(revoked_at=utcnow())
    )
    result = session.exec(stmt)
    return int(result.rowcount or 0)


def spend_reset_links(*, session: Session, user_id: int, now: datetime | None = None) -> None:
    """Every open reset link of the account stops working (its password just changed)."""
    session.exec(
        update(PasswordReset)
        .where(col(PasswordReset.user_id) == user_id, col(PasswordReset.used_at).is_(None))
        .values(used_at=now or utcnow())
    )


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def account_to_reset(*, session: Session, email: str) -> User | None:
    """The active account a reset link for ``email`` goes to (None when there is none: the
    caller answers the same either way); the link itself is made where it is mailed
    (:func:`request_reset`)."""
    email = email.strip().lower()[:254]
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in email):
        return None  # no account has such an address (and PostgreSQL refuses NUL)
    user = session.exec(select(User).where(User.email == email)).first()
    return user if user is not None and user.active else None


def request_reset(
    *, session: Session, email: str, lifetime: timedelta = RESET_LIFETIME
) -> tuple[User, str] | None:
    """A reset link's token for the active account with this email (None when there is
    none: the caller answers the same either way)."""
    email = email.strip().lower()[:254]
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in email):
        email = ""  # no account has such an address (and PostgreSQL refuses NUL)
    token = secrets.token_urlsafe(32)
    digest = _token_hash(token)  # the same work whether or not the account exists
    user = session.exec(select(User).where(User.email == email)).first()
    if user is None or not user.active:
        return None
    now = utcnow()
    session.add(PasswordReset(user_id=user.id or 0, token_hash=digest, expires_at=now + lifetime))
    audit.record(
        session=session,
        actor=audit.Actor(email, user.id),
        action="user.password_reset_request",
        entity=user,
    )
    return user, token


def reset_user(*, session: Session, token: str, now: datetime | None = None) -> User | None:
    """The account a live, unused reset token is for (None otherwise); does not use it."""
    if not token or len(token) > 100:
        return None
    now = now or utcnow()
    found = session.exec(
        select(PasswordReset).where(PasswordReset.token_hash == _token_hash(token))
    ).first()
    if found is None or found.used_at is not None or found.expires_at <= now:
        return None
    user = session.get(User, found.user_id)
    return user if user is not None and user.active else None


def reset_with_token(
    *, session: Session, token: str, new: str, confirm: str, now: datetime | None = None
) -> User:
    """Use a reset link once: set the new password, end every login, and spend every
    other open link of the account."""
    now = now or utcnow()
    user = reset_user(session=session, token=token, now=now)
    if user is None:
        raise InputError("token", N_("This link has expired or was already used."))
    check_new_password(new, email=user.email)
    if new != confirm:
        raise InputError("confirm", N_("The two new passwords differ."))
    # Spend the token atomically: of two parallel uses, one wins.
    spent = session.exec(
        update(PasswordReset)
        .where(
            col(PasswordReset.token_hash) == _token_hash(token),
            col(PasswordReset.used_at).is_(None),
            col(PasswordReset.expires_at) > now,
        )
        .values(used_at=now)
    )
    if not spent.rowcount:
        raise InputError("token", N_("This link has expired or was already used."))
    spend_reset_links(session=session, user_id=user.id or 0, now=now)
    set_password(
        session=session,
        user=user,
        password=new,
        actor=audit.Actor(user.email, user.id),
        action="user.password_reset",
    )
    end_logins(session=session, user_id=user.id or 0)
    return user


def force_reset(*, session: Session, actor: audit.Actor, user_id: int) -> User:
    """An administrator forces a new password: the current one stops working at once,
    every login ends; the person sets a new one through a reset link."""
    user = session.get(User, user_id)
    if user is None:
        raise InputError("user", N_("No such account."))
    if actor.user_id == user_id:
        raise InputError("user", N_("Change your own password from your account page."))
    if not user.password_hash.startswith(UNUSABLE_PREFIX):
        user.password_hash = UNUSABLE_PREFIX + user.password_hash
    session.add(user)
    end_logins(session=session, user_id=user_id)
    audit.record(session=session, actor=actor, action="user.password_force_reset", entity=user)
    return user
