"""When a fiscal year's figures become public (21 LPRA § 6653(6)): by default once the year
is locked (the auditor's statement issued and the year closed to new entries); before that,
or against it, the district's association or the municipality's clerk chooses — publishing a
year early (a year in progress, or ended and not yet locked) or withdrawing one. Each choice
is kept in the history (``published_year.publish`` / ``published_year.withdraw``) and moves
the district's public version, so no cached page shows the old choice."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import District, FiscalYearLock, PublishedYear
from tid.rules.periods import FiscalYear
from tid.services import audit
from tid.services.access import ADMIN, ASSOCIATION, CLERK, Person
from tid.services.public import versions


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


def choose(
    *, session: Session, actor: audit.Actor, district: District, fy: FiscalYear, published: bool
) -> bool:
    """Publish (``published``) or withdraw the year's figures; False when that was already
    the choice (nothing written). The caller commits."""
    district_id = district.id or 0
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
    versions.bump(session=session, district_ids=[district_id])
    return True
