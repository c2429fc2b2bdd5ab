"""Signing in and the limits that guard it: the staff's server-side logins, known
browsers, password resets and recovery codes; the owners' portal visits; and the counts
of failures, requests and heavy work, kept in the database so that every worker sees
them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String, Text
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class LoginSession(SQLModel, table=True):
    """A server-side login: logging out revokes it, so a stolen cookie stops working. It
    also ends after an idle time and an absolute lifetime (settings)."""

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    user_id: int = Field(foreign_key="user_account.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
    last_seen_at: datetime | None = None
    address: str = Field(default="", max_length=64)
    user_agent: str = Field(default="", max_length=200)


class Throttle(SQLModel, table=True):
    """Failed attempts under one key ("login-account:<email>", "login-address:<ip>",
    "portal-address:<ip>", …): the limits live in the database, so they hold across
    workers, and each attempt is checked and counted under a row lock."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(sa_column=Column(String(200), unique=True, nullable=False))
    failures: int = 0
    window_start: datetime = Field(default_factory=utcnow)
    last_failure_at: datetime | None = None
    blocked_until: datetime | None = Field(default=None, index=True)


class KnownDevice(SQLModel, table=True):
    """A browser that signed in to the account before (it holds a signed cookie with a random
    id; only the id's SHA-256 is kept): its failed sign-ins count against its own allowance,
    and no one else's failures make it wait."""

    __tablename__ = "known_device"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime = Field(default_factory=utcnow, index=True)


class PasswordReset(SQLModel, table=True):
    """A "forgot password" link: only the SHA-256 of its token is kept; used once, expires."""

    __tablename__ = "password_reset"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class RecoveryCode(SQLModel, table=True):
    """A one-time recovery code for two-factor sign-in (only its SHA-256 is kept)."""

    __tablename__ = "recovery_code"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    code_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    used_at: datetime | None = None


class PortalAttempt(SQLModel, table=True):
    """A failed look-up in the owner's portal, by client address and notice number: the
    rate limit counts these in the database, so it holds across workers."""

    __tablename__ = "portal_attempt"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    client: str = Field(max_length=64, index=True)
    notice_number: str = Field(max_length=40, index=True)


class RequestCount(SQLModel, table=True):
    """Requests of one client in one minute, counted in the database so that every worker
    sees the same count (the public calculators' rate limit)."""

    __tablename__ = "request_count"

    key: str = Field(max_length=120, primary_key=True)
    window: int = Field(primary_key=True)  # whole minutes since 1970-01-01 UTC
    count: int = Field(default=0)


class PortalSession(SQLModel, table=True):
    """An owner's visit to the portal, kept on the server: the cookie holds only its token;
    it expires, and leaving revokes it (a copy of the cookie then opens nothing)."""

    __tablename__ = "portal_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    notice_ids: str = Field(sa_column=Column(Text, nullable=False))  # "12,15"
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class HeavyWork(SQLModel, table=True):
    """Anonymous heavy work under way (a calculator's computation or document, a portal PDF),
    one row per client, so that every web worker sees how many run at once and a client runs
    one at a time. A row past ``until`` (its worker died) no longer counts."""

    __tablename__ = "heavy_work"

    client: str = Field(max_length=120, primary_key=True)
    token: str = Field(max_length=64)
    until: datetime = Field(index=True)
