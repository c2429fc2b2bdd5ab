"""21 LPRA § 6653(6), (8): the association's special bank account as a balanced,
append-only double-entry journal (balances are derived from it, never stored), the
authorized purposes its money may go to, the bank's reported balances, the late-payment
terms of the ordinance, the register of the other liens on each property, and the
fiscal years closed to new entries."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    DDL,
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    String,
    UniqueConstraint,
    event,
    text,
)
from sqlmodel import Field, SQLModel

from tid.clock import utcnow
from tid.models.column_types import Money, money_column

# Amounts of journal lines are ONE signed column: positive = debit, negative = credit (an
# entry balances when its lines add up to zero). Accounts are codes (see
# tid/services/ledger/accounts.py): "bank", "receivable" (with bill_id), "impost_assessed",
# "impost_revenue", "owner_credit" (with bill_id: the bill the overpayment came with),
# "expense:admin", "expense:purpose:<id>".


class JournalEntry(SQLModel, table=True):
    """One balanced posting to a district's special account. Never updated nor deleted (the
    database refuses both): a mistake is undone by a reversing entry (``reverses_id``)."""

    __tablename__ = "journal_entry"
    # A district's journal in booking order, a page at a time; the one index on its district
    # and booking date (one on the date alone led PostgreSQL to sort a whole day's entries,
    # the 20,000 bills of a billing run, for a page of 25).
    __table_args__ = (
        Index("ix_journal_entry_district_id_entry_date_id", "district_id", "entry_date", "id"),
        Index("ix_journal_entry_district_id_number", "district_id", "number", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    district_id: int = Field(foreign_key="district.id")
    # The entry's number in its district's journal, 1, 2, 3… in the order booked: the number
    # pages, PDFs and CSV files show and a person quotes (the id never reaches a reader).
    number: int | None = Field(default=None)
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
# tid/services/ledger/running.py), so that no page reads the whole journal. They are derived:
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
    # A lien cancelled in the registry (paid off, released by its holder) is kept, with the
    # day and the reason, and no longer ranked; a correction leaves its trail in the audit.
    status: str = Field(default="recorded", max_length=20)  # recorded | cancelled
    cancelled_on: date | None = None
    cancel_reason: str = Field(default="", max_length=500)
    # A lien brought by a district's opening position: cancelled if that position is reversed.
    opening_position_id: int | None = Field(default=None, foreign_key="opening_position.id")


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
