"""Payoff quotes (21 LPRA § 6653(8)): what a property owes on a future day — every bill still
owed, the late charges accrued to that day by the ordinance's terms (the same terms and the
same arithmetic as the delinquency list: :func:`tid.services.liens.impost_lien.impost_lien` and
:func:`tid.services.liens.impost_lien.late_charges`), the total, the interest each day after it adds
(the daily accrual, to the cent), and apart, each one-time charge landing in the 30 days after it
with its day and amount — good through a day the association chooses (by default 30 days from
issue), under a reference (the project's reading ``/readings#late-charges-payoff-quotes``).

A payment that brings a quote's reference (on or before its day) is booked in ONE entry: the
impost of each bill (receivable paid down, assessed turned into revenue), the quote's late
charges (``late_charges``: owed, not impost revenue, so outside the administrative cap's
base), and any excess held as the owner's credit. When payments against the quote reach its
total, the quote is settled; a payment short of it says what remains."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlmodel import Session

from tid.models import IssuedDocument, JournalEntry, LateChargeTerms, Property
from tid.rules.allocation import allocate
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Message
from tid.rules.money import MAX_ACCOUNT_AMOUNT, ZERO, money_str, round_cents
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.closing import issued
from tid.services.ledger import (
    ASSESSED,
    BANK,
    LATE_CHARGES,
    OWNER_CREDIT,
    RECEIVABLE,
    REVENUE,
    Line,
)
from tid.services.liens import impost_lien as liens

DEFAULT_DAYS = 30
LONGEST_DAYS = 365
# A quote lists apart every one-time charge landing in these days after its day.
CHARGES_AHEAD_DAYS = 30


def default_good_through(today: date) -> date:
    return today + timedelta(days=DEFAULT_DAYS)


def figures(*, session: Session, prop: Property, through: date) -> issued.Figures:
    """What the property owes on ``through``: each bill still owed with its surcharge and
    interest to that day (as the delinquency list of that day figures them); the interest
    each day after adds (the daily accrual on the impost of the bills late by then, to the
    cent, never a one-time charge); and, on the line of its bill, each one-time charge that
    lands in the :data:`CHARGES_AHEAD_DAYS` days after (a surcharge on a due date passing),
    with its day and amount."""
    lien = liens.impost_lien(session=session, prop=prop, today=through)
    terms = liens.late_terms(session=session, district_id=prop.district_id)
    brought = liens.brought_charges(
        session=session, bill_ids=[b.id or 0 for b, _o, _c in lien.bills]
    )
    daily = ZERO
    lines = []
    for bill, owed, charges in lien.bills:
        line = {
            "bill": str(bill.id),
            "fiscal_year": bill.fiscal_year,
            "due_date": bill.due_date.isoformat(),
            "days_late": str(charges.days_late),
            "impost": money_str(owed),
            "surcharge": money_str(charges.surcharge),
            "interest": money_str(charges.interest),
        }
        # A bill brought from the district's earlier books carries the charges they accrued
        # (nothing more lands on it) and runs interest from the cut-over day.
        opened = brought.get(bill.id or 0)
        runs_from = max(opened[0], bill.due_date) if opened is not None else bill.due_date
        if runs_from <= through:
            daily += liens.daily_interest(owed, terms)
        line.update(
            _lands(owed, bill.due_date, through, terms) if opened is None else {"lands_on": ""}
        )
        lines.append(line)
    return issued.Figures(lien.secured, lien.unsecured, round_cents(daily), tuple(lines))


def _lands(
    owed: Decimal, due: date, through: date, terms: LateChargeTerms | None
) -> dict[str, str]:
    """The one-time charge of a bill that lands in the days after ``through`` (its surcharge,
    the day after its due date), and the interest it adds a day from then when that is not
    yet in the quote's daily figure; ``lands_on`` empty when none lands."""
    lands_on = due + timedelta(days=1)
    if not through < lands_on <= through + timedelta(days=CHARGES_AHEAD_DAYS):
        return {"lands_on": ""}
    first = liens.late_charges(owed, due, lands_on, terms)
    per_day = round_cents(liens.daily_interest(owed, terms)) if due > through else ZERO
    if first.surcharge <= 0 and per_day <= 0:
        return {"lands_on": ""}
    return {
        "lands_on": lands_on.isoformat(),
        "lands_surcharge": money_str(first.surcharge),
        "lands_per_day": money_str(per_day) if due > through else "",
    }


