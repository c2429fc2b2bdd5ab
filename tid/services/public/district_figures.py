"""A district in the open (21 LPRA § 6653(3), (6)): its ordinance, its roll's size year by
year, and each published fiscal year's money — billed, collected, still owed at the year's
end, spent by purpose, administrative spending against the cap, the bank at the year's end.

Every figure of a year is the yearly statement's own (:func:`account_reads.
statement_page_context`, the account's statement page and its PDF; the billing run's total
for what was billed), so the public page, the API and the files say what the association's
statement says. Rows leave here only through :func:`public_view`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from tid.models import (
    BillingRun,
    BillingRunStatus,
    District,
    Municipality,
    OpeningYear,
    Ordinance,
    PropertyYear,
)
from tid.rules.aging import AGING_BUCKETS
from tid.rules.imposts import compile_formula
from tid.rules.money import ZERO
from tid.rules.periods import FiscalYear, parse_fiscal_year
from tid.rules.vocab import formula_name_label
from tid.services import roll
from tid.services.account import account_reads, audit_statement
from tid.services.public import published_records, publishing, stored_figures, versions
from tid.services.public.declared import public_view
from tid.services.public.public_budgets import public_budgets
from tid.services.public.publishing import fiscal_years
from tid.services.roll_check import billing_statement as roll_statements

HUNDRED = Decimal(100)
NOT_YET_DUE = AGING_BUCKETS[0][1]


@dataclass(frozen=True)
class DistrictPage:
    """What a district's public page shows: the district, its municipality, its ordinance
    (with the term's end, the years left and the formula's names in words), the roll by
    year, and the fiscal years — the published ones with their figures."""

    district: dict[str, Any]
    municipality: dict[str, Any]
    ordinance: dict[str, Any] | None
    term_ends: date | None
    years_left: int | None
    formula_names: list[dict[str, Any]]
    roll_years: list[dict[str, Any]]
    years: list[dict[str, Any]]  # published, newest first
    unpublished: list[str]  # fiscal years with figures not (yet) public, newest first
    documents: list[dict[str, Any]]  # the documents of record published, newest year first
    # the fiscal years before the district moved in, as its earlier books closed them
    earlier_years: list[dict[str, Any]] = field(default_factory=list)
    # the approved budgets, newest year first (never a draft: tid/services/public/budgets.py)
    budgets: list[dict[str, Any]] = field(default_factory=list)


def earlier_years(*, session: Session, district_id: int) -> list[OpeningYear]:
    """The fiscal years before the district moved in (tid/services/aboard), newest first."""
    return list(
        session.exec(
            select(OpeningYear)
            .where(OpeningYear.district_id == district_id)
            .order_by(col(OpeningYear.fiscal_year).desc())
        )
    )


def municipalities(*, session: Session) -> list[dict[str, Any]]:
    """Every municipality with districts or petitions, by name, each with its districts."""
    from tid.models import Petition

    districts = list(session.exec(select(District).order_by(col(District.name))))
    with_petitions = {
        m for m in session.exec(select(col(Petition.municipality_id)).distinct()) if m
    }
    by_municipality: dict[int, list[dict[str, Any]]] = {}
    for district in districts:
        by_municipality.setdefault(district.municipality_id, []).append(
            public_view("district", district)
        )
    result = []
    for municipality in session.exec(select(Municipality).order_by(col(Municipality.name))):
        mid = municipality.id or 0
        if mid in by_municipality or mid in with_petitions:
            row = public_view("municipality", municipality)
            result.append({**row, "districts": by_municipality.get(mid, [])})
    return result


def ordinance_in_force(*, session: Session, district_id: int) -> Ordinance | None:
    """The district's ordinance in force: the latest approved, else the latest issued."""
    rows = list(
        session.exec(
            select(Ordinance)
            .where(Ordinance.district_id == district_id)
            .order_by(col(Ordinance.issued_on).desc(), col(Ordinance.id).desc())
        )
    )
    approved = [o for o in rows if o.approved_on is not None]
    chosen = approved or rows
    return chosen[0] if chosen else None


def _term(ordinance: Ordinance, today: date) -> tuple[date, int]:
    """When the term ends (from the mayor's approval, else the issue) and the whole years
    left of it (0 once ended)."""
    start = ordinance.approved_on or ordinance.issued_on
    try:
        ends = start.replace(year=start.year + ordinance.term_years)
    except ValueError:  # February 29
        ends = start.replace(year=start.year + ordinance.term_years, day=28)
    left = 0
    while left < ordinance.term_years and _add_years(today, left + 1) <= ends:
        left += 1
    return ends, left


