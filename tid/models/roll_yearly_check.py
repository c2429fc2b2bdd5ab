"""The roll's yearly check (21 LPRA § 6653(3)(b), (3)(d)): each change of a fiscal year's
roll against last year's, answered by the association; the district's settings of the check;
and the verified billing statement signed once every change is answered."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Column, Index, String, Text
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column


class RollChange(SQLModel, table=True):
    """One change of a year's roll (tid/rules/roll_changes.py): its kind, the cadastral
    numbers it concerns last year and this year (JSON lists), the figures side by side, the
    impost each year under the ordinance's formula (None: no ordinance that year) and its
    answer: ``open``, ``accepted``, ``sent_back`` (``treatment`` ``exclude``: kept out of
    billing, or ``last_year``: billed at last year's figures), ``corrected`` (the CRIM's answer
    was imported) or ``withdrawn`` (a later file of the year no longer shows it)."""

    __tablename__ = "roll_change"

    __table_args__ = (
        Index("ix_roll_change_district_id_fiscal_year", "district_id", "fiscal_year", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id")
    fiscal_year: str = Field(max_length=7)
    roll_import_id: int = Field(foreign_key="roll_import.id")
    kind: str = Field(max_length=20)
    number: str = Field(max_length=20)  # the first number it concerns (for sorting, search)
    numbers_before: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    numbers_after: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    before: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    after: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    impost_before: Decimal | None = money_column(nullable=True)
    impost_after: Decimal | None = money_column(nullable=True)
    owed: Decimal | None = money_column(nullable=True)  # a gone property's balance
    status: str = Field(default="open", max_length=12)
    treatment: str = Field(default="", max_length=12)
    reason: str = Field(default="", max_length=1000)
    answered_by: str = Field(default="", max_length=254)
    answered_at: datetime | None = None
    corrected_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class RollCheckSetting(SQLModel, table=True):
    """A district's roll check: whether billing waits for it, and the share by which an
    assessed value must move to be a change (percent)."""

    __tablename__ = "roll_check_setting"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    enabled: bool = True
    threshold_percent: int = 25
    updated_at: datetime = Field(default_factory=utcnow)
    actor: str = Field(default="", max_length=254)


class RollStatement(SQLModel, table=True):
    """A verified billing statement of a district's fiscal year: what it said (the roll's
    totals, the changes accepted and sent back, the billing it authorizes: ``figures``,
    JSON), signed by a person, archived as issued (``sha256``) under a reference and a
    verification code. ``checked`` False: the district's check was off."""

    __tablename__ = "roll_statement"

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)
    reference: str = Field(sa_column=Column(String(30), unique=True, nullable=False))
    code: str = Field(sa_column=Column(String(32), unique=True, nullable=False))
    signed_by: str = Field(max_length=254)
    signed_on: date
    checked: bool = True
    properties: int = 0
    assessed_value: Decimal = money_column()
    billed_count: int = 0
    billed_total: Decimal = money_column()
    expected_amount: Decimal = money_column()
    figures: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    sha256: str = Field(default="", max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
