"""Accounts and logins: argon2 password hashes and server-side login sessions."""

from __future__ import annotations

import contextlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlmodel import Session, func, select

from tid.clock import utcnow
from tid.models import District, LoginSession, Municipality, Role, User
from tid.rules.errors import N_, InputError
from tid.services import audit

_hasher = PasswordHasher()
MIN_PASSWORD = 10


def hash_password(password: str) -> str:
    result: str = _hasher.hash(password)
    return result


def create_user(
    *,
    session: Session,
    actor: audit.Actor,
    email: str,
    name: str,
    password: str,
    role: str,
    municipality_id: int | None = None,
    district_id: int | None = None,
    locale: str = "es",
) -> User:
    """Create an account; a clerk belongs to a municipality, an association to a district."""
    email = email.strip().lower()
    if "@" not in email or len(email) > 254 or _has_control(email):
        raise InputError("email", N_("Enter a valid email address."))
    if session.exec(select(User).where(func.lower(User.email) == email)).first():
        raise InputError("email", N_("An account with this email already exists."))
    if not name.strip() or _has_control(name):
        raise InputError("name", N_("Enter the person's name."))
    if len(password) < MIN_PASSWORD:
        raise InputError("password", N_("The password needs at least 10 characters."))
    try:
        role_value = Role(role)
    except ValueError:
        raise InputError("role", N_("Choose a role from the list.")) from None
    if role_value is Role.CLERK and (
        municipality_id is None or session.get(Municipality, municipality_id) is None
    ):
        raise InputError("municipality", N_("A clerk belongs to one municipality."))
    if role_value is Role.ASSOCIATION:
        district = session.get(District, district_id) if district_id is not None else None
        if district is None:
            raise InputError("district", N_("An association account belongs to one district."))
        municipality_id = district.municipality_id
    user = User(
        email=email,
        name=name.strip(),
        password_hash=hash_password(password),
        role=role_value.value,
        municipality_id=municipality_id if role_value in (Role.CLERK, Role.ASSOCIATION) else None,
        district_id=district_id if role_value is Role.ASSOCIATION else None,
        locale=locale,
    )
    session.add(user)
    session.flush()
    audit.record(session, actor, "user.create", user, after=audit.snapshot(user))
    return user


def _has_control(text: str) -> bool:
    """Control characters (NUL among them, which PostgreSQL refuses) have no place in a
    name or an address."""
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in text)


def authenticate(*, session: Session, email: str, password: str) -> User | None:
    """The active user with this email and password, or None (same answer for both)."""
    if _has_control(email) or len(email) > 254:
        email = ""  # no account has such an address; still spend the time of a check
    user = session.exec(select(User).where(User.email == email.strip().lower())).first()
    if user is None or not user.active:
        # Spend the same time as a real check so that timing does not reveal accounts.
        with contextlib.suppress(VerificationError, InvalidHashError):
            _hasher.verify(_DUMMY_HASH, password)
        return None
    try:
        _hasher.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return None
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.add(user)
    return user


_DUMMY_HASH = _hasher.hash("not a real password")


def open_login(*, session: Session, user: User) -> LoginSession:
    """Start a server-side login session for ``user``."""
    login = LoginSession(token=secrets.token_urlsafe(32), user_id=user.id or 0)
    session.add(login)
    audit.record(session, audit.Actor(user.email, user.id), "user.login", ("user_account", user.id))
    return login


def close_login(*, session: Session, token: str) -> None:
    """Revoke a login session: its cookie no longer opens anything."""
    login = session.exec(select(LoginSession).where(LoginSession.token == token)).first()
    if login is not None and login.revoked_at is None:
        login.revoked_at = utcnow()
        session.add(login)
        user = session.get(User, login.user_id)
        actor = audit.Actor(user.email if user else "?", login.user_id)
        audit.record(session, actor, "user.logout", ("user_account", login.user_id))


def user_for_token(*, session: Session, token: str) -> User | None:
    """The active user of a live login session, or None."""
    stmt = (
        select(User)
        .join(LoginSession, LoginSession.user_id == User.id)  # type: ignore[arg-type]
        .where(LoginSession.token == token, LoginSession.revoked_at == None)  # noqa: E711
    )
    user = session.exec(stmt).first()
    return user if user is not None and user.active else None


def set_active(*, session: Session, actor: audit.Actor, user_id: int, active: bool) -> User:
    """Deactivate (or reactivate) an account; deactivation also ends its logins."""
    user = session.get(User, user_id)
    if user is None:
        raise InputError("user", N_("No such account."))
    if actor.user_id == user_id and not active:
        raise InputError("user", N_("You cannot deactivate your own account."))
    before = audit.snapshot(user)
    user.active = active
    session.add(user)
    if not active:
        logins = session.exec(
            select(LoginSession).where(
                LoginSession.user_id == user_id,
                LoginSession.revoked_at == None,  # noqa: E711
            )
        )
        for login in logins:
            login.revoked_at = utcnow()
            session.add(login)
    audit.record(
        session,
        actor,
        "user.activate" if active else "user.deactivate",
        user,
        before=before,
        after=audit.snapshot(user),
    )
    return user
