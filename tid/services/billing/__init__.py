"""The yearly billing run — 21 LPRA § 6653(3)(b), (3)(d), (5).

The ordinance states "the formula to calculate the amount to be paid annually by each real
property within the district" (§ 6653(3)(d)) and "the amount of funds expected to be
collected" (§ 6653(3)(b)); the association notifies every owner of "the amount to be paid
… for such year, as well as their due date" (§ 6653(5)). A billing run applies the formula,
compiled once, to every property of one fiscal year's roll and writes one bill each:

- all or nothing: the caller commits once; a formula that fails on one property names it
  and nothing is written;
- idempotent: the run's fingerprint is the SHA-256 of the formula, its parameters and every
  bill (property, amount, explanation); running the same year again with the same roll,
  formula and parameters (and no new due date) changes nothing and says so;
- a corrected run (another formula, other parameters, a corrected roll, another due date)
  supersedes the active run of the year: the old run and its bills are marked superseded,
  each old bill pointing to the bill that replaced it; nothing is deleted or rewritten. Old
  bills already mailed are counted: their owners need a corrected notice;
- the total is shown against the ordinance's expected amount, with the difference.

The due date (the statute leaves it to the ordinance and the association): the association
sets it when it runs the bill; by default 60 days after the run date (``DEFAULT_DUE_DAYS``, a
choice of this project). It may not be earlier than the end of the 30-day certified-mail
period counted from the run date (§ 6653(5)'s period, counted per 1 LPRA § 72), nor, for
an ordinance the association received, earlier than the end of that first 30-day notice
period: an owner cannot owe before the notice could lawfully reach them. A rerun without a
due date keeps the active run's due date.

Bills are written with SQLAlchemy Core ``executemany`` of plain dicts (integer cents
precomputed), not one ORM object per bill: a district of 100,000 parcels bills in seconds.

The modules: :mod:`.run` (the run), :mod:`.amounts` (the formula applied to the roll),
:mod:`.superseding`, :mod:`.due_dates`, :mod:`.parameters`, :mod:`.ordinance_terms`,
:mod:`.bill_pages` (what the pages read), :mod:`.mailed_bills` and :mod:`.bulk_tables`.
"""

from __future__ import annotations

from tid.services.billing.amounts import (
    CITATION_EXPECTED,
    CITATION_FORMULA,
    ORDINANCE_AMOUNT_PARAMETER,
)
from tid.services.billing.bill_pages import (
    BillLine,
    BillPage,
    bills_of_property,
    bills_page,
    corrected_notices_needed,
    runs,
    summary,
)
from tid.services.billing.bulk_tables import _BILL_ROWS, _plain_table
from tid.services.billing.due_dates import DEFAULT_DUE_DAYS, default_due_date, earliest_due_date
from tid.services.billing.mailed_bills import mark_mailed
from tid.services.billing.ordinance_terms import ordinance_for, ordinance_term
from tid.services.billing.parameters import MAX_PARAMETERS, parameters_json, parse_parameters
from tid.services.billing.run import BillingResult, active_run, check_run, run_billing
from tid.services.billing.superseding import active_runs_of, applies_other_terms

__all__ = [
    "CITATION_EXPECTED",
    "CITATION_FORMULA",
    "DEFAULT_DUE_DAYS",
    "MAX_PARAMETERS",
    "ORDINANCE_AMOUNT_PARAMETER",
    "_BILL_ROWS",
    "BillLine",
    "BillPage",
    "BillingResult",
    "_plain_table",
    "active_run",
    "active_runs_of",
    "applies_other_terms",
    "bills_of_property",
    "bills_page",
    "check_run",
    "corrected_notices_needed",
    "default_due_date",
    "earliest_due_date",
    "mark_mailed",
    "ordinance_for",
    "ordinance_term",
    "parameters_json",
    "parse_parameters",
    "run_billing",
    "runs",
    "summary",
]
