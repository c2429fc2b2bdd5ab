"""The municipalities and districts as the pages read them: one by its id, the lists of the
forms' choices, and the names that label other rows."""

from __future__ import annotations

from collections.abc import Collection

from sqlmodel import Session, col, select

from tid.models import District, Municipality
from tid.services.auth import access as policy


def district(*, session: Session, district_id: int) -> District | None:
    return session.get(District, district_id)


def municipality(*, session: Session, municipality_id: int) -> Municipality | None:
    return session.get(Municipality, municipality_id)


def municipalities(*, session: Session) -> list[Municipality]:
    """Every municipality, by name."""
    return list(session.exec(select(Municipality).order_by(col(Municipality.name))))


def districts(*, session: Session) -> list[District]:
    """Every district, by name."""
    return list(session.exec(select(District).order_by(col(District.name))))


def municipality_names(*, session: Session) -> dict[int | None, str]:
    """Every municipality's name by its id."""
    return {m.id: m.name for m in session.exec(select(Municipality))}


def district_names(
    *, session: Session, district_ids: Collection[int] | None = None
) -> dict[int | None, str]:
    """The districts' names by their ids (every district's without ``district_ids``)."""
    stmt = select(District)
    if district_ids is not None:
        stmt = stmt.where(col(District.id).in_(list(district_ids)))
    return {d.id: d.name for d in session.exec(stmt)}


def visible_districts(
    *, session: Session, person: policy.Person
) -> list[tuple[District, Municipality]]:
    """The districts ``person`` may see with their municipality, by municipality and name."""
    stmt = (
        select(District, Municipality)
        .join(Municipality, col(Municipality.id) == col(District.municipality_id))
        .order_by(col(Municipality.name), col(District.name))
    )
    return [
        (d, m)
        for d, m in session.exec(stmt).all()
        if policy.can_see_district(person, d.id, d.municipality_id)
    ]
