"""The release of the impost lien (21 LPRA § 6653(8)): once nothing the lien secures is owed
on a property — every impost billed on it paid — the association issues a release, a
document of record with its verification code like the quote and the certificate. While
anything secured is owed, no release is issued (the figure is said)."""

from __future__ import annotations

from datetime import date

from sqlmodel import Session, col, select

from tid.models import Bill, BillStatus, IssuedDocument, Property
from tid.rules.errors import InputError
from tid.rules.messages import Message
from tid.rules.money import money_str
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.closing import issued
from tid.services.liens import impost_lien as liens


def released_years(*, session: Session, property_id: int) -> list[str]:
    """The fiscal years billed on the property (its active bills), oldest first."""
    stmt = (
        select(Bill.fiscal_year)
        .where(Bill.property_id == property_id, Bill.status == BillStatus.ACTIVE.value)
        .distinct()
        .order_by(col(Bill.fiscal_year))
    )
    return list(session.exec(stmt))


def _standing_release(session: Session, prop: Property) -> IssuedDocument | None:
    """The property's latest release, while no bill was made on the property after it: a
    second release of the same lien would say nothing the first does not."""
    latest = session.exec(
        select(IssuedDocument)
        .where(
            IssuedDocument.property_id == (prop.id or 0),
            IssuedDocument.kind == issued.RELEASE,
        )
        .order_by(col(IssuedDocument.created_at).desc(), col(IssuedDocument.id).desc())
        .limit(1)
    ).first()
    if latest is None:
        return None
    billed_since = session.exec(
        select(Bill.id)
        .where(Bill.property_id == (prop.id or 0), col(Bill.created_at) > latest.created_at)
        .limit(1)
    ).first()
    return latest if billed_since is None else None


def issue_release(
    *,
    session: Session,
    actor: audit.Actor,
    district_id: int,
    property_id: int,
    today: date,
    issued_by: str = "",
) -> IssuedDocument:
    """Record the release of the property's impost lien (its PDF follows); refused while
    the lien secures anything."""
    ledger.lock_district(session=session, district_id=district_id)
    prop = session.get(Property, property_id)
    if prop is None or prop.district_id != district_id:
        raise InputError("property", issued.NO_SUCH_PROPERTY)
    lien = liens.impost_lien(session=session, prop=prop, today=today)
    if lien.secured > 0:
        raise InputError(
            "property",
            Message(
                "No release while the impost lien secures %(amount)s still owed: a payment "
                "that settles a payoff quote pays it.",
                amount=money_str(lien.secured),
            ),
        )
    earlier = _standing_release(session, prop)
    if earlier is not None:
        raise InputError(
            "property",
            Message(
                "The impost lien was released on %(day)s (%(reference)s) and nothing was billed "
                "on the property since: that release stands.",
                day=earlier.issued_on,
                reference=earlier.reference,
            ),
        )
    return issued.issue(
        session=session,
        actor=actor,
        kind=issued.RELEASE,
        district_id=district_id,
        property_id=property_id,
        issued_on=today,
        good_through=None,
        figures=issued.Figures(),
        issued_by=issued_by,
    )
