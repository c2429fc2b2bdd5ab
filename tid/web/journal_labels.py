"""The labels of a page of journal entries, for every template that shows one (the journal,
the payments, the yearly statement and its PDF): the authorized purposes' names read through
their service, the words in the reader's language from tid/i18n.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint

from tid import i18n
from tid.db import get_session
from tid.render import formats
from tid.services.account import expenditures
from tid.services.audit_trail import audit_words, record_names
from tid.web.field_labels import field_error

bp = Blueprint("journal_labels", __name__)


@bp.app_template_global("journal_row_labels")
def journal_row_labels(rows: Any) -> dict[str, Any]:
    """``{"accounts": {…}, "kinds": {…}}``: the labels of ``rows``' accounts and kinds."""
    accounts = {line.account for row in rows for line in row.lines}
    purposes = expenditures.account_purpose_names(session=get_session(), accounts=accounts)
    labels: dict[str, Any] = dict(i18n.journal_row_labels(rows, purposes))
    labels["bills"] = record_names.bill_names(
        session=get_session(), bill_ids=record_names.journal_bill_ids(rows)
    )
    return labels


@bp.app_template_global("bill_names_of")
def bill_names_of(bills: Any) -> dict[int, str]:
    """The names of ``bills`` (records or ids), by id: the number of each one's notice, or
    its property and fiscal year (tid/services/audit_trail/record_names.py)."""
    ids = [b if isinstance(b, int) else b.id for b in bills]
    return record_names.bill_names(session=get_session(), bill_ids=ids)


@dataclass(frozen=True, slots=True)
class EntryCells:
    """One journal entry's cells, written once in Python for a page's table: its number,
    day, kind, memo, who booked it, its history's link and each line's account, bill, debit
    and credit (a page of 50 entries has some 800 cells, and a template's filter and call on
    each cost more than the rest of the page)."""

    row: Any
    number: str
    day: str
    kind: str
    memo: str
    actor: str
    history: str | None
    lines: list[tuple[str, str, str, str]]
    reverse: str | None = None
    error: str | None = None


@bp.app_template_global("journal_entry_cells")
def journal_entry_cells(
    rows: Any,
    labels: dict[str, Any],
    history_url: Callable[[int], str] | None = None,
    reverse_url: Callable[[int], str] | None = None,
) -> list[EntryCells]:
    """The cells of ``rows`` (a page of the journal) with their ``labels``
    (:func:`journal_row_labels`), as ``templates/account/_entries.html`` shows them: with
    ``reverse_url`` (a writer's page) each reversible entry's form's address and the error a
    refused reversal left for it."""
    kinds, accounts, bills = labels["kinds"], labels["accounts"], labels["bills"]
    lang = i18n.language()
    actors: dict[str, str] = {}
    bill_texts: dict[int, str] = {}
    cells = []
    for row in rows:
        entry = row.entry
        actor = actors.get(entry.actor)
        if actor is None:
            actor = actors[entry.actor] = i18n.localized(audit_words.actor_label(entry.actor))
        lines = []
        for line in row.lines:
            bill = ""
            if line.bill_id:
                bill = bill_texts.get(line.bill_id, "")
                if not bill:
                    bill = bill_texts[line.bill_id] = i18n.localized(bills.get(line.bill_id, ""))
            debit = formats.money(line.debit, lang) if line.debit else ""
            credit = formats.money(line.credit, lang) if line.credit else ""
            lines.append((accounts[line.account], bill, debit, credit))
        reverse = error = None
        if reverse_url is not None and not row.reversed_by and row.reversible:
            reverse, error = reverse_url(entry.id), field_error(f"r-{entry.id}")
        cells.append(
            EntryCells(
                row=row,
                number=formats.number(entry.number, lang) if entry.number else "—",
                day=formats.day(entry.entry_date, lang),
                kind=kinds[entry.kind],
                memo=i18n.journal_memo(entry.kind, entry.memo, bills),
                actor=actor,
                history=history_url(entry.id) if history_url is not None else None,
                lines=lines,
                reverse=reverse,
                error=error,
            )
        )
    return cells
