"""When a fiscal year's figures become public (21 LPRA § 6653(6)): by default once the year
is locked (the auditor's statement issued and the year closed to new entries); before that,
or against it, the district's association or the municipality's clerk chooses — publishing a
year early (a year in progress, or ended and not yet locked) or withdrawing one. Each choice
is kept in the history (``published_year.publish`` / ``published_year.withdraw``) and moves
the district's public version, so no cached page shows the old choice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func
from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import BillingRun, District, FiscalYearLock, JournalEntry, PublishedYear
from tid.rules.errors import N_, InputError
from tid.rules.periods import FiscalYear, fiscal_year_of, parse_fiscal_year
from tid.services.audit_trail import audit
from tid.services.auth.access import ADMIN, ASSOCIATION, CLERK, Person
from tid.services.district_lock import lock_district
from tid.services.public import published_records, versions

NOT_A_YEAR = N_("Choose one of the district's fiscal years.")


def may_publish(person: Person, district: District) -> bool:
    """An administrator, the district's association, or the clerk of its municipality."""
    if person.role == ADMIN:
        return True
    if person.role == ASSOCIATION:
        return person.district_id is not None and person.district_id == district.id
    return person.role == CLERK and person.municipality_id == district.municipality_id


def may_publish_district(*, session: Session, person: Person, district_id: int) -> bool:
    """Whether ``person`` chooses which of the district's years are public (no such district:
    no)."""
    district = session.get(District, district_id)
    return district is not None and may_publish(person, district)


@dataclass(frozen=True)
class YearChoice:
    """A fiscal year as the public sees it: whether it is public, and why."""

    fiscal_year: str
    public: bool
    locked: bool
    chosen: bool | None  # the explicit choice (None: the default, the lock, decides)


def choices(*, session: Session, district_id: int) -> dict[str, YearChoice]:
    """Every fiscal year with a lock or a choice, by label."""
    locked = {
        row.fiscal_year
        for row in session.exec(
            select(FiscalYearLock).where(FiscalYearLock.district_id == district_id)
        )
    }
    chosen = {
        row.fiscal_year: row.published
        for row in session.exec(
            select(PublishedYear).where(PublishedYear.district_id == district_id)
        )
    }
    return {
        label: YearChoice(
            fiscal_year=label,
            public=chosen.get(label, label in locked),
            locked=label in locked,
            chosen=chosen.get(label),
        )
        for label in sorted(locked | set(chosen))
    }


def is_public(*, session: Session, district_id: int, fy: FiscalYear) -> bool:
    found = choices(session=session, district_id=district_id).get(fy.label)
    return found is not None and found.public


def fiscal_years(*, session: Session, district_id: int) -> list[FiscalYear]:
    """The fiscal years with a billing run or an entry of the special account, newest first."""
    labels = {
        label
        for label in session.exec(
            select(BillingRun.fiscal_year).where(BillingRun.district_id == district_id).distinct()
        )
    }
    first, last = session.exec(
        select(func.min(JournalEntry.entry_date), func.max(JournalEntry.entry_date)).where(
            JournalEntry.district_id == district_id
        )
    ).one()
    years = {parse_fiscal_year(label) for label in labels}
    if first is not None and last is not None:
        fy = fiscal_year_of(first)
        while fy.start <= last:
            years.add(fy)
            fy = fiscal_year_of(fy.end + timedelta(days=1))
    return sorted(years, key=lambda y: y.start, reverse=True)


def years_to_choose(*, session: Session, district_id: int) -> list[YearChoice]:
    """Every fiscal year of the district with figures (or a lock, or a choice), newest
    first, as the public sees it now: the years its association or clerk may publish or
    withdraw, and no other."""
    chosen = choices(session=session, district_id=district_id)
    labels = {fy.label for fy in fiscal_years(session=session, district_id=district_id)}
    labels |= set(chosen)
    return [
        chosen.get(label, YearChoice(fiscal_year=label, public=False, locked=False, chosen=None))
        for label in sorted(labels, reverse=True)
    ]


def year_before_public(*, session: Session, district_id: int, fy: FiscalYear) -> bool:
    """Whether the year before ``fy`` may be seen through ``fy``'s opening balance: it is
    public, or it has no figures (the district's first year)."""
    before = fiscal_year_of(fy.start - timedelta(days=1))
    rows = {r.fiscal_year: r for r in years_to_choose(session=session, district_id=district_id)}
    row = rows.get(before.label)
    return row is None or row.public


def statement_years(*, session: Session, district_id: int, today: date) -> list[str]:
    """The years whose statement may be published as a document of record: ended, their
    figures public, and the year before public too or without figures (a statement opens
    with the balance the year before left)."""
    rows = years_to_choose(session=session, district_id=district_id)
    public = {r.fiscal_year: r.public for r in rows}
    return [
        r.fiscal_year
        for r in rows
        if r.public
        and parse_fiscal_year(r.fiscal_year).end < today
        and public.get(_before(r.fiscal_year), True)
    ]


def _before(label: str) -> str:
    return fiscal_year_of(parse_fiscal_year(label).start - timedelta(days=1)).label


NOT_A_STATEMENT_YEAR = N_(
    "Choose a fiscal year that has ended and whose figures are public, as is the year before "
    "it: a statement of record shows no figure the public may not see."
)


def check_statement_year(
    *, session: Session, district_id: int, fy: FiscalYear, today: date
) -> None:
    """Refuse a statement of record of a year :func:`statement_years` does not offer."""
    if fy.label not in statement_years(session=session, district_id=district_id, today=today):
        raise InputError("fiscal_year", NOT_A_STATEMENT_YEAR)


def choose(
    *, session: Session, actor: audit.Actor, district: District, fy: FiscalYear, published: bool
) -> bool:
    """Publish (``published``) or withdraw the year's figures; False when that was already
    the choice (nothing written). Only one of the district's years (:func:`years_to_choose`)
    may be chosen. Withdrawing a year withdraws the documents of record published of it.
    The caller commits."""
    district_id = district.id or 0
    lock_district(session=session, district_id=district_id)
    offered = {r.fiscal_year for r in years_to_choose(session=session, district_id=district_id)}
    if fy.label not in offered:
        raise InputError("fiscal_year", NOT_A_YEAR)
    row = session.exec(
        select(PublishedYear).where(
            PublishedYear.district_id == district_id, PublishedYear.fiscal_year == fy.label
        )
    ).first()
    if row is not None and row.published == published:
        return False
    before = audit.snapshot(row)
    if row is None:
        row = PublishedYear(
            district_id=district_id, fiscal_year=fy.label, published=published, actor=actor.label
        )
    else:
        row.published, row.actor, row.updated_at = published, actor.label, utcnow()
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="published_year.publish" if published else "published_year.withdraw",
        entity=row,
        before=before,
        after=audit.snapshot(row),
    )
    if not published:
        for document in published_records.listed(session=session, district_id=district_id):
            if document.fiscal_year == fy.label:
                published_records.withdraw(
                    session=session,
                    actor=actor,
                    district_id=district_id,
                    document_id=document.id or 0,
                )
    versions.bump(session=session, district_ids=[district_id])
    return True
