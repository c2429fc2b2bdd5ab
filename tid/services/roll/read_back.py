"""The roll read back: its fiscal years and imports, a page of a year's roll, one property's
history, and the attributes a formula may use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import Property, PropertyYear, RollImport
from tid.rules.vocab.roll_columns import formula_columns
from tid.services.paging import PER_PAGE, PageInfo, cadastral_or_owner, page_info


def fiscal_years(*, session: Session, district_id: int) -> list[tuple[str, int]]:
    """The fiscal years with a roll, newest first, with the number of properties in each."""
    stmt = (
        select(PropertyYear.fiscal_year, func.count())
        .where(PropertyYear.district_id == district_id, col(PropertyYear.in_roll))
        .group_by(col(PropertyYear.fiscal_year))
        .order_by(col(PropertyYear.fiscal_year).desc())
    )
    return [(fy, int(n)) for fy, n in session.exec(stmt)]


def imports(*, session: Session, district_id: int) -> list[RollImport]:
    stmt = (
        select(RollImport)
        .where(RollImport.district_id == district_id)
        .order_by(col(RollImport.imported_at).desc(), col(RollImport.id).desc())
    )
    return list(session.exec(stmt))


@dataclass(frozen=True)
class RollPage(PageInfo):
    rows: list[tuple[Property, PropertyYear]] = field(default_factory=list)


def roll_page(
    *,
    session: Session,
    district_id: int,
    fiscal_year: str,
    search: str = "",
    page: int = 1,
    per_page: int = PER_PAGE,
) -> RollPage:
    """One page of a year's roll, by cadastral number, optionally searched by cadastral
    number or owner (plain text; no pattern characters are interpreted). The page walks the
    district's properties in cadastral order (their unique index) and stops at its last
    row; the count of a whole year reads the index of the year's roll alone."""
    where: list[Any] = [
        PropertyYear.district_id == district_id,
        PropertyYear.fiscal_year == fiscal_year,
        col(PropertyYear.in_roll),
    ]
    matching = cadastral_or_owner(search)
    count_stmt = select(func.count()).select_from(PropertyYear).where(*where)
    if matching is not None:
        where.append(matching)
        count_stmt = (
            select(func.count())
            .select_from(PropertyYear)
            .join(Property, col(PropertyYear.property_id) == col(Property.id))
            .where(*where)
        )
    info = page_info(int(session.exec(count_stmt).one()), page, per_page)
    stmt = (
        select(Property, PropertyYear)
        .join(PropertyYear, col(PropertyYear.property_id) == col(Property.id))
        .where(Property.district_id == district_id, *where)
        .order_by(col(Property.cadastral_number))
        .offset(info.offset)
        .limit(per_page)
    )
    return RollPage(rows=list(session.exec(stmt).all()), **info.position())


def property_history(*, session: Session, property_id: int) -> list[PropertyYear]:
    """Every fiscal year's roll row of one property, newest first."""
    stmt = (
        select(PropertyYear)
        .where(PropertyYear.property_id == property_id)
        .order_by(col(PropertyYear.fiscal_year).desc())
    )
    return list(session.exec(stmt))


def attribute_names(*, session: Session, district_id: int, fiscal_year: str) -> list[str]:
    """The attributes a formula may use on this roll: the standard ones and the extras."""
    names = set(formula_columns())
    stmt = (
        select(PropertyYear.attributes)
        .where(
            PropertyYear.district_id == district_id,
            PropertyYear.fiscal_year == fiscal_year,
            col(PropertyYear.in_roll),
        )
        .distinct()
    )
    for text in session.exec(stmt):
        names.update(json.loads(text or "{}"))
    return sorted(names)


def district_attribute_names(*, session: Session, district_id: int | None) -> list[str]:
    """The attributes a formula may use on any of the district's rolls: the standard ones
    and the extras of every year imported (the standard ones alone without a district)."""
    names = set(formula_columns())
    if district_id is not None:
        stmt = (
            select(PropertyYear.attributes)
            .where(PropertyYear.district_id == district_id, col(PropertyYear.in_roll))
            .distinct()
        )
        for text in session.exec(stmt):
            names.update(json.loads(text or "{}"))
    return sorted(names)


def decimal_attributes(text: str) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in json.loads(text or "{}").items()}


def parcel(*, session: Session, district_id: int, property_id: int) -> Property | None:
    """The district's property with this id (None: the district has no such property)."""
    found = session.get(Property, property_id)
    return found if found is not None and found.district_id == district_id else None
