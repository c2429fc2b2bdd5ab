"""Spending from the special account (21 LPRA § 6653(6)): only on the purposes the ordinance
authorizes, or on administration up to the cap rate (``district.admin_cap_rate``) of the impost
revenues collected (/readings#admin-cap-per-fiscal-year: per fiscal year, administrative spending
booked in the FY ≤ the rate × impost revenue collected in the same FY up to that moment). The check
and the posting run under the district's lock, so two requests at once cannot together break the
cap."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session, col, select

from tid.models import AuthorizedPurpose, Expenditure, JournalEntry
from tid.rules import admin_cap
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.messages import Amount, Message
from tid.rules.money import money_str
from tid.rules.periods import fiscal_year_of
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.ledger import ADMIN_EXPENSE, BANK, CapExceededError, CapFigures, Line


def add_purpose(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    name: str,
    ordinance_reference: str = "",
) -> AuthorizedPurpose:
    """Record a purpose the district's ordinance authorizes spending on."""
    name = " ".join(name.split())
    if not name:
        raise InputError("name", N_("Name the purpose as the ordinance does."))
    if len(name) > 200:
        raise InputError("name", N_("The name is too long (at most 200 characters)."))
    clash = session.exec(
        select(AuthorizedPurpose).where(
            AuthorizedPurpose.district_id == district_id, AuthorizedPurpose.name == name
        )
    ).first()
    if clash is not None:
        raise InputError("name", N_("This purpose is already recorded."))
    purpose = AuthorizedPurpose(
        district_id=district_id, name=name, ordinance_reference=ordinance_reference.strip()[:200]
    )
    session.add(purpose)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="purpose.create",
        entity=purpose,
        after=audit.snapshot(purpose),
    )
    return purpose


def set_purpose_active(
    *, session: Session, actor: audit.Actor, purpose_id: int, active: bool
) -> AuthorizedPurpose:
    purpose = session.get(AuthorizedPurpose, purpose_id)
    if purpose is None:
        raise InputError("purpose", N_("There is no such purpose."))
    before = audit.snapshot(purpose)
    purpose.active = active
    session.add(purpose)
    audit.record(
        session=session,
        actor=actor,
        action="purpose.update",
        entity=purpose,
        before=before,
        after=audit.snapshot(purpose),
    )
    return purpose


def purposes(
    *, session: Session, district_id: int, active_only: bool = False
) -> list[AuthorizedPurpose]:
    stmt = select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == district_id)
    if active_only:
        stmt = stmt.where(col(AuthorizedPurpose.active).is_(True))
    return list(session.exec(stmt.order_by(col(AuthorizedPurpose.name))))


@dataclass(frozen=True)
class ExpenditureResult:
    expenditure: Expenditure
    booked: bool
    figures: CapFigures  # the cap figures after this expenditure


CAP_MESSAGE = N_(
    "This administrative expenditure would exceed %(rate)s of the impost revenue collected in the "
    "fiscal year."
)

# The fiscal year of the expenditure has no impost revenue yet: its cap is zero. Said so,
# with the year, because a date just after July 1 (a new FY) is the usual cause.
NO_REVENUE_MESSAGE = N_(
    "FY %(fy)s has no impost revenue collected yet, so no administrative expenditure can be "
    "booked in it: the cap is %(rate)s of the impost revenue collected in the same fiscal "
    "year (21 LPRA § 6653(6)). Book the year's collections first, or date the expenditure "
    "in the fiscal year it belongs to."
)


def cap_message(figures: CapFigures) -> Message:
    """The refusal, its rate written as the reader's language writes a percentage."""
    rate = admin_cap.rate_words(figures.rate)
    if figures.revenue <= 0:
        return Message(NO_REVENUE_MESSAGE, fy=figures.fiscal_year.label, rate=rate)
    return Message(CAP_MESSAGE, rate=rate)


def expenditure_problems(
    *,
    session: Session,
    district_id: int,
    spent_on: date | None,
    amount: Decimal | None,
    payee: str,
    today: date,
    administrative: bool,
    purpose_id: int | None,
) -> list[Finding]:
    """Every problem of an expenditure before it meets the cap, all at once (a form shows them
    together); ``None`` for a date or amount that could not be read (already flagged)."""
    problems: list[Finding] = []
    if amount is not None and amount <= 0:
        problems.append(Finding("amount", N_("An expenditure must be more than zero.")))
    if spent_on is not None and spent_on > today:
        problems.append(Finding("date", N_("The date cannot be in the future.")))
    if not payee.strip():
        problems.append(Finding("payee", N_("Name who was paid.")))
    if administrative:
        if purpose_id is not None:
            problems.append(
                Finding(
                    "purpose",
                    N_("An expenditure is either administrative or for a purpose, not both."),
                )
            )
    elif purpose_id is None:
        problems.append(
            Finding(
                "purpose",
                N_("Choose the authorized purpose of the ordinance, or mark it administrative."),
            )
        )
    else:
        purpose = session.get(AuthorizedPurpose, purpose_id)
        if purpose is None or purpose.district_id != district_id:
            problems.append(
                Finding("purpose", N_("This is not a purpose the ordinance authorizes."))
            )
        elif not purpose.active:
            problems.append(Finding("purpose", N_("This purpose is no longer authorized.")))
    return problems


class RepeatedExpenditureError(InputError):
    """An expenditure like one already booked (same date, amount, payee and purpose):
    booked only when the person confirms it is another one."""

    def __init__(self, earlier: Expenditure, number: int | None) -> None:
        super().__init__(
            "confirm_repeat",
            Message(
                "An expenditure of %(amount)s to %(payee)s dated %(day)s is already booked "
                "(entry %(number)s of the journal). If this is another expenditure, confirm it "
                "below to book it too.",
                amount=Amount(earlier.amount),
                payee=earlier.payee,
                day=earlier.spent_on,
                number=number if number is not None else "—",
            ),
        )
        self.earlier = earlier


