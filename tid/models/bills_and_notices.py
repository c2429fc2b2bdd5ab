"""21 LPRA § 6653(3)(d), (5): the yearly billing run that applies the ordinance's formula
to the roll, and each owner's bill; and the notices of the bills.

The association notifies every owner by certified mail of the impost and its due date
(within 30 days of receiving the ordinance, then every later year of the term), with the
consequences of not paying (the lien of § 6653(8)). Each notice's PDF is archived as
mailed; the owner's portal shows exactly those bytes."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, String, Text, UniqueConstraint, event
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import money_column


class BillingRunStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"


class BillingRun(SQLModel, table=True):
    """One billing of a fiscal year's roll by the ordinance's formula (§ 6653(3)(d)). A
    corrected run supersedes the previous one of the same year; both stay."""

    __tablename__ = "billing_run"

    __table_args__ = (UniqueConstraint("district_id", "fiscal_year", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    ordinance_id: int = Field(foreign_key="ordinance.id", index=True)
    fiscal_year: str = Field(max_length=7, index=True)
    version: int  # 1, 2, … per district and fiscal year
    status: str = Field(default=BillingRunStatus.ACTIVE.value, max_length=20, index=True)
    formula: str = Field(sa_column=Column(Text, nullable=False))  # the text used
    parameters: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, server_default="{}")
    )  # JSON {name: "value as text"}
    property_count: int = 0
    total: Decimal = money_column()
    expected_amount: Decimal = money_column()  # the ordinance's, § 6653(3)(b), at run time
    run_on: date  # the association's date of the run
    due_date: date
    fingerprint: str = Field(max_length=64)  # SHA-256 of what the bills say
    warnings: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    supersedes_id: int | None = Field(default=None, foreign_key="billing_run.id")
    superseded_at: datetime | None = None
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


class BillStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"


class Bill(SQLModel, table=True):
    """What one property owes for one fiscal year by one billing run, with how the formula
    reached it. ``mailed_at`` is set when its certified-mail notice goes out (§ 6653(5)); a
    superseded bill stays, pointing to the bill that replaced it."""

    # The unique (run, property) also serves lookups by run; few other indexes, so that
    # the bulk insert of a run stays fast.
    __table_args__ = (
        UniqueConstraint("billing_run_id", "property_id"),
        # The bills made since the journal last booked a district's bills (ledger_state).
        Index("ix_bill_district_id_id", "district_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    billing_run_id: int = Field(foreign_key="billing_run.id")
    district_id: int = Field(foreign_key="district.id", index=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    property_year_id: int = Field(foreign_key="property_year.id")
    fiscal_year: str = Field(max_length=7)
    amount: Decimal = money_column()
    explanation: str = Field(sa_column=Column(Text, nullable=False))  # English
    explanation_es: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # the same as a message (tid/rules/messages.py to_json), said in each reader's language
    explanation_message: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    due_date: date
    status: str = Field(default=BillStatus.ACTIVE.value, max_length=20)
    mailed_at: datetime | None = None  # set by the notices when mailed
    superseded_by_id: int | None = Field(default=None, foreign_key="bill.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)


class NoticeKind(StrEnum):
    INITIAL = "initial"  # the first year of the ordinance: within 30 days of its receipt
    YEARLY = "yearly"  # each later year of the term
    REMAILING = "remailing"  # a returned notice sent again (new number, new article)


class DeliveryStatus(StrEnum):
    DELIVERED = "delivered"
    RETURNED_UNCLAIMED = "returned_unclaimed"
    REFUSED = "refused"
    UNDELIVERABLE = "undeliverable"


class NoticeBatch(SQLModel, table=True):
    """One notice run: the notices of a billing run's bills (or re-mailings), its print file,
    and — once mailed — the mailing date, postage and the certified-mail manifest (PS 3877)."""

    __tablename__ = "notice_batch"
    __table_args__ = (UniqueConstraint("district_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    number: int = 0  # 1, 2, … per district: the number people see ("run #1")
    billing_run_id: int = Field(foreign_key="billing_run.id")
    kind: str = Field(max_length=20)
    issued_on: date
    sender_name: str = Field(max_length=200)
    sender_address: str = Field(sa_column=Column(Text, nullable=False))  # lines, "\n"
    how_to_pay: str = Field(sa_column=Column(Text, nullable=False))  # Spanish (page 1)
    # English (page 2); empty for batches made before it was asked: page 2 repeats page 1's.
    how_to_pay_en: str = Field(
        default="", sa_column=Column(Text, nullable=False, server_default="")
    )
    notice_count: int = 0
    page_count: int = 0
    print_sha256: str = Field(default="", max_length=64)  # the merged print-ready PDF
    mailed_on: date | None = None
    postage: Decimal | None = money_column(nullable=True)  # per piece
    certified_fee: Decimal | None = money_column(nullable=True)  # per piece
    return_receipt_fee: Decimal | None = money_column(nullable=True)  # per piece; None: none
    manifest_sha256: str = Field(default="", max_length=64)
    actor: str = Field(max_length=254)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow)


class Notice(SQLModel, table=True):
    """One owner's certified-mail notice of one bill. What it says is fixed when it is
    rendered (its PDF is archived, ``pdf_sha256``); once mailed the row cannot change at all
    (a guard below refuses the UPDATE). Only the access code's HMAC is kept, never the code."""

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(sa_column=Column(String(32), unique=True, nullable=False))
    number: str = Field(sa_column=Column(String(20), unique=True, nullable=False))
    batch_id: int = Field(foreign_key="notice_batch.id", index=True)
    bill_id: int = Field(foreign_key="bill.id", index=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    fiscal_year: str = Field(max_length=7)
    kind: str = Field(max_length=20)
    owner_name: str = Field(max_length=500)
    mailing_address: str = Field(sa_column=Column(Text, nullable=False))  # lines, "\n"
    amount: Decimal = money_column()
    due_date: date
    issued_on: date
    access_code_hash: str = Field(max_length=64)
    pdf_sha256: str = Field(foreign_key="archived_document.sha256", max_length=64)
    page_count: int
    article_number: str | None = Field(
        default=None, sa_column=Column(String(22), unique=True, nullable=True)
    )
    mailed_on: date | None = Field(default=None, index=True)
    remailing_of_id: int | None = Field(
        default=None, sa_column=Column(ForeignKey("notice.id"), unique=True, nullable=True)
    )
    created_at: datetime = Field(default_factory=utcnow)


@event.listens_for(Notice, "before_update")
def _mailed_notice_is_frozen(_mapper: Any, _connection: Any, target: Notice) -> None:
    """A mailed notice is a legal record: refuse any change to its row."""
    from sqlalchemy import inspect

    history = inspect(target).attrs.mailed_on.history
    before = (history.deleted or history.unchanged or [None])[0]
    if before is not None:
        raise ValueError(f"notice {target.number} was mailed on {before}: it cannot be changed")


class DeliveryEvent(SQLModel, table=True):
    """What the Postal Service reported for a mailed notice (delivered, returned unclaimed,
    refused, undeliverable), imported or entered; the latest is the notice's status."""

    __tablename__ = "delivery_event"
    __table_args__ = (UniqueConstraint("notice_id", "status", "occurred_on"),)

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(foreign_key="notice.id", index=True)
    status: str = Field(max_length=30)
    occurred_on: date
    source: str = Field(default="form", max_length=20)  # form | csv
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)
