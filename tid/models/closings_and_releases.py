"""What a property's closing needs (21 LPRA § 6653(8)): the documents the association issues
about what a property owes — a payoff quote good through a date, the lien certificate, the
release of the impost lien — each under a reference a person can quote and a verification
code anyone can check (``/verificar/<code>``) against the archived bytes."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Column, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import Money, money_column


class IssuedDocument(SQLModel, table=True):
    """A document of record issued about one property: ``kind`` is ``payoff``,
    ``lien_certificate`` or ``release``. What it said is kept beside the archived PDF
    (``sha256``): the amounts, the cadastral number as it was, and its lines (JSON: fiscal
    year, due date, impost, surcharge, interest per bill), so that the verification page can
    say it again without the owner's name. A payoff quote is ``settled_entry_id`` once a
    payment covered it (``paid`` is what payments against it brought, ``charges_paid`` the
    part of it booked as late charges)."""

    __tablename__ = "issued_document"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=30)
    reference: str = Field(sa_column=Column(String(30), unique=True, nullable=False))
    code: str = Field(sa_column=Column(String(32), unique=True, nullable=False))
    district_id: int = Field(foreign_key="district.id", index=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    cadastral_number: str = Field(max_length=20)
    issued_on: date
    good_through: date | None = None
    issued_by: str = Field(max_length=254)
    association: str = Field(max_length=200)
    sha256: str = Field(default="", max_length=64)
    secured: Decimal = money_column()
    charges: Decimal = money_column()
    total: Decimal = money_column()
    per_day: Decimal = money_column()
    lines: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    paid: Decimal = Field(default=Decimal("0"), sa_type=Money, nullable=False)
    charges_paid: Decimal = Field(default=Decimal("0"), sa_type=Money, nullable=False)
    settled_entry_id: int | None = Field(default=None, foreign_key="journal_entry.id")
    settled_on: date | None = None
    created_at: datetime = Field(default_factory=utcnow)


class OwnershipTransfer(SQLModel, table=True):
    """A property's change of owner: recorded by the association (the day of the deed, the
    new owner and their mailing address, a note of the deed or of the CRIM's change) or found
    by a roll import that names a new owner for the same cadastral number (``roll_import_id``).
    The debt stays with the property (its lien); the roll line the next notice is addressed
    from takes the new owner, and this record keeps the one before."""

    __tablename__ = "ownership_transfer"
    __table_args__ = (UniqueConstraint("property_id", "roll_import_id"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    transferred_on: date
    previous_owner_names: str = Field(default="", max_length=500)
    previous_mailing_address: str = Field(default="", max_length=800)  # lines joined by "\n"
    new_owner_names: str = Field(max_length=500)
    new_mailing_address: str = Field(default="", max_length=800)
    note: str = Field(default="", max_length=500)  # the deed, or the CRIM's change
    source: str = Field(default="recorded", max_length=20)  # recorded | roll
    roll_import_id: int | None = Field(default=None, foreign_key="roll_import.id")
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)
