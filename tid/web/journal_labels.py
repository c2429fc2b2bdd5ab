"""The labels of a page of journal entries, for every template that shows one (the journal,
the payments, the yearly statement and its PDF): the authorized purposes' names read through
their service, the words in the reader's language from tid/i18n.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from tid import i18n
from tid.db import get_session
from tid.services.account import expenditures
from tid.services.audit_trail import record_names

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
