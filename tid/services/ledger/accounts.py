"""The journal's accounts, kinds of entry and memos: their codes, what users call them, and
the line an entry is made of."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tid.rules.errors import N_
from tid.rules.imposts.explanations import money_text
from tid.rules.messages import Message
from tid.rules.vocab.journal_terms import ACCOUNTS
from tid.rules.vocab.journal_terms import ENTRY_KINDS as ENTRY_KIND_TERMS

BANK = "bank"
RECEIVABLE = "receivable"
ASSESSED = "impost_assessed"
REVENUE = "impost_revenue"
OWNER_CREDIT = "owner_credit"
LATE_CHARGES = "late_charges"  # surcharges and interest a payoff quote collected
ADMIN_EXPENSE = "expense:admin"
OPENING = "opening_balance"  # the earlier books' position brought forward on moving in
PURPOSE_PREFIX = "expense:purpose:"


def purpose_account(purpose_id: int) -> str:
    return f"{PURPOSE_PREFIX}{purpose_id}"


def is_expense(account: str) -> bool:
    return account == ADMIN_EXPENSE or account.startswith(PURPOSE_PREFIX)


# What each account and kind of entry is called where users read the journal (pages, the
# yearly statement, its PDF and CSV) is the vocabulary's (tid/rules/vocab/journal_terms.py);
# these are its labels when this module is loaded. The database keeps the codes.
ACCOUNT_LABELS = ACCOUNTS.msgids()
ENTRY_KINDS = ENTRY_KIND_TERMS.msgids()
# The memos the services write, by kind of entry: a memo is stored as its English sentence
# (Message), and read back in the reader's language by matching these templates.
MEMOS = {
    "bill": (N_("Impost FY %(fiscal_year)s, bill %(bill)s"),),
    "bill_superseded": (N_("Bill %(old)s superseded by bill %(new)s"),),
    "payment": (
        N_("Payment %(amount)s, ref. %(reference)s"),
        N_("Payment %(amount)s"),
        N_("Payment %(amount)s, payoff quote %(quote)s"),
    ),
    "credit_applied": (N_("Owner's credit %(amount)s applied, %(cadastral_number)s"),),
    "expenditure": (
        N_("%(payee)s: %(amount)s (administrative)"),
        N_("%(payee)s: %(amount)s (%(purpose)s)"),
    ),
    "reversal": (N_("Reverses entry %(entry)s: %(reason)s"),),
    "opening": (
        N_("Opening position as of %(date)s: bank"),
        N_("Opening position as of %(date)s: bill %(bill)s"),
        N_("Opening position as of %(date)s: owner's credit, %(cadastral_number)s"),
    ),
}


def _memo_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    regex = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(regex, re.DOTALL)


_MEMO_PATTERNS = {
    kind: tuple((t, _memo_pattern(t)) for t in templates) for kind, templates in MEMOS.items()
}


def memo(kind: str, **params: Any) -> Message:
    """The memo of an entry of ``kind`` (the first of its templates whose fields are given)."""
    for template in MEMOS[kind]:
        names = set(re.findall(r"%\((\w+)\)s", template))
        if names == set(params):
            return Message(template, **params)
    raise ValueError(f"no memo of {kind} takes {sorted(params)}")


_BILL_PARAMS = ("bill", "old", "new")


def memo_message(kind: str, text: str, bills: Mapping[int, str] | None = None) -> str:
    """A stored memo as a message (shown in the reader's language), its amounts as money and
    its bills by their names (``bills``, by id); a memo no template matches (typed by a
    user, or older) is data and is shown as written."""
    for template, pattern in _MEMO_PATTERNS.get(kind, ()):
        match = pattern.fullmatch(text)
        if match:
            params: dict[str, Any] = match.groupdict()
            if re.fullmatch(r"-?\d+\.\d{2}", params.get("amount", "")):
                params["amount"] = money_text(Decimal(params["amount"]))
            for name in _BILL_PARAMS:
                if name in params and params[name].isdigit() and bills:
                    params[name] = bills.get(int(params[name]), params[name])
            return Message(template, **params)
    return text


def account_label(account: str, purposes: dict[int, str] | None = None) -> str:
    """What users call an account (an authorized purpose by its name, when known)."""
    if account in ACCOUNTS:
        return ACCOUNTS.label(account)
    if account.startswith(PURPOSE_PREFIX):
        purpose_id = account.removeprefix(PURPOSE_PREFIX)
        name = (purposes or {}).get(int(purpose_id)) if purpose_id.isdigit() else None
        if name:
            return Message("Expenses: %(purpose)s", purpose=name)
        return Message("Expenses of authorized purpose #%(purpose)s", purpose=purpose_id)
    return account


def entry_kind_label(kind: str) -> str:
    return ENTRY_KIND_TERMS.label(kind)


@dataclass(frozen=True)
class Line:
    """A line to post: debit positive, credit negative."""

    account: str
    amount: Decimal
    bill_id: int | None = None
