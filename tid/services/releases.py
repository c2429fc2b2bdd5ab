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
from tid.services import audit, issued, liens


def released_years(*, session: Session, property_id: int) -> list[str]:
    """The fiscal years billed on the property (its active bills), oldest first."""
    stmt = (
        select(Bill.fiscal_year)
        .where(Bill.property_id == property_id, Bill.status == BillStatus.ACTIVE.value)
        .distinct()
        .order_by(col(Bill.fiscal_year))
    )
    return list(session.exec(stmt))


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
