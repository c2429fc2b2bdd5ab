"""The formula studies of a petition (21 LPRA § 6653(3)(b), (d)): proposed formulas tried on
a district's roll, or on a roll file uploaded for the study, before the ordinance is voted."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column


class FormulaStudy(SQLModel, table=True):
    """A study saved with a petition: the roll it was tried on (a district's roll of a fiscal
    year, or an uploaded file kept in the archive by its SHA-256), the amount the ordinance
    would expect, the variants tried (JSON: each one's name, formula and parameters), the
    formula they were compared against, the totals found, and the report archived."""

    __tablename__ = "formula_study"

    id: int | None = Field(default=None, primary_key=True)
    petition_id: int = Field(foreign_key="petition.id", index=True)
    title: str = Field(max_length=200)
    source: str = Field(max_length=10)  # "roll" or "file"
    district_id: int | None = Field(default=None, foreign_key="district.id")
    fiscal_year: str = Field(default="", max_length=7)
    file_name: str = Field(default="", max_length=255)
    file_sha256: str = Field(default="", max_length=64)  # the uploaded roll, archived
    expected_amount: Decimal = money_column()  # § 6653(3)(b)
    variants: str = Field(sa_column=Column(Text, nullable=False))
    baseline: str = Field(default="", max_length=20)  # "in_force" or a variant's number
    summary: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    report_sha256: str = Field(default="", max_length=64)  # the study report, archived
    property_count: int = 0
    actor: str = Field(max_length=254)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow)
