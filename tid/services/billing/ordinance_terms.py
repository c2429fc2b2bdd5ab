"""The ordinance a fiscal year is billed by: the district's approved ordinance whose term
(§ 6653(3)(c)) includes the year."""

from __future__ import annotations

from sqlmodel import Session, col
from sqlmodel import select as sm_select

from tid.models import Ordinance
from tid.rules import periods
from tid.rules.errors import N_, InputError


def ordinance_term(ordinance: Ordinance) -> tuple[periods.FiscalYear, periods.FiscalYear]:
    """The first and last fiscal years of the ordinance's term (§ 6653(3)(c)): counted from
    the fiscal year of the mayor's approval, ``term_years`` fiscal years in all."""
    if ordinance.approved_on is None:
        raise InputError("ordinance", N_("The mayor has not approved this ordinance."))
    first = periods.fiscal_year_of(ordinance.approved_on)
    return first, periods.FiscalYear(first.start_year + max(ordinance.term_years, 1) - 1)


def ordinance_for(
    *, session: Session, district_id: int, fiscal_year: str, ordinance_id: int | None = None
) -> Ordinance:
    """The district's approved ordinance whose term includes the fiscal year (the latest
    approved one when several do); ``InputError`` when there is none."""
    fy = periods.parse_fiscal_year(fiscal_year)
    if ordinance_id is not None:
        ordinance = session.get(Ordinance, ordinance_id)
        if ordinance is None or ordinance.district_id != district_id:
            raise InputError("ordinance", N_("This ordinance is not of this district."))
        candidates = [ordinance]
    else:
        candidates = list(
            session.exec(
                sm_select(Ordinance)
                .where(Ordinance.district_id == district_id)
                .order_by(col(Ordinance.approved_on).desc(), col(Ordinance.id).desc())
            )
        )
        if not candidates:
            raise InputError(
                "ordinance", N_("The district has no ordinance: its formula is needed to bill.")
            )
    approved = [o for o in candidates if o.approved_on is not None]
    if not approved:
        raise InputError("ordinance", N_("The mayor has not approved this ordinance."))
    for ordinance in approved:
        first, last = ordinance_term(ordinance)
        if first <= fy <= last:
            return ordinance
    raise InputError(
        "fiscal_year", N_("This fiscal year is outside the term of the district's ordinance.")
    )
