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


# --------------------------------------------------------------------------- petitions
# 21 LPRA § 6653(1)–(5), (7): the mayor's petition before the municipal legislature, the five
# findings, the ordinance with its required content, and the dates its clocks start from.


class PetitionState(StrEnum):
    """Where a petition stands: received → under study → ordinance issued | denied → with
    the mayor → approved | vetoed → published."""

    RECEIVED = "received"
    UNDER_STUDY = "under_study"
    ORDINANCE_ISSUED = "ordinance_issued"
    DENIED = "denied"
    WITH_MAYOR = "with_mayor"
    APPROVED = "approved"
    VETOED = "vetoed"
    PUBLISHED = "published"


class Petition(SQLModel, table=True):
    """The mayor's petition to establish a district, as the legislature's clerk records it;
    each transition of its lifecycle keeps its date here."""

    id: int | None = Field(default=None, primary_key=True)
    municipality_id: int = Field(foreign_key="municipality.id", index=True)
    district_name: str = Field(max_length=200)
    petitioner: str = Field(max_length=200)
    received_on: date  # starts the legislature's 90 days, § 6653(2)
    documents: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    state: str = Field(default=PetitionState.RECEIVED.value, max_length=20, index=True)
    study_started_on: date | None = None
    denied_on: date | None = None
    sent_to_mayor_on: date | None = None  # the mayor receives the ordinance: 30 days start
    approved_on: date | None = None  # the mayor approves: the publication week starts
    vetoed_on: date | None = None
    published_on: date | None = None
    newspaper: str = Field(default="", max_length=200)
    published_outside_window: bool = False
    decision_notes: str = Field(
        default="", sa_column=Column(Text, nullable=False, server_default="")
    )
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Finding(SQLModel, table=True):
    """One of the five factors of § 6653(1)(a)–(e), found favourable or not, with grounds."""

    __table_args__ = (UniqueConstraint("petition_id", "factor"),)

    id: int | None = Field(default=None, primary_key=True)
    petition_id: int = Field(foreign_key="petition.id", index=True)
    factor: str = Field(max_length=1)  # "a" … "e"
    favourable: bool
    grounds: str = Field(sa_column=Column(Text, nullable=False))
    recorded_on: date
    updated_at: datetime = Field(default_factory=utcnow)


class Ordinance(SQLModel, table=True):
    """The municipal ordinance that establishes the district, with the content § 6653(3)
    requires, the association § 6653(4) authorizes to collect, and the dates that start the
    later clocks (the mayor's approval, the CRIM copy, the association's receipt)."""

    id: int | None = Field(default=None, primary_key=True)
    petition_id: int = Field(foreign_key="petition.id", unique=True)
    municipality_id: int = Field(foreign_key="municipality.id", index=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    number: str = Field(default="", max_length=80)  # the legislature's ordinance number
    district_name: str = Field(max_length=200)  # § 6653(3)(a)
    expected_amount: Decimal = money_column()  # § 6653(3)(b)
    term_years: int  # § 6653(3)(c)
    formula: str = Field(sa_column=Column(Text, nullable=False))  # § 6653(3)(d), as text
    association_name: str = Field(max_length=200)  # § 6653(4)
    issued_on: date
    approved_on: date | None = None  # by the mayor, § 6653(2)
    crim_copy_sent_on: date | None = None  # § 6653(4)
    received_by_association_on: date | None = None  # starts the 30-day notice, § 6653(5)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class CalendarToken(SQLModel, table=True):
    """A secret for one user's iCalendar subscription URL. Only its SHA-256 is kept; a new
    one replaces (revokes) the old."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
