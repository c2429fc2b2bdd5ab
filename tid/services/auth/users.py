"""Accounts and logins: argon2 password hashes and server-side login sessions."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlmodel import Session, col, func, select

from tid.clock import utcnow
from tid.models import District, LoginSession, Municipality, Role, User
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.services.audit_trail import audit
from tid.services.auth import passwords

MIN_PASSWORD = passwords.MIN_LENGTH


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
    """Create an account; a clerk belongs to a municipality, an association to a district.
    Every field's problem is found at once (a form shows them together)."""
    problems: list[Finding] = []

    def problem(field: str, message: str) -> None:
        problems.append(Finding(field, message))

    email = email.strip().lower()
    if "@" not in email or len(email) > 254 or _has_control(email):
        problem("email", N_("Enter a valid email address."))
    elif session.exec(select(User).where(func.lower(User.email) == email)).first():
        problem("email", N_("An account with this email already exists."))
    if not name.strip() or _has_control(name):
        problem("name", N_("Enter the person's name."))
    role_value: Role | None = None
    try:
        role_value = Role(role)
    except ValueError:
        problem("role", N_("Choose a role from the list."))
    if role_value is Role.CLERK and (
        municipality_id is None or session.get(Municipality, municipality_id) is None
    ):
        problem("municipality", N_("A clerk belongs to one municipality."))
    if role_value is Role.ASSOCIATION:
        district = session.get(District, district_id) if district_id is not None else None
        if district is None:
            problem("district", N_("An association account belongs to one district."))
        else:
            municipality_id = district.municipality_id
    try:
        passwords.check_new_password(password, email=email)
    except InputError as exc:
        problem(exc.field, exc.message)
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)
    assert role_value is not None
    user = User(
        email=email,
        name=name.strip(),
        password_hash=passwords.hash_password(password),
        role=role_value.value,
        municipality_id=municipality_id if role_value in (Role.CLERK, Role.ASSOCIATION) else None,
        district_id=district_id if role_value is Role.ASSOCIATION else None,
        locale=locale,
    )
    session.add(user)
    session.flush()
    audit.record(
        session=session, actor=actor, action="user.create", entity=user, after=audit.snapshot(user)
    )
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
        passwords.dummy_verify(password)
        return None
    if not passwords.verify_password(user, password):
        return None
    if passwords.needs_rehash(user.password_hash):
        user.password_hash = passwords.hash_password(password)
        session.add(user)
    return user


def open_login(
    *, session: Session, user: User, address: str = "", user_agent: str = ""
) -> LoginSession:
    """Start a server-side login session for ``user``."""
    now = utcnow()
    login = LoginSession(
        token=secrets.token_urlsafe(32),
        user_id=user.id or 0,
        created_at=now,
        last_seen_at=now,
        address=address[:64],
        user_agent=user_agent[:200],
    )
    session.add(login)
    audit.record(
        session=session,
        actor=audit.Actor(user.email, user.id),
        action="user.login",
        entity=("user_account", user.id),
    )
    return login


def close_login(*, session: Session, token: str) -> None:
    """Revoke a login session: its cookie no longer opens anything."""
    login = session.exec(select(LoginSession).where(LoginSession.token == token)).first()
    if login is not None and login.revoked_at is None:
        login.revoked_at = utcnow()
        session.add(login)
        user = session.get(User, login.user_id)
        actor = audit.Actor(user.email if user else "?", login.user_id)
        audit.record(
            session=session,
            actor=actor,
            action="user.logout",
            entity=("user_account", login.user_id),
        )


IDLE_TIMEOUT = timedelta(minutes=30)
LIFETIME = timedelta(hours=12)
_TOUCH_EVERY = timedelta(seconds=60)  # how stale last_seen_at may get (one write a minute)


# Asked by every signed-in request: built once, and read as plain columns (no record loaded
# into the session: the request needs the person's names and role, and the login's times).
_USER_FOR_TOKEN = (
    select(  # type: ignore[call-overload]
        col(User.id),
        col(User.email),
        col(User.name),
        col(User.role),
        col(User.municipality_id),
        col(User.district_id),
        col(User.locale),
        col(User.active),
        col(LoginSession.id).label("login_id"),
        col(LoginSession.last_seen_at),
        col(LoginSession.created_at),
    )
    .join(LoginSession, col(LoginSession.user_id) == col(User.id))
    .where(col(LoginSession.token) == bindparam("token"), col(LoginSession.revoked_at).is_(None))
)


@dataclass(frozen=True)
class SignedIn:
    """The person of a live login, as a request needs them."""

    id: int
    email: str
    name: str
    role: str
    municipality_id: int | None
    district_id: int | None
    locale: str

    @classmethod
    def values(cls, person: Any) -> dict[str, Any]:
        """This person's fields, read by name from ``person`` (a user's row, a row of the
        columns a request reads, or a :class:`SignedIn`)."""
        return {field.name: getattr(person, field.name) for field in fields(cls)}


def user_for_token(
    *,
    session: Session,
    token: str,
    idle: timedelta = IDLE_TIMEOUT,
    lifetime: timedelta = LIFETIME,
    now: datetime | None = None,
) -> SignedIn | None:
    """The active user of a live login session, or None. A login idle for longer than
    ``idle``, or older than ``lifetime``, has ended (and is marked so)."""
    now = now or utcnow()
    found = session.execute(_USER_FOR_TOKEN, {"token": token}).first()
    if found is None:
        return None
    seen = found.last_seen_at or found.created_at
    if now - seen > idle or now - found.created_at > lifetime:
        _mark_login(session, found.login_id, revoked_at=now)
        return None
    if not found.active:
        return None
    if now - seen > _TOUCH_EVERY:
        _mark_login(session, found.login_id, last_seen_at=now)
    return SignedIn(**SignedIn.values(found))


def _mark_login(session: Session, login_id: int, **values: datetime) -> None:
    """Write the login's time (seen, or ended) and commit it."""
    session.execute(update(LoginSession).where(col(LoginSession.id) == login_id).values(**values))
    session.commit()


def live_logins(
    *,
    session: Session,
    user_id: int,
    idle: timedelta = IDLE_TIMEOUT,
    lifetime: timedelta = LIFETIME,
) -> list[LoginSession]:
    """The user's own logins that still work, newest first."""
    now = utcnow()
    rows = session.exec(
        select(LoginSession)
        .where(LoginSession.user_id == user_id, LoginSession.revoked_at == None)  # noqa: E711
        .order_by(col(LoginSession.created_at).desc())
    )
    return [
        r
        for r in rows
        if now - (r.last_seen_at or r.created_at) <= idle and now - r.created_at <= lifetime
    ]


def end_one_login(*, session: Session, user_id: int, login_id: int) -> bool:
    """End one of the user's own logins (someone else's id: nothing happens)."""
    login = session.get(LoginSession, login_id)
    if login is None or login.user_id != user_id or login.revoked_at is not None:
        return False
    login.revoked_at = utcnow()
    session.add(login)
    return True


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
        session=session,
        actor=actor,
        action="user.activate" if active else "user.deactivate",
        entity=user,
        before=before,
        after=audit.snapshot(user),
    )
    return user


def account(*, session: Session, user_id: int) -> User | None:
    """The account with this id (None: there is none)."""
    return session.get(User, user_id)


def accounts(*, session: Session) -> list[User]:
    """Every account, by role and email."""
    return list(session.exec(select(User).order_by(col(User.role), col(User.email))))
