"""The municipalities and districts as the pages read them: one by its id, the lists of the
forms' choices, and the names that label other rows."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from tid.models import District, Municipality, PublicVersion
from tid.services.auth import access as policy


def district(*, session: Session, district_id: int) -> District | None:
    return session.get(District, district_id)


# The district's row and its version, in one statement (built once: asked on every
# signed-in page of a district).
_VERSION = PublicVersion.__table__  # type: ignore[attr-defined]
_DISTRICT_AND_VERSION = select(
    District,
    sa_select(_VERSION.c.version)
    .where(_VERSION.c.district_id == District.id)
    .correlate(District)
    .scalar_subquery(),
).where(District.id == bindparam("district_id"))


def district_and_version(*, session: Session, district_id: int) -> tuple[District | None, int]:
    """The district and its version (tid/services/public/versions.py; 0 before anything
    moved it), read together: a signed-in page that keeps its content per version reads both."""
    found = session.exec(_DISTRICT_AND_VERSION, params={"district_id": district_id}).first()
    if found is None:
        return None, 0
    district, version = found
    return district, int(version or 0)


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
