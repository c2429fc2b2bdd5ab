"""The one list of what a district's record holds: every table of the models is either
exported (:data:`TABLES`, in the order the import writes them: a table after those it refers
to) or left out (:data:`LEFT_OUT`, each with its reason). Both the export and the import read
this list; tests/services/test_district_record.py fails on a table in neither.

A table's rows of the district are those its ``where`` picks, given the district (its id, its
municipality's id and the ids of the petitions about it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import String, Table, cast, false, or_, select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel

from tid import models as m


@dataclass(frozen=True)
class Scope:
    """The district being exported: its id, its municipality's, the petitions about it."""

    district_id: int
    municipality_id: int
    petition_ids: tuple[int, ...]
    # The archived documents named inside JSON cells (:attr:`Spec.archived_json`), read
    # from the district's rows when the scope is made.
    documents: tuple[str, ...] = ()


Where = Callable[[Scope], ColumnElement[bool]]


@dataclass(frozen=True)
class Spec:
    """An exported table: its model, which rows are the district's, and the columns that
    name archived documents by their SHA-256 without a foreign key (checked all the same)."""

    model: type[SQLModel]
    where: Where
    archived_refs: tuple[str, ...] = ()
    # Text columns holding a JSON list of objects each naming an archived document by its
    # ``sha256`` (the opening position's source files): exported and checked all the same.
    archived_json: tuple[str, ...] = ()
    # The column of bytes written as files of the ZIP (under ``folder``), not in the CSV.
    content: str = ""
    folder: str = ""
    description: str = ""

    @property
    def table(self) -> Table:
        return self.model.__table__  # type: ignore[attr-defined, no-any-return]

    @property
    def name(self) -> str:
        return str(self.table.name)


def _t(model: type[SQLModel]) -> Table:
    return model.__table__  # type: ignore[attr-defined, no-any-return]


def _of_district(model: type[SQLModel]) -> Where:
    return lambda s: _t(model).c.district_id == s.district_id


def _in(model: type[SQLModel], column: str, parent: type[SQLModel], parent_where: Where) -> Where:
    """Rows whose ``column`` names a row of ``parent`` that is the district's."""

    def where(s: Scope) -> ColumnElement[bool]:
        parents = select(_t(parent).c.id).where(parent_where(s))
        return _t(model).c[column].in_(parents)

    return where


def _of_petitions(model: type[SQLModel]) -> Where:
    return lambda s: _t(model).c.petition_id.in_(s.petition_ids)


_DOCUMENTS = _of_petitions(m.PetitionDocument)
_NOTICES = _of_district(m.Notice)
_ENTRIES = _of_district(m.JournalEntry)
_PROPERTIES = _of_district(m.Property)
_BUDGETS = _of_district(m.Budget)


def _versions(s: Scope) -> ColumnElement[bool]:
    return _t(m.DocumentVersion).c.document_id.in_(
        select(_t(m.PetitionDocument).c.id).where(_DOCUMENTS(s))
    )


def _stored_files(s: Scope) -> ColumnElement[bool]:
    return _t(m.StoredFile).c.sha256.in_(select(_t(m.DocumentVersion).c.sha256).where(_versions(s)))


def _studies(s: Scope) -> ColumnElement[bool]:
    table = _t(m.FormulaStudy)
    mine = or_(table.c.district_id.is_(None), table.c.district_id == s.district_id)
    return table.c.petition_id.in_(s.petition_ids) & mine


def _archived(s: Scope) -> ColumnElement[bool]:
    """The archived documents the district's rows name."""
    key = _t(m.ArchivedDocument).c.sha256
    picks = [
        select(_t(spec.model).c[column]).where(spec.where(s))
        for spec in TABLES
        for column in spec.archived_refs
    ]
    return or_(key.in_(s.documents), *(key.in_(pick) for pick in picks))


def named_in_json(cell: str | None) -> list[str]:
    """The SHA-256 each object of a JSON list names (``[{"sha256": ...}, ...]``); none if
    the cell holds anything else."""
    try:
        found = json.loads(cell or "[]")
    except ValueError:
        return []
    if not isinstance(found, list):
        return []
    return [str(o["sha256"]) for o in found if isinstance(o, dict) and o.get("sha256")]


def _history(s: Scope) -> ColumnElement[bool]:
    """The audit events about the district's rows (not its municipality's: it is shared)."""
    events = _t(m.AuditEvent)
    parts = []
    for spec in TABLES:
        if spec.model in (m.Municipality, m.AuditEvent) or "id" not in spec.table.c:
            continue
        ids = select(cast(spec.table.c.id, String)).where(spec.where(s))
        parts.append((events.c.entity_type == spec.name) & events.c.entity_id.in_(ids))
    return or_(false(), *parts)