def _add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def active_run_parameters(*, session: Session, district_id: int) -> dict[str, str]:
    """The named parameters of the district's latest active billing run (text values)."""
    run = session.exec(
        select(BillingRun)
        .where(
            BillingRun.district_id == district_id,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
        .order_by(col(BillingRun.fiscal_year).desc(), col(BillingRun.version).desc())
    ).first()
    found: dict[str, str] = json.loads(run.parameters or "{}") if run is not None else {}
    return found


def formula_names(ordinance: Ordinance, parameters: dict[str, str]) -> list[dict[str, Any]]:
    """Each name the formula reads, in words: a column of the roll, or a figure of the
    ordinance or a parameter with its value."""
    names = [*parameters, "expected_amount"]
    try:
        formula = compile_formula(ordinance.formula, parameters=names)
    except Exception:  # a formula the billing refuses is shown as written
        return []
    values = {**parameters, "expected_amount": str(ordinance.expected_amount)}
    result = []
    for name in dict.fromkeys(formula.names):
        is_parameter = name in formula.parameters
        result.append(
            {
                "name": name,
                "label": formula_name_label(name) or name.replace("_", " "),
                "kind": "parameter" if is_parameter else "roll",
                "value": values.get(name) if is_parameter else None,
            }
        )
    return result


def roll_years(*, session: Session, district_id: int) -> list[dict[str, Any]]:
    """The roll of each fiscal year: how many properties and their assessed value in all."""
    totals = dict(
        session.exec(
            select(PropertyYear.fiscal_year, func.sum(PropertyYear.assessed_value))
            .where(PropertyYear.district_id == district_id, col(PropertyYear.in_roll))
            .group_by(col(PropertyYear.fiscal_year))
        ).all()
    )
    verified: dict[str, tuple[str, bool]] = {}
    for signed in roll_statements.of_district(session=session, district_id=district_id):
        verified.setdefault(signed.fiscal_year, (signed.signed_on.isoformat(), signed.checked))
    return [
        public_view(
            "roll_year",
            {
                "district_id": district_id,
                "fiscal_year": label,
                "properties": count,
                "assessed_value": _money(totals.get(label)),
                "verified_on": verified.get(label, (None, False))[0],
                "checked": verified.get(label, (None, False))[1],
            },
        )
        for label, count in roll.fiscal_years(session=session, district_id=district_id)
    ]


def _money(value: object) -> Decimal:
    """A summed money column (its type reads the cents back as dollars); nothing: zero."""
    return value if isinstance(value, Decimal) else ZERO


def _billed(session: Session, district_id: int, fy: FiscalYear) -> tuple[Decimal, int]:
    """The year's active billing run: what it billed and how many properties."""
    run = session.exec(
        select(BillingRun)
        .where(
            BillingRun.district_id == district_id,
            BillingRun.fiscal_year == fy.label,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
        .order_by(col(BillingRun.version).desc())
    ).first()
    return (run.total, run.property_count) if run is not None else (ZERO, 0)


def year_figures(
    *, session: Session, district: District, fy: FiscalYear, today: date
) -> dict[str, Any]:
    """One fiscal year's public figures, from the yearly statement's own reads."""
    district_id = district.id or 0
    context = account_reads.statement_page_context(
        session=session, district=district, fy=fy, booked_by=None, today=today
    )
    st: audit_statement.Statement = context["st"]
    totals: list[tuple[str, Decimal]] = context["aging_totals"]
    billed, billed_properties = _billed(session, district_id, fy)
    owed = sum((amount for _label, amount in totals), ZERO)
    delinquent = sum((amount for label, amount in totals if label != NOT_YET_DUE), ZERO)
    rate = None if billed == 0 else (st.impost_revenue * HUNDRED / billed).quantize(Decimal("0.1"))
    # The bank's balances carry every year before: shown only when the year before is public
    # too (or has no figures), so a public year never reveals what an unpublished one left.
    balances = publishing.year_before_public(session=session, district_id=district_id, fy=fy)
    return public_view(
        "fiscal_year",
        {
            "district_id": district_id,
            "fiscal_year": fy.label,
            "billed": billed,
            "properties_billed": billed_properties,
            "collected": st.impost_revenue,
            "collection_rate": rate,
            "owed_at_year_end": owed,
            "delinquent_at_year_end": delinquent,
            "opening_balance": st.opening_balance if balances else None,
            "owner_credits": st.owner_credits,
            "spent_by_purpose": [
                {"purpose": line.name, "amount": line.amount} for line in st.program
            ],
            "program_total": st.program_total,
            "admin_total": st.admin_total,
            "admin_ratio_percent": st.admin_ratio_percent,
            "cap_rate": st.cap_rate,
            "cap": st.cap,
            "closing_balance": st.closing_balance if balances else None,
            "other_movements": st.other_movements,
        },
    )


def district_page(*, session: Session, district_id: int, today: date) -> DistrictPage | None:
    """The district's public page (None: there is no such district), kept per version."""
    version = versions.version_of(session=session, district_id=district_id)

    def make() -> DistrictPage | None:
        district = session.get(District, district_id)
        return None if district is None else _district_page(session, district, today, version)

    return versions.kept(
        session=session, district_id=district_id, key=("page", today), make=make, version=version
    )


def _stored_year(
    session: Session, district: District, fy: FiscalYear, today: date, version: int
) -> dict[str, Any]:
    """The year's figures as kept for the district's version (computed the first time)."""
    return stored_figures.figures(
        session=session,
        district_id=district.id or 0,
        name=f"year:{fy.label}",
        version=version,
        make=lambda: year_figures(session=session, district=district, fy=fy, today=today),
    )


def _district_page(session: Session, district: District, today: date, version: int) -> DistrictPage:
    district_id = district.id or 0
    municipality = session.get(Municipality, district.municipality_id)
    ordinance = ordinance_in_force(session=session, district_id=district_id)
    term_ends = years_left = None
    names: list[dict[str, Any]] = []
    if ordinance is not None:
        term_ends, years_left = _term(ordinance, today)
        names = formula_names(
            ordinance, active_run_parameters(session=session, district_id=district_id)
        )
    chosen = publishing.choices(session=session, district_id=district_id)
    years, unpublished = [], []
    labels = stored_figures.figures(
        session=session,
        district_id=district_id,
        name="years",
        version=version,
        make=lambda: [y.label for y in fiscal_years(session=session, district_id=district_id)],
    )
    for fy in map(parse_fiscal_year, labels):
        choice = chosen.get(fy.label)
        if choice is not None and choice.public:
            years.append(_stored_year(session, district, fy, today, version))
        else:
            unpublished.append(fy.label)
    return DistrictPage(
        district=public_view("district", district),
        municipality=public_view("municipality", municipality or {"id": 0, "name": ""}),
        ordinance=public_view("ordinance", ordinance) if ordinance is not None else None,
        term_ends=term_ends,
        years_left=years_left,
        formula_names=names,
        roll_years=stored_figures.figures(
            session=session,
            district_id=district_id,
            name="roll",
            version=version,
            make=lambda: roll_years(session=session, district_id=district_id),
        ),
        years=years,
        unpublished=unpublished,
        documents=published_records.public_rows(session=session, district_id=district_id),
        earlier_years=[
            public_view("earlier_year", year)
            for year in earlier_years(session=session, district_id=district_id)
        ],
        budgets=stored_figures.figures(
            session=session,
            district_id=district_id,
            name="budgets",
            version=version,
            make=lambda: public_budgets(
                session=session,
                district_id=district_id,
                public_years={y["fiscal_year"] for y in years},
            ),
        ),
    )


@dataclass(frozen=True)
class YearPage:
    """A published fiscal year of a district: its figures and its months (the charts)."""

    district: dict[str, Any]
    municipality: dict[str, Any]
    figures: dict[str, Any]
    months: list[dict[str, Any]]


def year_page(
    *, session: Session, district_id: int, fy: FiscalYear, today: date
) -> YearPage | None:
    """A published year of the district (None: no such district, or the year is not
    public)."""
    version = versions.version_of(session=session, district_id=district_id)

    def make() -> YearPage | None:
        district = session.get(District, district_id)
        if district is None or not publishing.is_public(
            session=session, district_id=district_id, fy=fy
        ):
            return None
        municipality = session.get(Municipality, district.municipality_id)
        return YearPage(
            district=public_view("district", district),
            municipality=public_view("municipality", municipality or {"id": 0, "name": ""}),
            figures=_stored_year(session, district, fy, today, version),
            months=stored_figures.figures(
                session=session,
                district_id=district_id,
                name=f"months:{fy.label}",
                version=version,
                make=lambda: _months(session, district_id, fy),
            ),
        )

    return versions.kept(
        session=session,
        district_id=district_id,
        key=("year", fy.label, today),
        make=make,
        version=version,
    )


def _months(session: Session, district_id: int, fy: FiscalYear) -> list[dict[str, Any]]:
    """The year's months as the charts show them: collected and spent, and to date."""
    return [
        public_view(
            "month",
            {
                "fiscal_year": fy.label,
                "month": m.label,
                "collected": m.revenue,
                "program": m.program,
                "admin": m.admin,
                "collected_to_date": m.revenue_to_date,
                "admin_to_date": m.admin_to_date,
            },
        )
        for m in audit_statement.months(session=session, district_id=district_id, fy=fy)
    ]
