"""The administrative cap of 21 LPRA § 6653(6) on the journal: a fiscal year's revenue and
administrative spending, and the rule's figures and decision on them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import Session

from tid.rules import admin_cap
from tid.rules.errors import InputError
from tid.rules.money import CENT, ZERO
from tid.rules.periods import FiscalYear
from tid.services.ledger.accounts import (
    ADMIN_EXPENSE,
    REVENUE,
)
from tid.services.ledger.balances import day_sums_of


@dataclass(frozen=True)
class CapFigures:
    """/readings#admin-cap-per-fiscal-year: administrative spending booked in a FY against the cap
    rate times the impost revenue collected in that FY so far (the rule's arithmetic:
    ``measure``)."""

    fiscal_year: FiscalYear
    citation: str
    measure: admin_cap.CapMeasure

    @property
    def rate(self) -> Decimal:
        return self.measure.rate

    @property
    def revenue(self) -> Decimal:
        return self.measure.revenue

    @property
    def admin(self) -> Decimal:
        return self.measure.admin

    @property
    def cap(self) -> Decimal:
        """rate × revenue, exact (not rounded)."""
        return self.measure.cap

    @property
    def cap_shown(self) -> Decimal:
        """The cap cut down to whole cents, as the pages show it."""
        return self.measure.cap_cents

    @property
    def headroom(self) -> Decimal:
        """What may still be spent, cut down to whole cents (never below zero)."""
        return self.measure.max_allowed

    @property
    def ratio(self) -> Decimal | None:
        return self.measure.ratio

    @property
    def ratio_percent(self) -> Decimal | None:
        """The ratio as a percentage with two decimals (for display)."""
        return self.measure.ratio_percent


def cap_figures(*, session: Session, district_id: int, fy: FiscalYear) -> CapFigures:
    """21 LPRA § 6653(6): the figures of the administrative cap of one FY, to this moment."""
    sums = day_sums_of(
        session=session,
        district_id=district_id,
        accounts=(REVENUE, ADMIN_EXPENSE),
        since=fy.start,
        until=fy.end,
    )
    return cap_figures_of(
        fy,
        revenue=-sums.get(REVENUE, ZERO.quantize(CENT)),
        admin=sums.get(ADMIN_EXPENSE, ZERO.quantize(CENT)),
    )


def cap_figures_of(fy: FiscalYear, *, revenue: Decimal, admin: Decimal) -> CapFigures:
    """The administrative cap's figures of ``fy`` from the year's revenue and administrative
    spending already summed (the dashboard has them by month)."""
    rate, citation = admin_cap.admin_cap_rate(fy.end)
    return CapFigures(fy, citation, admin_cap.measure(rate=rate, revenue=revenue, admin=admin))


def check_cap(
    figures: CapFigures, *, more_admin: Decimal = ZERO, less_revenue: Decimal = ZERO
) -> admin_cap.AdminCapDecision:
    """The rule's decision (tid/rules/admin_cap.py) on spending ``more_admin`` or taking
    ``less_revenue`` out of the FY's revenue."""
    return admin_cap.check_admin_expenditure(
        revenue_to_date=max(ZERO, figures.revenue - less_revenue),
        # A refund booked this FY of last year's administrative spending makes the FY's
        # total negative; it does not make room for more (the cap is measured per FY).
        admin_to_date=max(ZERO, figures.admin),
        proposed=more_admin,
        cap_rate=figures.rate,
    )


class CapExceededError(InputError):
    """An administrative expenditure (or a reversal of revenue) that would break the cap."""

    def __init__(
        self,
        field: str,
        message: str,
        figures: CapFigures,
        decision: admin_cap.AdminCapDecision,
    ) -> None:
        super().__init__(field, message)
        self.figures = figures
        self.decision = decision
