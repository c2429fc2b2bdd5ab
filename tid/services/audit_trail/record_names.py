"""What people call the records the pages name: a bill by the number of its notice (the
number the owner holds and quotes on a payment) or, before it has one, by its property's
cadastral number and its fiscal year; a notice run by its number in its district
(``notice_service.batch_name``); a billing by its fiscal year and version. Database ids never
reach a reader: every page, PDF and history names records through here."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from sqlmodel import Session, col, select

from tid.models import (
    AuthorizedPurpose,
    Bill,
    BillingRun,
    District,
    JournalEntry,
    Municipality,
    Notice,
    NoticeBatch,
    Ordinance,
    Property,
)
from tid.rules.messages import N_, Message

BILL_BY_PROPERTY = N_("%(cadastral_number)s, FY %(fiscal_year)s")
BILL_BY_PROPERTY_VERSION = N_("%(cadastral_number)s, FY %(fiscal_year)s, billing %(version)s")
BILLING = N_("Billing %(fy)s, version %(version)s")
NOTICE_RUN = N_("Notice run %(number)s")
JOURNAL_ENTRY = N_("Entry %(number)s of %(day)s")


def bill_name(fiscal_year: str, cadastral_number: str, version: int = 1) -> Message:
    """A bill without a notice: its property and fiscal year (and its billing's version
    when the year was billed again)."""
    if version > 1:
        return Message(
            BILL_BY_PROPERTY_VERSION,
            cadastral_number=cadastral_number,
            fiscal_year=fiscal_year,
            version=version,
        )
    return Message(BILL_BY_PROPERTY, cadastral_number=cadastral_number, fiscal_year=fiscal_year)


def batch_name(batch: NoticeBatch) -> Message:
    """A notice run: its number among its district's runs (the number its page, its PS Form
    3877 and its history all show)."""
    return Message(NOTICE_RUN, number=batch.number or batch.id)


def bill_names(*, session: Session, bill_ids: Iterable[int | None]) -> dict[int, str]:
    """The names of the bills ``bill_ids`` (ids unknown are left out)."""
    ids = sorted({i for i in bill_ids if i})
    if not ids:
        return {}
    numbers: dict[int, str] = {}
    for bill_id, number in session.exec(
        select(Notice.bill_id, Notice.number)
        .where(col(Notice.bill_id).in_(ids))
        .order_by(col(Notice.id))
    ):
        numbers.setdefault(bill_id, number)  # the first notice: the one mailed for the bill
    names: dict[int, str] = {}
    rows = session.exec(
        select(Bill.id, Bill.fiscal_year, Property.cadastral_number, BillingRun.version)
        .join(Property, col(Property.id) == Bill.property_id)
        .join(BillingRun, col(BillingRun.id) == Bill.billing_run_id)
        .where(col(Bill.id).in_(ids))
    )
    for found, fiscal_year, cadastral_number, version in rows:
        key = int(found or 0)
        names[key] = numbers.get(key) or bill_name(fiscal_year, cadastral_number, version)
    return names


def _billing(session: Session, ids: list[int]) -> dict[int, str]:
    rows = session.exec(select(BillingRun).where(col(BillingRun.id).in_(ids))).all()
    return {r.id or 0: Message(BILLING, fy=r.fiscal_year, version=r.version) for r in rows}


def _named(model: Any, attribute: str) -> Any:
    def names(session: Session, ids: list[int]) -> dict[int, str]:
        rows = session.exec(select(model).where(col(model.id).in_(ids))).all()
        return {row.id: str(getattr(row, attribute)) for row in rows}

    return names


def _batches(session: Session, ids: list[int]) -> dict[int, str]:
    rows = session.exec(select(NoticeBatch).where(col(NoticeBatch.id).in_(ids))).all()
    return {r.id or 0: batch_name(r) for r in rows}


def _bills(session: Session, ids: list[int]) -> dict[int, str]:
    return bill_names(session=session, bill_ids=ids)


def entry_name(number: int | None, entry_date: Any) -> Message:
    """A journal entry: its number in its district's journal (and its booking date)."""
    return Message(JOURNAL_ENTRY, number=f"{number:,}" if number else "—", day=entry_date)


def _entries(session: Session, ids: list[int]) -> dict[int, str]:
    rows = session.exec(
        select(col(JournalEntry.id), col(JournalEntry.number), col(JournalEntry.entry_date)).where(
            col(JournalEntry.id).in_(ids)
        )
    )
    return {entry_id or 0: entry_name(number, day) for entry_id, number, day in rows}


# The recorded fields that hold another record's id, and how that record is named.
_REFERENCES = {
    "district_id": _named(District, "name"),
    "municipality_id": _named(Municipality, "name"),
    "property_id": _named(Property, "cadastral_number"),
    "ordinance_id": _named(Ordinance, "number"),
    "purpose_id": _named(AuthorizedPurpose, "name"),
    "billing_run_id": _billing,
    "supersedes_id": _billing,
    "batch_id": _batches,
    "bill_id": _bills,
    "superseded_by_id": _bills,
    "entry_id": _entries,
    "reverses_id": _entries,
}
# The record a history is of, named as the field that points at it would be.
_RECORD_FIELDS = {
    "district": "district_id",
    "municipality": "municipality_id",
    "ordinance": "ordinance_id",
    "authorized_purpose": "purpose_id",
    "billing_run": "billing_run_id",
    "notice_batch": "batch_id",
    "bill": "bill_id",
    "journal_entry": "entry_id",
}


def referenced(values: Iterable[Mapping[str, Any] | None]) -> dict[str, set[int]]:
    """The ids each reference field of ``values`` holds (lines inside them too)."""
    found: dict[str, set[int]] = {}
    for value in values:
        for name, item in (value or {}).items():
            if name in _REFERENCES and isinstance(item, int):
                found.setdefault(name, set()).add(item)
            elif isinstance(item, list):
                for nested in referenced(i for i in item if isinstance(i, dict)).items():
                    found.setdefault(nested[0], set()).update(nested[1])
    return found


def reference_names(
    *, session: Session, references: Mapping[str, set[int]]
) -> dict[str, dict[int, str]]:
    """For each reference field, the names of the records its ids point at."""
    return {
        name: _REFERENCES[name](session, sorted(ids))
        for name, ids in references.items()
        if ids and name in _REFERENCES
    }


def record_name(*, session: Session, entity_type: str, entity_id: str) -> str | None:
    """The name of one record whose history is shown (None: its kind and number say it)."""
    field = _RECORD_FIELDS.get(entity_type)
    if field is None or not entity_id.isdigit():
        return None
    name: str | None = _REFERENCES[field](session, [int(entity_id)]).get(int(entity_id))
    return name


def journal_bill_ids(rows: Iterable[Any]) -> set[int]:
    """The bills a journal's rows (``entry`` and ``lines``) name: on their lines, and in
    their memos (a superseded bill's)."""
    ids = {line.bill_id for row in rows for line in row.lines if line.bill_id}
    for row in rows:
        ids.update(int(n) for n in re.findall(r"\bbill (\d+)", row.entry.memo, re.IGNORECASE))
    return ids
