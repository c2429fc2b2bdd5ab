"""The special account's journal in words: its kinds of entry and its accounts (the codes
``journal_entry.kind`` and ``journal_line.account`` keep), as the journal's pages, the
yearly statement, its PDF and its CSV name them.

An entry kind is ``reversible`` when a reversing entry may undo it: a bill is corrected by
a new billing run, and a reversal is not reversed (the entry is posted again).
"""

from __future__ import annotations

from dataclasses import dataclass

from tid.rules.messages import N_
from tid.rules.vocab.terms import Term, Vocabulary


@dataclass(frozen=True)
class EntryKind(Term):
    reversible: bool = False


ENTRY_KINDS: Vocabulary[EntryKind] = Vocabulary(
    "entry kinds",
    (
        EntryKind("bill", N_("Bill")),
        EntryKind("bill_superseded", N_("Bill superseded")),
        EntryKind("payment", N_("Payment"), reversible=True),
        EntryKind("credit_applied", N_("Owner credit applied"), reversible=True),
        EntryKind("expenditure", N_("Expenditure"), reversible=True),
        EntryKind("reversal", N_("Reversal")),
        # The position a district brought from its earlier books on the day it moved in.
        EntryKind("opening", N_("Opening position")),
    ),
)


def reversible_kinds() -> frozenset[str]:
    """The kinds of entry a reversing entry may undo."""
    return frozenset(ENTRY_KINDS.codes(lambda kind: kind.reversible))


# The accounts with a fixed code; an authorized purpose's account (``expense:purpose:<id>``)
# is named after the purpose.
ACCOUNTS: Vocabulary[Term] = Vocabulary(
    "accounts",
    (
        Term("bank", N_("Bank")),
        Term("receivable", N_("Impost receivable")),
        Term("impost_assessed", N_("Impost assessed")),
        Term("impost_revenue", N_("Impost revenue")),
        Term("owner_credit", N_("Owner credit held")),
        Term("late_charges", N_("Late charges collected")),
        Term("expense:admin", N_("Administrative expenses")),
        Term("opening_balance", N_("Balance brought forward")),
    ),
)