def quote_problems(*, good_through: date | None, today: date) -> list[Finding]:
    if good_through is None:
        return []
    if good_through < today:
        return [Finding("good_through", N_("A quote is good through today or a later day."))]
    if good_through > today + timedelta(days=LONGEST_DAYS):
        return [Finding("good_through", N_("A quote is good for a year at most."))]
    return []


def issue_quote(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    property_id: int,
    today: date,
    good_through: date | None = None,
    issued_by: str = "",
) -> IssuedDocument:
    """Record a payoff quote of the property good through ``good_through`` (by default 30
    days from today); its PDF is made and archived by the document (tid/documents/closing.py)."""
    problems = quote_problems(good_through=good_through, today=today)
    if problems:
        raise InputError(problems[0].field, problems[0].message)
    through = good_through or default_good_through(today)
    prop = session.get(Property, property_id)
    if prop is None or prop.district_id != district_id:
        raise InputError("property", issued.NO_SUCH_PROPERTY)
    return issued.issue(
        session=session,
        actor=actor,
        kind=issued.PAYOFF,
        district_id=district_id,
        property_id=property_id,
        issued_on=today,
        good_through=through,
        figures=figures(session=session, prop=prop, through=through),
        issued_by=issued_by,
    )


# --------------------------------------------------------------------------- settling


@dataclass(frozen=True)
class Settlement:
    """A payment against a quote: its entry, whether it was booked now (False: the same
    payment again, nothing written), what remains of the quote, and the credit held."""

    reference: str
    entry_id: int
    booked: bool
    amount: Decimal
    settled: bool
    remaining: Decimal
    credit: Decimal


NO_QUOTE = N_("There is no payoff quote with this reference in this district.")


def find_quote(*, session: Session, district_id: int, reference: str) -> IssuedDocument:
    quote = issued.by_reference(session=session, district_id=district_id, reference=reference)
    if quote is None or quote.kind != issued.PAYOFF:
        raise InputError("reference", NO_QUOTE)
    return quote


def expired(quote: IssuedDocument, on: date) -> bool:
    return quote.good_through is not None and on > quote.good_through


def _settled_by(session: Session, quote: IssuedDocument) -> Finding | None:
    """A settled quote refuses another payment, naming the day and the journal entry (its
    number in the district's journal) that settled it."""
    if quote.settled_on is None:
        return None
    entry = session.get(JournalEntry, quote.settled_entry_id) if quote.settled_entry_id else None
    if entry is None or entry.number is None:
        return Finding(
            "reference", Message("This quote was settled on %(day)s.", day=quote.settled_on)
        )
    return Finding(
        "reference",
        Message(
            "This quote was settled on %(day)s by entry %(number)s of the journal.",
            day=quote.settled_on,
            number=entry.number,
        ),
    )


def _payment_problems(
    session: Session, quote: IssuedDocument, paid_on: date, amount: Decimal, today: date
) -> None:
    problems: list[Finding] = []
    settled = _settled_by(session, quote)
    if settled is not None:
        problems.append(settled)
    if paid_on > today:
        problems.append(Finding("paid_on", N_("The date cannot be in the future.")))
    elif expired(quote, paid_on):
        problems.append(
            Finding(
                "paid_on",
                Message(
                    "This quote was good through %(day)s: issue a new one for a payment of "
                    "a later day.",
                    day=quote.good_through or paid_on,
                ),
            )
        )
    if amount <= 0:
        problems.append(Finding("amount", N_("The amount must be more than zero.")))
    elif amount > MAX_ACCOUNT_AMOUNT:
        problems.append(Finding("amount", N_("The amount is too large.")))
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)


