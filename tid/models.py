"""The tables. Money is integer cents behind :class:`Money`, which reads and writes
``Decimal``; no float column anywhere. Constraint names follow one convention so that
migrations are stable on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    DDL,
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    event,
    text,
)
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
    # Two-factor sign-in (TOTP, RFC 6238): the shared secret (base32) once enrolment is
    # confirmed, and the last time step accepted (a code is never accepted twice).
    totp_secret: str | None = Field(default=None, max_length=64)
    totp_enabled_at: datetime | None = None
    totp_last_step: int | None = None
    password_changed_at: datetime | None = None


class LoginSession(SQLModel, table=True):
    """A server-side login: logging out revokes it, so a stolen cookie stops working. It
    also ends after an idle time and an absolute lifetime (settings)."""

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    user_id: int = Field(foreign_key="user_account.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
    last_seen_at: datetime | None = None
    address: str = Field(default="", max_length=64)
    user_agent: str = Field(default="", max_length=200)


class Throttle(SQLModel, table=True):
    """Failed attempts under one key ("login-account:<email>", "login-address:<ip>",
    "portal-address:<ip>", …): the limits live in the database, so they hold across
    workers, and each attempt is checked and counted under a row lock."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(sa_column=Column(String(200), unique=True, nullable=False))
    failures: int = 0
    window_start: datetime = Field(default_factory=utcnow)
    last_failure_at: datetime | None = None
    blocked_until: datetime | None = Field(default=None, index=True)


class KnownDevice(SQLModel, table=True):
    """A browser that signed in to the account before (it holds a signed cookie with a random
    id; only the id's SHA-256 is kept): its failed sign-ins count against its own allowance,
    and no one else's failures make it wait."""

    __tablename__ = "known_device"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime = Field(default_factory=utcnow, index=True)


class PasswordReset(SQLModel, table=True):
    """A "forgot password" link: only the SHA-256 of its token is kept; used once, expires."""

    __tablename__ = "password_reset"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class RecoveryCode(SQLModel, table=True):
    """A one-time recovery code for two-factor sign-in (only its SHA-256 is kept)."""

    __tablename__ = "recovery_code"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    code_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    used_at: datetime | None = None


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


# ------------------------------------------------------------------ the property roll and billing
# 21 LPRA § 6653(3)(d), (5): the roll of the district's real property per fiscal year, the
# yearly billing run that applies the ordinance's formula to it, and each owner's bill.


class Quantity(TypeDecorator[Decimal]):
    """A non-money quantity (an area, a frontage) stored exactly as integer ten-thousandths,
    read back as ``Decimal`` (up to four places); never a float."""

    impl = BigInteger
    cache_ok = True
    SCALE = 10_000

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        if isinstance(value, float):
            raise TypeError("quantity columns take Decimal, never float")
        scaled = Decimal(value) * self.SCALE
        if scaled != scaled.to_integral_value():
            raise ValueError(f"{value} has more than four decimals")
        return int(scaled)

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        # An exact quotient: 1086.78 stays 1086.78, 1000 stays 1000 (no trailing zeros).
        return Decimal(int(value)) / self.SCALE


def quantity_column(nullable: bool = True) -> Any:
    """A ``Field`` for an exact quantity with up to four decimals (areas, frontage)."""
    return Field(default=None, sa_type=Quantity, nullable=nullable)


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


# --------------------------------------------------------------------------- the special account
# 21 LPRA § 6653(6), (8): the association's special bank account as a balanced, append-only
# double-entry journal (balances are derived from it, never stored), the authorized purposes
# its money may go to, the bank's reported balances, the late-payment terms of the ordinance
# and the register of the other liens on each property.
#
# Amounts of journal lines are ONE signed column: positive = debit, negative = credit (an
# entry balances when its lines add up to zero). Accounts are codes (see tid/services/ledger.py):
# "bank", "receivable" (with bill_id), "impost_assessed", "impost_revenue", "owner_credit"
# (with bill_id: the bill the overpayment came with), "expense:admin", "expense:purpose:<id>".