TABLES: tuple[Spec, ...] = (
    Spec(
        m.Municipality,
        lambda s: _t(m.Municipality).c.id == s.municipality_id,
        description="The district's municipality (an installation that has it by name "
        "keeps its own).",
    ),
    Spec(m.District, lambda s: _t(m.District).c.id == s.district_id),
    Spec(m.Petition, lambda s: _t(m.Petition).c.id.in_(s.petition_ids)),
    Spec(m.Finding, _of_petitions(m.Finding)),
    Spec(m.Ordinance, _of_district(m.Ordinance)),
    Spec(m.AuthorizedPurpose, _of_district(m.AuthorizedPurpose)),
    Spec(m.RollImport, _of_district(m.RollImport)),
    Spec(m.Property, _PROPERTIES),
    Spec(m.PropertyYear, _of_district(m.PropertyYear)),
    Spec(m.RollCheckSetting, _of_district(m.RollCheckSetting)),
    Spec(m.RollChange, _of_district(m.RollChange)),
    Spec(m.BillingRun, _of_district(m.BillingRun)),
    Spec(m.Bill, _of_district(m.Bill)),
    Spec(m.Budget, _BUDGETS, description="The budgets of the fiscal years, drafted or approved."),
    Spec(m.BudgetLine, _in(m.BudgetLine, "budget_id", m.Budget, _BUDGETS)),
    Spec(m.BudgetChange, _in(m.BudgetChange, "budget_id", m.Budget, _BUDGETS)),
    Spec(
        m.BudgetCommitment,
        _in(
            m.BudgetCommitment,
            "budget_line_id",
            m.BudgetLine,
            _in(m.BudgetLine, "budget_id", m.Budget, _BUDGETS),
        ),
    ),
    Spec(
        m.ArchivedDocument,
        _archived,
        content="content",
        folder="archive",
        description="The documents of record as issued (notices, print files, manifests, "
        "issued documents, published documents, studies, the opening position's source "
        "files): each a file of the package.",
    ),
    Spec(
        m.OpeningPosition,
        _of_district(m.OpeningPosition),
        archived_json=("files",),
        description="The opening position the district moved in with (its source files, "
        "archived under their SHA-256; one reversed, with when, by whom and why).",
    ),
    Spec(m.OpeningBill, _of_district(m.OpeningBill)),
    Spec(m.OpeningYear, _of_district(m.OpeningYear)),
    Spec(
        m.NoticeBatch,
        _of_district(m.NoticeBatch),
        archived_refs=("print_sha256", "manifest_sha256"),
    ),
    Spec(m.Notice, _NOTICES, archived_refs=("pdf_sha256",)),
    Spec(m.DeliveryEvent, _in(m.DeliveryEvent, "notice_id", m.Notice, _NOTICES)),
    Spec(m.JournalEntry, _ENTRIES),
    Spec(m.JournalLine, _in(m.JournalLine, "entry_id", m.JournalEntry, _ENTRIES)),
    Spec(m.LedgerDay, _of_district(m.LedgerDay)),
    Spec(m.JournalDay, _of_district(m.JournalDay)),
    Spec(m.BillLedger, _of_district(m.BillLedger)),
    Spec(m.OwedDay, _of_district(m.OwedDay)),
    Spec(m.LedgerState, _of_district(m.LedgerState)),
    Spec(m.Expenditure, _of_district(m.Expenditure)),
    Spec(m.BankBalance, _of_district(m.BankBalance)),
    Spec(m.LateChargeTerms, _of_district(m.LateChargeTerms)),
    Spec(m.PropertyLien, _in(m.PropertyLien, "property_id", m.Property, _PROPERTIES)),
    Spec(m.FiscalYearLock, _of_district(m.FiscalYearLock)),
    Spec(m.IssuedDocument, _of_district(m.IssuedDocument), archived_refs=("sha256",)),
    Spec(m.RollStatement, _of_district(m.RollStatement), archived_refs=("sha256",)),
    Spec(m.OwnershipTransfer, _of_district(m.OwnershipTransfer)),
    Spec(m.PublishedYear, _of_district(m.PublishedYear)),
    Spec(m.PublishedDocument, _of_district(m.PublishedDocument), archived_refs=("sha256",)),
    Spec(m.OwnerEmail, _of_district(m.OwnerEmail)),
    Spec(m.OwnerMessage, _in(m.OwnerMessage, "property_id", m.Property, _PROPERTIES)),
    Spec(
        m.StoredFile,
        _stored_files,
        folder="files",
        description="The files of the legislature's file of the petitions (every version): "
        "each a file of the package.",
    ),
    Spec(m.PetitionDocument, _DOCUMENTS),
    Spec(m.DocumentVersion, _versions),
    Spec(m.CrimTransmittal, _of_petitions(m.CrimTransmittal)),
    Spec(m.FormulaStudy, _studies, archived_refs=("report_sha256", "file_sha256")),
    Spec(m.AuditEvent, _history, description="The history of the district's records."),
)

# Tables left out of a district's record, with the reason.
_INSTALLATION = "the installation's own sign-in state and limits, not the district's record"
LEFT_OUT: dict[str, str] = {
    "user_account": "accounts and their passwords belong to an installation: every record "
    "names who acted by their email (actor); the user_id columns are exported empty",
    "calendartoken": _INSTALLATION,
    "loginsession": _INSTALLATION,
    "throttle": _INSTALLATION,
    "known_device": _INSTALLATION,
    "password_reset": _INSTALLATION,
    "recovery_code": _INSTALLATION,
    "portal_attempt": _INSTALLATION,
    "request_count": _INSTALLATION,
    "portal_session": _INSTALLATION,
    "heavy_work": _INSTALLATION,
    "job": "work under way or done in the installation; what it issued is in the archive",
    "jobrun": "the installation's scheduled jobs, not a district's",
    "worker_heartbeat": "the installation's running workers",
    "scheduler_heartbeat": "the installation's running scheduler",
    "installation_check": "the installation's own checks (mail, backups), about no district",
    "queue_task": "the installation's task queue",
    "queue_schedule": "the installation's task queue",
    "queue_result": "the installation's task queue",
    "saved_reform": "public policy texts of the calculators, about no district",
    "search_entry": "the search index, rebuilt on import from the petitions, ordinances "
    "and documents",
    "public_version": "a counter of the public pages' caches, started afresh on import",
    "public_figures": "the public pages' cache, computed again from the journal",
}

# Columns naming an account (user_account): exported empty.
DROPPED_REFERENCE = "user_account"


def by_name() -> dict[str, Spec]:
    return {spec.name: spec for spec in TABLES}


def model_tables() -> set[str]:
    return {str(name) for name in SQLModel.metadata.tables}
