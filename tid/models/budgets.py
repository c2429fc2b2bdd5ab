"""21 LPRA § 6653(6): the association's budget of a fiscal year — the money it expects (the
impost it expects to collect, other income, the year before's carry-over) and its spending
by each purpose the ordinance authorizes plus administration (within the cap) — drafted,
approved by the board, amended only by a recorded amendment; what is committed against a
line before it is spent; and the history of every change."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import Money, money_column


class Budget(SQLModel, table=True):
    """A district's budget of one fiscal year: a draft until the board approves it, then
    changed only by amendments (``amendments`` counts them)."""

    __tablename__ = "budget"
    __table_args__ = (UniqueConstraint("district_id", "fiscal_year"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)  # "2026-27"
    status: str = Field(default="draft", max_length=20)  # draft | approved
    billed: Decimal = money_column()  # the impost billed (or expected to be) in the year
    collection_rate: str = Field(default="1", max_length=20)  # exact decimal, "0.92"
    rate_reason: str = Field(default="", max_length=500)  # why not the past years' rate
    expected_collections: Decimal = money_column()  # billed × collection rate, to the cent
    other_income: Decimal = money_column()
    carry_over: Decimal = Field(sa_type=Money, nullable=False)  # may be negative (a deficit)
    approved_on: date | None = None
    minutes: str = Field(default="", max_length=300)  # the board's minutes that approved it
    amendments: int = 0
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class BudgetLine(SQLModel, table=True):
    """One line of a budget: an authorized purpose (``purpose_id``) or administration."""

    __tablename__ = "budget_line"
    __table_args__ = (UniqueConstraint("budget_id", "purpose_id", "administrative"),)

    id: int | None = Field(default=None, primary_key=True)
    budget_id: int = Field(foreign_key="budget.id", index=True)
    purpose_id: int | None = Field(default=None, foreign_key="authorized_purpose.id")
    administrative: bool = False
    amount: Decimal = money_column()


class BudgetCommitment(SQLModel, table=True):
    """Money promised against a budget line (a contract, a purchase order) and not yet
    spent; ``settled_on`` once the expenditure that pays it is booked (or it is dropped)."""

    __tablename__ = "budget_commitment"

    id: int | None = Field(default=None, primary_key=True)
    budget_line_id: int = Field(foreign_key="budget_line.id", index=True)
    committed_on: date
    payee: str = Field(max_length=200)
    amount: Decimal = money_column()
    description: str = Field(default="", max_length=500)
    settled_on: date | None = None
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


class BudgetChange(SQLModel, table=True):
    """One step of a budget's history — drafted, revised (as a draft), approved, amended,
    carried over — with its reason and the budget as it stood after (JSON)."""

    __tablename__ = "budget_change"

    id: int | None = Field(default=None, primary_key=True)
    budget_id: int = Field(foreign_key="budget.id", index=True)
    kind: str = Field(max_length=20)  # drafted | revised | approved | amended | carried
    changed_on: date
    reason: str = Field(default="", max_length=500)
    figures: str = Field(sa_column=Column(Text, nullable=False))  # JSON: the budget after
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)
