"""The tables. Money is integer cents behind :class:`Money`, which reads and writes
``Decimal``; no float column anywhere. Constraint names follow one convention so that
migrations are stable on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, Column, String, Text, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.rules.money import from_cents, to_cents

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Money(TypeDecorator[Decimal]):
    """An amount of money stored as integer cents, read back as ``Decimal``."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        if isinstance(value, float):
            raise TypeError("money columns take Decimal, never float")
        return to_cents(Decimal(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return from_cents(int(value))


def money_column(nullable: bool = False) -> Any:
    """A ``Field`` for an amount of money (integer cents in the database)."""
    return Field(sa_type=Money, nullable=nullable)


class Role(StrEnum):
    ADMIN = "admin"
    CLERK = "clerk"
    ASSOCIATION = "association"
    AUDITOR = "auditor"


# --------------------------------------------------------------------------- places


class Municipality(SQLModel, table=True):
    """One of Puerto Rico's municipalities, whose legislature receives petitions."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(120), unique=True, nullable=False))


class District(SQLModel, table=True):
    """A tourism improvement district and the association that runs it."""

    __table_args__ = (UniqueConstraint("municipality_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    municipality_id: int = Field(foreign_key="municipality.id", index=True)
    name: str = Field(max_length=200)
    association_name: str = Field(default="", max_length=200)


# --------------------------------------------------------------------------- people


class User(SQLModel, table=True):
    """An account: argon2 password hash, one role, scoped to a municipality or district."""

    __tablename__ = "user_account"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(sa_column=Column(String(254), unique=True, nullable=False))
    name: str = Field(max_length=200)
    password_hash: str = Field(max_length=255)
    role: str = Field(max_length=20)
    municipality_id: int | None = Field(default=None, foreign_key="municipality.id")
    district_id: int | None = Field(default=None, foreign_key="district.id")
    locale: str = Field(default="es", max_length=5)
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)


class LoginSession(SQLModel, table=True):
    """A server-side login: logging out revokes it, so a stolen cookie stops working."""

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    user_id: int = Field(foreign_key="user_account.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class AuditEvent(SQLModel, table=True):
    """Who did what to which record, when, with the values before and after (JSON)."""

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    actor: str = Field(max_length=254)
    action: str = Field(max_length=80)
    entity_type: str = Field(max_length=60)
    entity_id: str = Field(max_length=60)
    before: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


# --------------------------------------------------------------------------- jobs


class JobRun(SQLModel, table=True):
    """One run of a scheduled job for one scheduled day; unique, so a second scheduler or a
    restart never does the same day's work twice."""

    __table_args__ = (UniqueConstraint("job", "scheduled_day"),)

    id: int | None = Field(default=None, primary_key=True)
    job: str = Field(max_length=80)
    scheduled_day: date
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    status: str = Field(default="running", max_length=20)
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
