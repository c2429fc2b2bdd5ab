"""The CSV files the account writes for people who open them in a spreadsheet: their columns
by key, headed in the reader's language, numbers as numbers and text guarded against
spreadsheet formulas (tid/csv_safe.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tid import csv_safe
from tid.rules.errors import N_
from tid.rules.messages import Message, render

# The columns of the CSV files, by key: the files are for people who open them in a
# spreadsheet, so the header row says each column in the reader's language.
COLUMNS = {
    "account": N_("Account"),
    "actor": N_("Recorded by"),
    "amount": N_("Amount"),
    "as_of": N_("Cut-off date"),
    "bill": N_("Bill"),
    "bucket": N_("Days past due (range)"),
    "cadastral_number": N_("Cadastral number"),
    "credit": N_("Credit"),
    "date": N_("Date"),
    "days_late": N_("Days late"),
    "days_past_due": N_("Days past due"),
    "debit": N_("Debit"),
    "due_date": N_("Due date"),
    "entry": N_("Entry"),
    "fiscal_year": N_("Fiscal year"),
    "impost_owed": N_("Impost owed"),
    "interest": N_("Interest"),
    "kind": N_("Kind"),
    "line": N_("Line"),
    "memo": N_("Memo"),
    "outstanding": N_("Outstanding"),
    "owners": N_("Owners"),
    "purpose": N_("Authorized purpose"),
    "reversed_by": N_("Reversed by entry"),
    "reverses": N_("Reverses entry"),
    "surcharge": N_("Surcharge"),
}


def column_label(key: str) -> str:
    """A CSV column's header in the reader's language (``render``: the request's language,
    Spanish outside one)."""
    return render(Message(COLUMNS[key]))


def csv_text(rows: Sequence[Sequence[object]], *, numbers: Collection[str] = ()) -> str:
    """The first row names the columns by key (headed in the reader's language); those in
    ``numbers`` hold numbers, the rest text (escaped against spreadsheet formulas,
    tid/csv_safe.py)."""
    header, *body = rows
    labels = [column_label(str(h)) for h in header]
    numeric = {column_label(key) for key in numbers}
    return csv_safe.write(labels, body, numbers=numeric)
