"""The tables. Money is integer cents behind :class:`Money`, which reads and writes
``Decimal``; no float column anywhere. Constraint names follow one convention so that
migrations are stable on SQLite and PostgreSQL alike.

One module per area: :mod:`.places_and_users`, :mod:`.sign_in_and_limits`,
:mod:`.petitions_and_ordinances`, :mod:`.roll_and_properties`, :mod:`.bills_and_notices`,
:mod:`.account_and_journal`, :mod:`.jobs_audit_and_documents`, :mod:`.public_records`,
:mod:`.owner_contact`, :mod:`.opening_position`, :mod:`.budgets` and
:mod:`.roll_yearly_check`,
on the column types and the naming convention of :mod:`.column_types`. Every table is
imported here, so that ``SQLModel.metadata`` (and Alembic's autogenerate,
migrations/env.py) sees them all.
"""

from __future__ import annotations

# The naming convention of constraints is set before any table is defined.
from tid.models.column_types import Money, Quantity, money_column, quantity_column

# isort: split
from tid.models.account_and_journal import (
    JOURNAL_TRIGGERS_DROP_SQL,
    JOURNAL_TRIGGERS_SQL,
    AuthorizedPurpose,
    BankBalance,
    BillLedger,
    Expenditure,
    FiscalYearLock,
    JournalDay,
    JournalEntry,
    JournalLine,
    LateChargeTerms,
    LedgerDay,
    LedgerState,
    OwedDay,
    PropertyLien,
)
from tid.models.bills_and_notices import (
    Bill,
    BillingRun,
    BillingRunStatus,
    BillStatus,
    DeliveryEvent,
    DeliveryStatus,
    Notice,
    NoticeBatch,
    NoticeKind,
)
from tid.models.budgets import Budget, BudgetChange, BudgetCommitment, BudgetLine
from tid.models.closings_and_releases import IssuedDocument, OwnershipTransfer
from tid.models.formula_studies import FormulaStudy
from tid.models.jobs_audit_and_documents import (
    ArchivedDocument,
    AuditEvent,
    InstallationCheck,
    Job,
    JobRun,
    JobState,
    QueueResult,
    QueueSchedule,
    QueueTask,
    SchedulerHeartbeat,
    WorkerHeartbeat,
)
from tid.models.legislative_file import (
    CrimTransmittal,
    DocumentVersion,
    PetitionDocument,
    SearchEntry,
    StoredFile,
)
from tid.models.opening_position import OpeningBill, OpeningPosition, OpeningYear
from tid.models.owner_contact import OwnerEmail, OwnerMessage
from tid.models.petitions_and_ordinances import (
    CalendarToken,
    Finding,
    Ordinance,
    Petition,
    PetitionState,
)
from tid.models.places_and_users import District, Municipality, Role, User
from tid.models.public_records import (
    PublicFigures,
    PublicVersion,
    PublishedDocument,
    PublishedYear,
)
from tid.models.reforms import SavedReform
from tid.models.roll_and_properties import Property, PropertyYear, RollImport
from tid.models.roll_yearly_check import RollChange, RollCheckSetting, RollStatement
from tid.models.sign_in_and_limits import (
    HeavyWork,
    KnownDevice,
    LoginSession,
    PasswordReset,
    PortalAttempt,
    PortalSession,
    RecoveryCode,
    RequestCount,
    Throttle,
)

__all__ = [
    "JOURNAL_TRIGGERS_DROP_SQL",
    "JOURNAL_TRIGGERS_SQL",
    "ArchivedDocument",
    "AuditEvent",
    "AuthorizedPurpose",
    "BankBalance",
    "Bill",
    "BillLedger",
    "BillStatus",
    "BillingRun",
    "BillingRunStatus",
    "Budget",
    "BudgetChange",
    "BudgetCommitment",
    "BudgetLine",
    "CalendarToken",
    "CrimTransmittal",
    "DeliveryEvent",
    "DeliveryStatus",
    "District",
    "DocumentVersion",
    "Expenditure",
    "Finding",
    "FiscalYearLock",
    "FormulaStudy",
    "HeavyWork",
    "InstallationCheck",
    "IssuedDocument",
    "Job",
    "JobRun",
    "JobState",
    "JournalDay",
    "JournalEntry",
    "JournalLine",
    "KnownDevice",
    "LateChargeTerms",
    "LedgerDay",
    "LedgerState",
    "LoginSession",
    "Money",
    "Municipality",
    "Notice",
    "NoticeBatch",
    "NoticeKind",
    "OpeningBill",
    "OpeningPosition",
    "OpeningYear",
    "Ordinance",
    "OwedDay",
    "OwnerEmail",
    "OwnerMessage",
    "OwnershipTransfer",
    "PasswordReset",
    "Petition",
    "PetitionDocument",
    "PetitionState",
    "PortalAttempt",
    "PortalSession",
    "Property",
    "PropertyLien",
    "PropertyYear",
    "PublicFigures",
    "PublicVersion",
    "PublishedDocument",
    "PublishedYear",
    "Quantity",
    "QueueResult",
    "QueueSchedule",
    "QueueTask",
    "RecoveryCode",
    "RequestCount",
    "Role",
    "RollChange",
    "RollCheckSetting",
    "RollImport",
    "RollStatement",
    "SavedReform",
    "SchedulerHeartbeat",
    "SearchEntry",
    "StoredFile",
    "Throttle",
    "User",
    "WorkerHeartbeat",
    "money_column",
    "quantity_column",
]