class JournalEntry(SQLModel, table=True):
    """One balanced posting to a district's special account. Never updated nor deleted (the
    database refuses both): a mistake is undone by a reversing entry (``reverses_id``)."""

    __tablename__ = "journal_entry"
    # A district's journal in booking order, a page at a time; the one index on its district
    # and booking date (one on the date alone led PostgreSQL to sort a whole day's entries,
    # the 20,000 bills of a billing run, for a page of 25).
    __table_args__ = (
        Index("ix_journal_entry_district_id_entry_date_id", "district_id", "entry_date", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id")
    entry_date: date  # the booking date (bank date of a deposit)
    kind: str = Field(max_length=30)  # bill, payment, expenditure, reversal, bill_superseded
    memo: str = Field(default="", max_length=500)
    # The same payment posted twice (a double click, a rerun import, a crash) is booked once.
    idempotency_key: str = Field(sa_column=Column(String(200), unique=True, nullable=False))
    reverses_id: int | None = Field(
        default=None, sa_column=Column(ForeignKey("journal_entry.id"), unique=True, nullable=True)
    )
    actor: str = Field(max_length=254)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow)


class JournalLine(SQLModel, table=True):
    """One line of an entry: an account, optionally the bill it concerns, a signed amount
    (debit positive, credit negative; never zero)."""

    __tablename__ = "journal_line"
    __table_args__ = (CheckConstraint("amount <> 0", name="nonzero"),)

    id: int | None = Field(default=None, primary_key=True)
    entry_id: int = Field(foreign_key="journal_entry.id", index=True)
    account: str = Field(max_length=60, index=True)
    bill_id: int | None = Field(default=None, foreign_key="bill.id", index=True)
    amount: Decimal = money_column()

    @property
    def debit(self) -> Decimal | None:
        return self.amount if self.amount > 0 else None

    @property
    def credit(self) -> Decimal | None:
        return -self.amount if self.amount < 0 else None


# Running balances of the journal, written in the same transaction as each entry (see
# tid/services/ledger.py), so that no page reads the whole journal. They are derived:
# ``tid account verify`` recomputes them from the journal and reports any difference.


class LedgerDay(SQLModel, table=True):
    """The sum of one account's journal lines booked on one day (by booking date)."""

    __tablename__ = "ledger_day"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    account: str = Field(max_length=60, primary_key=True)
    day: date = Field(primary_key=True)
    amount: Decimal = money_column()


class JournalDay(SQLModel, table=True):
    """How many entries of one kind were booked on one day (by booking date): the journal's
    pages count a year's entries from here, a row a day and kind instead of one an entry."""

    __tablename__ = "journal_day"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    day: date = Field(primary_key=True)
    kind: str = Field(max_length=30, primary_key=True)
    entries: int = Field(sa_type=BigInteger)


class BillLedger(SQLModel, table=True):
    """A bill's running balances: what is still owed on it (receivable, debit positive) and
    the owner's credit held with it (owner_credit, credit negative)."""

    __tablename__ = "bill_ledger"
    # What is owed in a district (delinquency, aging): a range of the first index. The second
    # holds only the bills with something owed, in the order the delinquency lists them
    # (oldest due first), with what each owes: its first page, its count and its total are
    # read from the index alone, however many bills the district has made over the years.
    __table_args__ = (
        Index("ix_bill_ledger_district_id_receivable", "district_id", "receivable"),
        Index(
            "ix_bill_ledger_owed",
            "district_id",
            "due_date",
            "bill_id",
            "receivable",
            postgresql_where=text("receivable > 0"),
            sqlite_where=text("receivable > 0"),
        ),
    )

    bill_id: int = Field(foreign_key="bill.id", primary_key=True)
    district_id: int = Field(foreign_key="district.id")
    due_date: date  # the bill's (a bill is never changed: a new bill supersedes it)
    receivable: Decimal = money_column()
    owner_credit: Decimal = money_column()


class OwedDay(SQLModel, table=True):
    """The bills with something owed that fall due on one day: how many, and what they owe.
    The delinquency's and the aging's counts and totals read a row a due date (a district
    has one or two a year) instead of one a bill owed."""

    __tablename__ = "owed_day"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    due_date: date = Field(primary_key=True)
    bills: int = Field(sa_type=BigInteger)
    receivable: Decimal = money_column()


class LedgerState(SQLModel, table=True):
    """Per district: every bill with an id up to ``bills_through`` has been booked in the
    journal (or needs no booking), so a posting looks only at the bills made since."""

    __tablename__ = "ledger_state"

    district_id: int = Field(foreign_key="district.id", primary_key=True)
    bills_through: int = Field(default=0, sa_type=BigInteger)


# The database refuses UPDATE and DELETE (and TRUNCATE on PostgreSQL) on journal rows. These
# run when the tables are created (below) and are what the Alembic migration must run too,
# after creating journal_line (and JOURNAL_TRIGGERS_DROP_SQL in its downgrade, first):
#     for statement in JOURNAL_TRIGGERS_SQL[op.get_bind().dialect.name]:
#         op.execute(statement)
JOURNAL_TRIGGERS_SQL: dict[str, tuple[str, ...]] = {
    "sqlite": tuple(
        f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END"
        for table in ("journal_entry", "journal_line")
        for op in ("UPDATE", "DELETE")
    ),
    "postgresql": (
        "CREATE OR REPLACE FUNCTION journal_append_only() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP; END $$",
        *(
            stmt
            for table in ("journal_entry", "journal_line")
            for stmt in (
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION journal_append_only()",
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only()",
            )
        ),
    ),
}


JOURNAL_TRIGGERS_DROP_SQL: dict[str, tuple[str, ...]] = {
    "sqlite": tuple(
        f"DROP TRIGGER IF EXISTS {table}_no_{op}"
        for table in ("journal_entry", "journal_line")
        for op in ("update", "delete")
    ),
    "postgresql": (
        *(
            f"DROP TRIGGER IF EXISTS {table}_{name} ON {table}"
            for table in ("journal_entry", "journal_line")
            for name in ("append_only", "no_truncate")
        ),
        "DROP FUNCTION IF EXISTS journal_append_only()",
    ),
}

# journal_line references journal_entry, so both tables exist when journal_line is created.
for _dialect, _statements in JOURNAL_TRIGGERS_SQL.items():
    for _statement in _statements:
        event.listen(
            JournalLine.__table__,  # type: ignore[attr-defined]
            "after_create",
            DDL(_statement.replace("%", "%%")).execute_if(dialect=_dialect),  # type: ignore[no-untyped-call]
        )


class AuthorizedPurpose(SQLModel, table=True):
    """A purpose the district's ordinance authorizes its impost revenue to be spent on
    (§ 6653(6)), as the association's administrator records it. Retired, never deleted."""

    __tablename__ = "authorized_purpose"
    __table_args__ = (UniqueConstraint("district_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    name: str = Field(max_length=200)
    ordinance_reference: str = Field(default="", max_length=200)  # the article that says so
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)


class Expenditure(SQLModel, table=True):
    """The document behind an expenditure entry: payee, what for, and either an authorized
    purpose or administrative (§ 6653(6): at most the cap rate of the revenues collected)."""

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    entry_id: int = Field(foreign_key="journal_entry.id", unique=True)
    spent_on: date
    payee: str = Field(max_length=200)
    description: str = Field(default="", max_length=500)
    reference: str = Field(default="", max_length=100)  # check or transfer number
    amount: Decimal = money_column()
    administrative: bool = False
    purpose_id: int | None = Field(default=None, foreign_key="authorized_purpose.id")


class BankBalance(SQLModel, table=True):
    """The balance the bank reports for the special account at a date (monthly statement),
    checked against the journal's bank balance at that date."""

    __tablename__ = "bank_balance"
    __table_args__ = (UniqueConstraint("district_id", "as_of"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    as_of: date
    balance: Decimal = Field(sa_type=Money, nullable=False)  # may be negative (overdrawn)
    note: str = Field(default="", max_length=300)
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


class LateChargeTerms(SQLModel, table=True):
    """Surcharge and interest on a late impost, if the district's ordinance sets them. Owed
    but not secured by the impost lien (§ 6653(8), last sentence). Rates are exact decimals
    kept as text ("0.10" = 10%)."""

    __tablename__ = "late_charge_terms"

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", unique=True)
    surcharge_rate: str = Field(default="0", max_length=20)  # once, on the unpaid impost
    annual_interest_rate: str = Field(default="0", max_length=20)  # simple, per day late / 365
    ordinance_reference: str = Field(default="", max_length=200)
    updated_at: datetime = Field(default_factory=utcnow)


class PropertyLien(SQLModel, table=True):
    """Another lien recorded on a property (mortgage, judgment, fiscal lien …), ranked
    against the impost lien by 21 LPRA § 6653(8) (tid/rules/liens.py)."""

    __tablename__ = "property_lien"

    id: int | None = Field(default=None, primary_key=True)
    property_id: int = Field(foreign_key="property.id", index=True)
    kind: str = Field(max_length=40)  # a kind of tid.rules.liens.KINDS other than tid_impost
    holder: str = Field(max_length=200)
    constituted_on: date
    amount: Decimal = money_column()
    reference: str = Field(default="", max_length=200)  # registry entry, case number
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


# ------------------------------------------------------------- notices and certified mail
# 21 LPRA § 6653(5): the association notifies every owner by certified mail of the impost and
# its due date (within 30 days of receiving the ordinance, then every later year of the term),
# with the consequences of not paying (the lien of § 6653(8)). Each notice's PDF is archived
# as mailed; the owner's portal shows exactly those bytes.


class NoticeKind(StrEnum):
    INITIAL = "initial"  # the first year of the ordinance: within 30 days of its receipt
    YEARLY = "yearly"  # each later year of the term
    REMAILING = "remailing"  # a returned notice sent again (new number, new article)


class DeliveryStatus(StrEnum):
    DELIVERED = "delivered"
    RETURNED_UNCLAIMED = "returned_unclaimed"
    REFUSED = "refused"
    UNDELIVERABLE = "undeliverable"


class ArchivedDocument(SQLModel, table=True):
    """The bytes of a document as it was issued (a notice, a print file, a manifest), keyed
    by their SHA-256: written once, never changed. Kept in the database so that every worker
    and every backup has the same archive."""

    __tablename__ = "archived_document"

    sha256: str = Field(sa_column=Column(String(64), primary_key=True))
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    size: int
    media_type: str = Field(default="application/pdf", max_length=60)
    created_at: datetime = Field(default_factory=utcnow)


@event.listens_for(ArchivedDocument, "before_update")
def _archive_is_write_once(_mapper: Any, _connection: Any, target: ArchivedDocument) -> None:
    """An archived document is what was issued: it is never rewritten."""
    raise ValueError(f"archived document {target.sha256} cannot be changed")


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


class PortalAttempt(SQLModel, table=True):
    """A failed look-up in the owner's portal, by client address and notice number: the
    rate limit counts these in the database, so it holds across workers."""

    __tablename__ = "portal_attempt"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    client: str = Field(max_length=64, index=True)
    notice_number: str = Field(max_length=40, index=True)


class RequestCount(SQLModel, table=True):
    """Requests of one client in one minute, counted in the database so that every worker
    sees the same count (the public calculators' rate limit)."""

    __tablename__ = "request_count"

    key: str = Field(max_length=120, primary_key=True)
    window: int = Field(primary_key=True)  # whole minutes since 1970-01-01 UTC
    count: int = Field(default=0)


class PortalSession(SQLModel, table=True):
    """An owner's visit to the portal, kept on the server: the cookie holds only its token;
    it expires, and leaving revokes it (a copy of the cookie then opens nothing)."""

    __tablename__ = "portal_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    notice_ids: str = Field(sa_column=Column(Text, nullable=False))  # "12,15"
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class HeavyWork(SQLModel, table=True):
    """Anonymous heavy work under way (a calculator's computation or document, a portal PDF),
    one row per client, so that every web worker sees how many run at once and a client runs
    one at a time. A row past ``until`` (its worker died) no longer counts."""

    __tablename__ = "heavy_work"

    client: str = Field(max_length=120, primary_key=True)
    token: str = Field(max_length=64)
    until: datetime = Field(index=True)


class FiscalYearLock(SQLModel, table=True):
    """A closed fiscal year of a district's special account, locked by an administrator
    after the auditor's statement was issued: no entry may be booked on a date in it."""

    __tablename__ = "fiscal_year_lock"
    __table_args__ = (UniqueConstraint("district_id", "fiscal_year"),)

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id", index=True)
    fiscal_year: str = Field(max_length=7)  # "2025-26"
    note: str = Field(default="", max_length=300)
    actor: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow)


# --------------------------------------------------------------------------- background jobs


class JobState(StrEnum):
    """queued → running → done | failed (a running job whose worker died goes back to queued)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Job(SQLModel, table=True):
    """One piece of long work a user started from the web (a notice run, a billing run…),
    run by ``tid worker``. ``token`` is the form's own token, so a second click or a reload
    finds this row instead of starting the work again. The work and ``state = done`` are
    committed in one transaction: a job is either wholly done or has left nothing."""

    __table_args__ = (UniqueConstraint("token"),)

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(max_length=64)
    kind: str = Field(max_length=40)
    target: str = Field(default="", max_length=80, index=True)  # what it works on: "run:12"
    district_id: int | None = Field(default=None, foreign_key="district.id", index=True)
    user_id: int | None = Field(default=None, foreign_key="user_account.id")
    actor: str = Field(max_length=254)
    locale: str = Field(default="es", max_length=5)
    params: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    state: str = Field(default=JobState.QUEUED.value, max_length=10, index=True)
    done: int = 0
    total: int = 0
    attempts: int = 0
    worker: str = Field(default="", max_length=120)  # host:pid of the worker running it
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result_url: str = Field(default="", max_length=300)
    result_label: str = Field(default="", max_length=120)  # a msgid
    result_sha256: str = Field(default="", max_length=64)  # an archived document, if any
    error: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    error_params: str = Field(
        default="{}", sa_column=Column(Text, nullable=False, server_default="{}")
    )


class WorkerHeartbeat(SQLModel, table=True):
    """A ``tid worker`` says it is alive every few seconds (``/readyz`` wants one seen in the
    last minute; a running job whose worker fell silent is queued again)."""

    __tablename__ = "worker_heartbeat"

    worker: str = Field(sa_column=Column(String(120), primary_key=True))
    host: str = Field(max_length=100)
    pid: int
    started_at: datetime = Field(default_factory=utcnow)
    seen_at: datetime = Field(default_factory=utcnow, index=True)


# The task queue's own tables when the database is PostgreSQL and no Redis is configured
# (tid/queue.py: Huey's storage on the application's database, SELECT … FOR UPDATE SKIP
# LOCKED). On SQLite the queue is a SqliteHuey file in the instance folder instead.


class QueueTask(SQLModel, table=True):
    __tablename__ = "queue_task"

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60, index=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    priority: int = 0


class QueueSchedule(SQLModel, table=True):
    __tablename__ = "queue_schedule"

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60, index=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    run_at_us: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))  # epoch µs


class QueueResult(SQLModel, table=True):
    __tablename__ = "queue_result"
    __table_args__ = (UniqueConstraint("queue", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    queue: str = Field(max_length=60)
    key: str = Field(max_length=200)
    value: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
