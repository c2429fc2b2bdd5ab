"""21 LPRA § 6653(6), (8): a district that moved in from its earlier books — its opening
position as of the cut-over day (the files it came from, the totals the association
confirmed), what each opened bill brought with it (the notice it was mailed under, what was
paid on it and the late charges accrued before), and the totals of the fiscal years before
it, as the earlier books closed them."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column


class OpeningPosition(SQLModel, table=True):
    """A district's opening position, booked once as opening entries dated ``cut_over``.
    ``fingerprint`` is the SHA-256 of its files' hashes: the same files loaded again book
    nothing. A position found wrong is reversed as one (``reversed_at``, by whom, why): its
    row stays, and a corrected position is booked after it; a district has at most one
    position not reversed."""

    __tablename__ = "opening_position"

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    cut_over: date
    fingerprint: str = Field(max_length=64)
    files: str = Field(sa_column=Column(Text, nullable=False))  # JSON [{kind, name, sha256, rows}]
    totals: str = Field(sa_column=Column(Text, nullable=False))  # JSON {key: "amount"} confirmed
    bills: int = 0
    actor: str = Field(max_length=254)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow)
    reversed_at: datetime | None = None
    reversed_by: str = Field(default="", max_length=254)
    reversal_reason: str = Field(
        default="", sa_column=Column(Text, nullable=False, server_default="")
    )


class OpeningBill(SQLModel, table=True):
    """What an opened bill brought from the earlier books: billed and paid before the
    cut-over, the late charges accrued to that day, the certified-mail notice it was mailed
    under (its number, article number and mailing date, where known)."""

    __tablename__ = "opening_bill"
    __table_args__ = (
        Index("ix_opening_bill_district_id_notice_number", "district_id", "notice_number"),
    )

    bill_id: int = Field(foreign_key="bill.id", primary_key=True)
    district_id: int = Field(foreign_key="district.id")
    cut_over: date
    billed: Decimal = money_column()
    paid: Decimal = money_column()
    late_charges: Decimal = money_column()  # accrued to the cut-over day by the earlier books
    notice_number: str = Field(default="", max_length=40)
    article_number: str = Field(default="", max_length=40)
    mailed_on: date | None = None


class OpeningYear(SQLModel, table=True):
    """A fiscal year before the cut-over as the earlier books closed it: impost billed,
    impost collected, administrative spending."""

    __tablename__ = "opening_year"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    fiscal_year: str = Field(max_length=7, primary_key=True)
    billed: Decimal = money_column()
    collected: Decimal = money_column()
    admin_spending: Decimal = money_column()
