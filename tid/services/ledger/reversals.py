"""Reversals: an entry undone by a reversing entry (every line negated); what may be
reversed, and what is refused."""

from __future__ import annotations

from datetime import date
from typing import Protocol

from sqlmodel import Session, select

from tid.models import (
    JournalEntry,
)
from tid.rules.errors import N_, InputError
from tid.rules.money import ZERO
from tid.rules.periods import fiscal_year_of
from tid.rules.vocab.journal_terms import reversible_kinds
from tid.services.audit_trail import audit
from tid.services.district_lock import lock_district
from tid.services.ledger.accounts import (
    REVENUE,
    Line,
    memo,
)
from tid.services.ledger.cap import CapExceededError, cap_figures, check_cap
from tid.services.ledger.posting import Posted, entry_lines, post_entry

# The kinds a new billing run corrects: the journal never reverses them.
CORRECTED_BY_BILLING = frozenset({"bill", "bill_superseded"})


class Reversible(Protocol):
    """An entry as the journal stores it or reads it back."""

    @property
    def kind(self) -> str: ...

    @property
    def reverses_id(self) -> int | None: ...


def reversible(entry: Reversible) -> bool:
    """Whether the journal reverses an entry of this kind: the vocabulary's ``reversible``
    kinds (tid/rules/vocab/journal_terms.py), not a bill (a new billing run corrects it), not
    a reversal. :func:`reverse_entry` refuses every other; it also refuses an entry already
    reversed (the journal's rows say which are)."""
    return entry.kind in reversible_kinds() and entry.reverses_id is None


def reverse_entry(
    *,
    session: Session,
    actor: audit.Actor,
    entry_id: int,
    on: date,
    reason: str,
    today: date,
) -> Posted:
    """Undo an entry with a reversing entry (every line negated), dated ``on``. A bill is
    undone by its billing run, not here; a reversal is not reversed (post the entry again);
    nor is an entry of the opening position a district moved in with.
    A reversal of collected revenue that would leave the FY's administrative spending above
    the cap is refused with the figures: reverse administrative spending first."""
    entry = session.get(JournalEntry, entry_id)
    if entry is None:
        raise InputError("entry", N_("There is no such entry in the journal."))
    if entry.kind in CORRECTED_BY_BILLING:
        raise InputError("entry", N_("A bill is corrected by a new billing run, not reversed."))
    if entry.reverses_id is not None:
        raise InputError("entry", N_("A reversal cannot itself be reversed."))
    if entry.kind not in reversible_kinds():
        raise InputError(
            "entry",
            N_("The opening position a district moved in with is not reversed entry by entry."),
        )
    if not reason.strip():
        raise InputError("reason", N_("Give the reason for the reversal."))
    if on > today:
        raise InputError("date", N_("The date cannot be in the future."))
    if on < entry.entry_date:
        raise InputError("date", N_("A reversal cannot be dated before the entry it reverses."))
    lock_district(session=session, district_id=entry.district_id)
    already = session.exec(select(JournalEntry).where(JournalEntry.reverses_id == entry_id)).first()
    if already is not None:
        raise InputError("entry", N_("This entry has already been reversed."))
    lines = entry_lines(session=session, entry_id=entry_id)
    revenue_change = sum((line.amount for line in lines if line.account == REVENUE), ZERO)
    if revenue_change < 0:  # the entry brought in revenue: its reversal takes it out
        fy = fiscal_year_of(on)
        figures = cap_figures(session=session, district_id=entry.district_id, fy=fy)
        decision = check_cap(figures, less_revenue=-revenue_change)
        if not decision.allowed:
            raise CapExceededError(
                "entry",
                N_(
                    "Reversing this payment would leave administrative spending above %(rate)s of "
                    "the impost revenue collected in the fiscal year. Reverse administrative "
                    "expenditures first."
                ),
                figures,
                decision,
            )
    return post_entry(
        session=session,
        actor=actor,
        district_id=entry.district_id,
        entry_date=on,
        kind="reversal",
        memo=memo("reversal", entry=entry_id, reason=reason.strip()),
        key=f"reverse:{entry_id}",
        lines=[Line(line.account, -line.amount, line.bill_id) for line in lines],
        reverses_id=entry_id,
    )
