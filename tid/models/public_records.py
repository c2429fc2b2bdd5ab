"""What the public pages keep of their own: which fiscal years of a district's special account
an association or the clerk chose to publish (or to withdraw), and a counter per district
that every change of its public figures moves, so that every web worker knows its cached
pages of the district are stale."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow


class PublishedYear(SQLModel, table=True):
    """The choice made for one fiscal year's figures: published (true) or withdrawn (false).
    Without a row, a year is public once it is locked (its statement issued)."""

    __tablename__ = "published_year"
    __table_args__ = (UniqueConstraint("district_id", "fiscal_year"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)  # "2025-26"
    published: bool
    actor: str = Field(max_length=254)
    updated_at: datetime = Field(default_factory=utcnow)


class PublicVersion(SQLModel, table=True):
    """A district's public version: one more each time a booking, a billing run, a step of
    its petition, a document or a publishing choice changes what its public pages show."""

    __tablename__ = "public_version"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    version: int = Field(default=0, sa_type=BigInteger)


class PublishedDocument(SQLModel, table=True):
    """A document of record a district published (its yearly statement's figures, a report),
    as archived under its SHA-256 when it was published. Withdrawing it takes it off the
    public side (the archive keeps it); both are kept in the history."""

    __tablename__ = "published_document"
    __table_args__ = (UniqueConstraint("district_id", "sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)  # "2025-26"
    kind: str = Field(max_length=40)  # a name of tid.documents.KINDS
    title: str = Field(max_length=200)
    language: str = Field(max_length=2)  # "es" or "en"
    sha256: str = Field(foreign_key="archived_document.sha256", max_length=64)
    media_type: str = Field(max_length=60)
    size: int
    actor: str = Field(max_length=254)
    published_at: datetime = Field(default_factory=utcnow)
    withdrawn_at: datetime | None = None
    withdrawn_by: str = Field(default="", max_length=254)


class PublicFigures(SQLModel, table=True):
    """A district's public figures as computed for one version of the district (a fiscal
    year's statement figures, its months, the roll by year), kept for every web worker: a
    public page reads them here instead of computing them from the journal again."""

    __tablename__ = "public_figures"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    name: str = Field(max_length=40, primary_key=True)  # "roll", "year:2025-26", …
    version: int = Field(sa_type=BigInteger)
    body: str = Field(sa_column=Column(Text, nullable=False))
    computed_at: datetime = Field(default_factory=utcnow)
