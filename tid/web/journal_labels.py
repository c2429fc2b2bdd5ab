"""The labels of a page of journal entries, for every template that shows one (the journal,
the payments, the yearly statement and its PDF): the authorized purposes' names read through
their service, the words in the reader's language from tid/i18n.py."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint

from tid import i18n
from tid.db import get_session
from tid.services import expenditures, record_names

bp = Blueprint("journal_labels", __name__)


@bp.app_template_global("journal_row_labels")
def journal_row_labels(rows: Any) -> dict[str, Any]:
    """``{"accounts": {…}, "kinds": {…}}``: the labels of ``rows``' accounts and kinds."""
    accounts = {line.account for row in rows for line in row.lines}
    purposes = expenditures.account_purpose_names(session=get_session(), accounts=accounts)
    labels: dict[str, Any] = dict(i18n.journal_row_labels(rows, purposes))
    labels["bills"] = record_names.bill_names(session=get_session(), bill_ids=_bill_ids(rows))
    return labels


def _bill_ids(rows: Any) -> set[int]:
    """The bills the lines name, and those the memos name (a superseded bill's)."""
    ids = {line.bill_id for row in rows for line in row.lines if line.bill_id}
    for row in rows:
        ids.update(int(n) for n in re.findall(r"\bbill (\d+)", row.entry.memo, re.IGNORECASE))
    return ids


@bp.app_template_global("bill_names_of")
def bill_names_of(bills: Any) -> dict[int, str]:
    """The names of ``bills`` (records or ids), by id: the number of each one's notice, or
    its property and fiscal year (tid/services/record_names.py)."""
    ids = [b if isinstance(b, int) else b.id for b in bills]
    return record_names.bill_names(session=get_session(), bill_ids=ids)
