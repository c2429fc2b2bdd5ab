"""21 LPRA § 6653(1)–(5), (7): the mayor's petition before the municipal legislature, the
five findings, the ordinance with its required content, and the dates its clocks start
from."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Column, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column


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
    """One of the five factors of § 6653(1)(a)–(e), found favorable or not, with grounds."""

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
    # The formula's named parameters and their values, as JSON ({"budget": "250000.00"}).
    parameters: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, server_default="{}")
    )
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