def _lines(session: Session, quote: IssuedDocument, amount: Decimal) -> tuple[list[Line], Decimal]:
    """The entry's lines for ``amount`` against the quote (the impost of its bills first,
    the oldest first, then its late charges not yet paid, then the owner's credit), and the
    late charges it pays."""
    quoted = issued.lines_of(quote)
    bill_ids = [int(line["bill"]) for line in quoted]
    owed = ledger.bill_balances(session=session, district_id=quote.district_id, bill_ids=bill_ids)
    impost = allocate(amount, [(b, owed.get(b, ZERO)) for b in bill_ids])
    charges = [
        (int(line["bill"]), Decimal(line["surcharge"]) + Decimal(line["interest"]))
        for line in quoted
    ]
    paid_before = dict(allocate(quote.charges_paid, charges).taken)
    still = [(b, c - paid_before.get(b, ZERO)) for b, c in charges]
    late = allocate(impost.left, still)
    lines = [Line(BANK, amount)]
    for bill_id, applied in impost.taken:
        lines += [
            Line(RECEIVABLE, -applied, bill_id),
            Line(ASSESSED, applied, bill_id),
            Line(REVENUE, -applied, bill_id),
        ]
    lines += [Line(LATE_CHARGES, -taken, bill_id) for bill_id, taken in late.taken]
    if late.left > 0:
        lines.append(Line(OWNER_CREDIT, -late.left, bill_ids[-1] if bill_ids else None))
    return lines, late.used


def pay_quote(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    reference: str,
    paid_on: date,
    amount: Decimal,
    today: date,
    key: str,
) -> Settlement:
    """Book a payment against a payoff quote in one entry (once per ``key``)."""
    # The lock first: a quote is read as the payment before this one left it (settled or not).
    ledger.lock_district(session=session, district_id=district_id)
    quote = find_quote(session=session, district_id=district_id, reference=reference)
    existing = ledger.entry_by_key(session=session, key=key)
    if existing is not None:
        return _settlement(quote, existing.id or 0, False, ZERO, ZERO)
    _payment_problems(session, quote, paid_on, amount, today)
    ledger.sync_bills(session=session, actor=actor, district_id=district_id)
    lines, late_paid = _lines(session, quote, amount)
    if lines[-1].account == OWNER_CREDIT and lines[-1].bill_id is None:
        raise InputError("amount", N_("Nothing is owed on this quote's bills."))
    posted = ledger.post_entry(
        session=session,
        actor=actor,
        district_id=district_id,
        entry_date=paid_on,
        kind="payment",
        memo=ledger.memo("payment", amount=money_str(amount), quote=quote.reference),
        key=key,
        lines=lines,
        looked_up=True,
    )
    before = audit.snapshot(quote, exclude=("code",))
    quote.paid += amount
    quote.charges_paid += late_paid
    if quote.paid >= quote.total and quote.settled_on is None:
        quote.settled_on = paid_on
        quote.settled_entry_id = posted.entry.id
    session.add(quote)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="payoff.payment",
        entity=quote,
        before=before,
        after=audit.snapshot(quote, exclude=("code",)),
    )
    credit = -sum((line.amount for line in lines if line.account == OWNER_CREDIT), ZERO)
    return _settlement(quote, posted.entry.id or 0, True, amount, credit)


def _settlement(
    quote: IssuedDocument, entry_id: int, booked: bool, amount: Decimal, credit: Decimal
) -> Settlement:
    remaining = max(ZERO, quote.total - quote.paid)
    return Settlement(
        quote.reference,
        entry_id,
        booked,
        amount,
        quote.settled_on is not None,
        remaining,
        credit,
    )
