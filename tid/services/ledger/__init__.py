"""The special account of 21 LPRA § 6653(6) as a balanced, append-only double-entry journal.

Every movement of a district's special account is a :class:`JournalEntry` whose lines add up
to zero (one signed amount per line: debit positive, credit negative). Balances are derived
from the lines. Nothing is edited or deleted (the database refuses it): a mistake is undone
by a reversing entry.

So that no page reads the whole journal, each posting also adds its lines, in the same
transaction, to two running aggregates: ``ledger_day`` (per account and booking day) and
``bill_ledger`` (per bill: receivable and owner credit), counts its entry in
``journal_day`` (per booking day and kind) and the bills owed in ``owed_day`` (per due date,
with what they owe). They are derived data: :func:`verify`
(``tid account verify``) recomputes them from the journal and reports any difference.

The accounts (codes):

- ``bank``: the special bank account (debit = money in).
- ``receivable`` (per bill): what an owner still owes on a bill.
- ``impost_assessed``: the impost billed and not yet collected (the counterpart of the
  receivables: its balance is always minus their sum).
- ``impost_revenue``: the impost collected (credit = revenue); the base of the administrative cap.
- ``owner_credit`` (with the bill the money came with): an overpayment held for the owner.
- ``expense:admin``: administrative expenditures; ``expense:purpose:<id>``: spending on an
  authorized purpose of the ordinance.
- ``opening_balance``: the position a district brought from its earlier books when it moved
  in (the bank's balance and the owners' credits on the cut-over day, entry kind
  ``opening``; an opened bill's receivable is booked against ``impost_assessed``).

A bill is booked Dr receivable / Cr impost_assessed. A payment of P applied A to bills and
O = P − A held as credit is booked Dr bank P, Cr receivable A, Dr impost_assessed A,
Cr impost_revenue A, Cr owner_credit O. An expenditure is Dr expense / Cr bank.

The package, each module a seam of the journal (everything public is exported here, so
``ledger.X`` is the way in):

- ``accounts``: the codes of accounts, kinds of entry and memos, and what users call them;
- ``posting``: the district's lock and the one way into the journal (one entry or many);
- ``running``: the running aggregates each posting adds to;
- ``balances``: what an account or a bill adds up to, and what is still owed;
- ``cap``: the administrative cap's figures of a fiscal year (the arithmetic is the rule's,
  ``tid.rules.admin_cap.measure``);
- ``bills``: the bills booked, and what was paid on a superseded bill moved on;
- ``reversals``: what may be reversed, and the reversing entry;
- ``journal``: the entries read back with their lines, whole or a page at a time;
- ``verify``: the running aggregates recomputed from the journal and compared.
"""

from __future__ import annotations

from tid.services.district_lock import lock_district
from tid.services.ledger.accounts import (
    ACCOUNT_LABELS,
    ADMIN_EXPENSE,
    ASSESSED,
    BANK,
    ENTRY_KINDS,
    LATE_CHARGES,
    MEMOS,
    OPENING,
    OWNER_CREDIT,
    PURPOSE_PREFIX,
    RECEIVABLE,
    REVENUE,
    Line,
    account_label,
    entry_kind_label,
    is_expense,
    memo,
    memo_message,
    purpose_account,
)
from tid.services.ledger.balances import (
    balance,
    balances,
    bill_balances,
    cents,
    day_sums,
    maybe_unbooked,
    month_sums,
    owed_by_bill,
    unbooked_owed,
)
from tid.services.ledger.bills import sync_bills
from tid.services.ledger.cap import (
    CapExceededError,
    CapFigures,
    cap_figures,
    cap_figures_of,
    check_cap,
)
from tid.services.ledger.journal import (
    EntryRead,
    JournalPage,
    JournalRow,
    LineRead,
    entries_count,
    entry_numbers,
    journal,
    journal_chunks,
    journal_page,
)
from tid.services.ledger.posting import (
    AMOUNT_TOO_LARGE,
    Pending,
    Posted,
    entry_by_key,
    entry_lines,
    post_entry,
    post_many,
)
from tid.services.ledger.reversals import reverse_entry, reversible
from tid.services.ledger.verify import Difference, verify

__all__ = [
    "ACCOUNT_LABELS",
    "ADMIN_EXPENSE",
    "AMOUNT_TOO_LARGE",
    "ASSESSED",
    "BANK",
    "ENTRY_KINDS",
    "LATE_CHARGES",
    "MEMOS",
    "OPENING",
    "OWNER_CREDIT",
    "PURPOSE_PREFIX",
    "RECEIVABLE",
    "REVENUE",
    "CapExceededError",
    "CapFigures",
    "Difference",
    "EntryRead",
    "JournalPage",
    "JournalRow",
    "Line",
    "LineRead",
    "Pending",
    "Posted",
    "account_label",
    "balance",
    "balances",
    "bill_balances",
    "cap_figures",
    "cap_figures_of",
    "cents",
    "check_cap",
    "day_sums",
    "entries_count",
    "entry_by_key",
    "entry_kind_label",
    "entry_lines",
    "entry_numbers",
    "is_expense",
    "journal",
    "journal_chunks",
    "journal_page",
    "lock_district",
    "maybe_unbooked",
    "memo",
    "memo_message",
    "month_sums",
    "owed_by_bill",
    "post_entry",
    "post_many",
    "purpose_account",
    "reverse_entry",
    "reversible",
    "sync_bills",
    "unbooked_owed",
    "verify",
]
