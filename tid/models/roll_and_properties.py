"""21 LPRA § 6653(3)(d): the roll of the district's real property per fiscal year — each
property, each import of a roll file, and each property's row of a year's roll."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column, quantity_column


class Property(SQLModel, table=True):
    """A parcel of real property in a district, by its CRIM cadastral number
    (``NNN-NNN-NNN-NN``, optionally ``-NNN``). The roll of each year is in PropertyYear."""

    __table_args__ = (UniqueConstraint("district_id", "cadastral_number"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    cadastral_number: str = Field(max_length=20)
    physical_address: str = Field(default="", max_length=300)  # the latest roll's
    created_at: datetime = Field(default_factory=utcnow)


class RollImport(SQLModel, table=True):
    """One imported roll file. The SHA-256 of its bytes is unique per district and fiscal
    year, so importing the same file again changes nothing."""

    __tablename__ = "roll_import"

    __table_args__ = (UniqueConstraint("district_id", "fiscal_year", "sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)  # "2026-27"
    file_name: str = Field(max_length=255)
    sha256: str = Field(max_length=64)
    rows: int
    added: int = 0  # property-years new with this file
    changed: int = 0  # property-years of the same FY that this file corrected
    removed: int = 0  # property-years of the same FY absent from this file
    imported_at: datetime = Field(default_factory=utcnow)
    actor: str = Field(max_length=254)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")


class PropertyYear(SQLModel, table=True):
    """A property as the roll of one fiscal year describes it: owners, mailing address
    (with the Puerto Rico urbanization line), assessed value and the attributes the formula
    may use. A new year's roll adds rows, so every year's owner and value stay visible; a
    corrected file for the same year updates its rows with an audit event each."""

    __tablename__ = "property_year"

    __table_args__ = (
        UniqueConstraint("property_id", "fiscal_year"),
        # a year's roll of a district: its count, read from the index alone
        Index("ix_property_year_district_id_fiscal_year", "district_id", "fiscal_year", "in_roll"),
    )

    id: int | None = Field(default=None, primary_key=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7, index=True)
    roll_import_id: int = Field(foreign_key="roll_import.id", index=True)
    source_row: int = 0  # the row of the file it came from (header = row 1)
    in_roll: bool = True  # False: a corrected file of the same year no longer lists it
    owner_names: str = Field(max_length=500)  # one or more, separated by "; "
    mailing_urbanization: str = Field(default="", max_length=120)  # "URB LAS LOMAS"
    mailing_line1: str = Field(default="", max_length=200)  # street and number, PO box
    mailing_line2: str = Field(default="", max_length=200)
    mailing_city: str = Field(default="", max_length=80)
    mailing_state: str = Field(default="PR", max_length=2)
    mailing_zip: str = Field(default="", max_length=10)  # "00901" or "00901-1234"
    physical_address: str = Field(default="", max_length=300)
    assessed_value: Decimal = money_column()
    land_area: Decimal | None = quantity_column()
    built_area: Decimal | None = quantity_column()
    use_class: str = Field(default="", max_length=40)
    rooms: int | None = None
    frontage: Decimal | None = quantity_column()
    attributes: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, server_default="{}")
    )  # JSON {name: "decimal as text"}: the file's extra numeric columns
    updated_at: datetime = Field(default_factory=utcnow)
