"""The places (municipalities and their districts) and the accounts of the people who use
the application, each with one role."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


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
    # Two-factor sign-in (TOTP, RFC 6238): the shared secret (base32) once enrolment is
    # confirmed, and the last time step accepted (a code is never accepted twice).
    totp_secret: str | None = Field(default=None, max_length=64)
    totp_enabled_at: datetime | None = None
    totp_last_step: int | None = None
    password_changed_at: datetime | None = None