def _refuse_a_repeat(
    session: Session,
    district_id: int,
    spent_on: date,
    amount: Decimal,
    payee: str,
    purpose_id: int | None,
) -> None:
    """An expenditure like one already booked, refused: the same form sent from two tabs,
    or typed twice."""
    earlier = session.exec(
        select(Expenditure)
        .where(
            Expenditure.district_id == district_id,
            Expenditure.spent_on == spent_on,
            Expenditure.amount == amount,
            Expenditure.payee == payee.strip()[:200],
            Expenditure.purpose_id == purpose_id,
        )
        .order_by(col(Expenditure.id))
        .limit(1)
    ).first()
    if earlier is not None:
        entry = session.get(JournalEntry, earlier.entry_id)
        raise RepeatedExpenditureError(earlier, entry.number if entry is not None else None)


# Long: the checks, the cap and the posting run under one district lock.
def record_expenditure(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    spent_on: date,
    amount: Decimal,
    payee: str,
    today: date,
    key: str,
    administrative: bool = False,
    purpose_id: int | None = None,
    description: str = "",
    reference: str = "",
    repeat_confirmed: bool = True,
) -> ExpenditureResult:
    """Book an expenditure on an authorized purpose, or an administrative one within the cap.
    Unless ``repeat_confirmed``, one with the date, amount, payee and purpose of one already
    booked is refused (:class:`RepeatedExpenditureError`, naming the earlier one)."""
    problems = expenditure_problems(
        session=session,
        district_id=district_id,
        spent_on=spent_on,
        amount=amount,
        payee=payee,
        today=today,
        administrative=administrative,
        purpose_id=purpose_id,
    )
    if len(problems) == 1:
        raise InputError(problems[0].field, problems[0].message)
    if problems:
        raise FindingsError(problems)
    purpose: AuthorizedPurpose | None = None
    if administrative:
        account = ADMIN_EXPENSE
    else:
        assert purpose_id is not None
        purpose = session.get(AuthorizedPurpose, purpose_id)
        account = ledger.purpose_account(purpose_id)
    ledger.lock_district(session=session, district_id=district_id)
    fy = fiscal_year_of(spent_on)
    existing = ledger.entry_by_key(session=session, key=key)
    if existing is not None:
        found = session.exec(select(Expenditure).where(Expenditure.entry_id == existing.id)).one()
        return ExpenditureResult(
            found, False, ledger.cap_figures(session=session, district_id=district_id, fy=fy)
        )
    if not repeat_confirmed:
        _refuse_a_repeat(session, district_id, spent_on, amount, payee, purpose_id)
    if administrative:
        figures = ledger.cap_figures(session=session, district_id=district_id, fy=fy)
        decision = ledger.check_cap(figures, more_admin=amount)
        if not decision.allowed:
            raise CapExceededError("amount", cap_message(figures), figures, decision)
    posted = ledger.post_entry(
        session=session,
        actor=actor,
        district_id=district_id,
        entry_date=spent_on,
        kind="expenditure",
        memo=ledger.memo(
            "expenditure",
            payee=payee.strip()[:200],
            amount=money_str(amount),
            **({"purpose": purpose.name} if purpose else {}),
        ),
        key=key,
        lines=[Line(account, amount), Line(BANK, -amount)],
    )
    if not posted.booked:  # a concurrent writer booked the same key first
        found = session.exec(
            select(Expenditure).where(Expenditure.entry_id == posted.entry.id)
        ).one()
        return ExpenditureResult(
            found, False, ledger.cap_figures(session=session, district_id=district_id, fy=fy)
        )
    expenditure = Expenditure(
        district_id=district_id,
        entry_id=posted.entry.id or 0,
        spent_on=spent_on,
        payee=payee.strip()[:200],
        description=description.strip()[:500],
        reference=reference.strip()[:100],
        amount=amount,
        administrative=administrative,
        purpose_id=purpose_id,
    )
    session.add(expenditure)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="expenditure.create",
        entity=expenditure,
        after=audit.snapshot(expenditure),
    )
    return ExpenditureResult(
        expenditure, True, ledger.cap_figures(session=session, district_id=district_id, fy=fy)
    )


def expenditures(
    *, session: Session, district_id: int, since: date | None = None, until: date | None = None
) -> list[Expenditure]:
    stmt = select(Expenditure).where(Expenditure.district_id == district_id)
    if since is not None:
        stmt = stmt.where(Expenditure.spent_on >= since)
    if until is not None:
        stmt = stmt.where(Expenditure.spent_on <= until)
    return list(session.exec(stmt.order_by(col(Expenditure.spent_on), col(Expenditure.id))))


def account_purpose_names(*, session: Session, accounts: Iterable[str]) -> dict[int, str]:
    """The names of the authorized purposes among the journal's ``accounts`` (their expense
    accounts, ``expense:purpose:<id>``), by id: what a page of journal entries labels them by."""
    wanted = {
        int(account.removeprefix(ledger.PURPOSE_PREFIX))
        for account in accounts
        if account.startswith(ledger.PURPOSE_PREFIX)
        and account.removeprefix(ledger.PURPOSE_PREFIX).isdigit()
    }
    if not wanted:
        return {}
    found = session.exec(
        select(AuthorizedPurpose.id, AuthorizedPurpose.name).where(
            col(AuthorizedPurpose.id).in_(sorted(wanted))
        )
    )
    return {purpose_id: name for purpose_id, name in found if purpose_id}
