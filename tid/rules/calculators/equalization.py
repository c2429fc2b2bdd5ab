"""The Municipal Equalization Fund ((b)–(d)): its rule (tid/rules/equalization.py), its
form, the labels of its fields and its chart, the hold-harmless adjustments by
municipality."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section, Table
from tid.rules.calculators.kit import Calculator, SignedChart

_FY_HINT = N_("Like 2024-25 (July 1, 2024 to June 30, 2025).")

FORM = FormSpec(
    name="equalization",
    title=N_("Municipal Equalization Fund"),
    description=N_(
        "The lottery and General Fund shares and the hold-harmless adjustments by municipality."
    ),
    citation=N_("Municipal Equalization Fund (b)–(d)"),
    sections=(
        Section(
            N_("Fiscal year and revenues"),
            (
                Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),
                Field(
                    "lottery_net_income",
                    "money",
                    N_("Net income of the Additional Lottery System"),
                    True,
                ),
                Field("gf_net_revenues", "money", N_("General Fund net internal revenues"), True),
                Field(
                    "excluded_revenues",
                    "money",
                    N_("Revenues left out of the base (Act 7-2009)"),
                ),
                Field("traffic_fines", "money", N_("Traffic-fine collections")),
                Field("basic_property_tax", "money", N_("Basic property tax")),
            ),
        ),
        Section(
            N_("Municipalities"),
            (
                Table(
                    "municipalities",
                    N_("Municipalities"),
                    (
                        Field("name", "text", N_("Municipality"), True),
                        Field("base", "money", N_("Base allocation"), True),
                        Field("allocation_2007_08", "money", N_("Allocation FY2007-08"), True),
                        Field("income_2007_08", "money", N_("Total income FY2007-08"), True),
                    ),
                    min_rows=8,
                ),
            ),
        ),
    ),
)

LABELS: dict[str, str] = {
    "lottery_net_income": N_("Lottery net income"),
    "gf_net_revenues": N_("General Fund net internal revenues"),
    "excluded_revenues": N_("Excluded revenues"),
    "traffic_fines": N_("Traffic fines"),
    "basic_property_tax": N_("Basic property tax"),
    "municipalities": N_("Municipalities"),
    "allocation_2007_08": N_("Allocation FY2007-08"),
    "income_2007_08": N_("Income FY2007-08"),
    "lottery_rate": N_("Lottery rate"),
    "lottery_share": N_("Lottery share"),
    "gf_rate": N_("General Fund rate"),
    "gf_base": N_("General Fund base"),
    "gf_share": N_("General Fund share"),
    "public_works_fund": N_("Municipal Public Works Fund"),
    "ratio_2007_08": N_("Ratio FY2007-08"),
    "protected": N_("Protected"),
    "adjustment": N_("Adjustment"),
    "final": N_("Final"),
    "fund_total": N_("Fund total"),
    "hold_harmless_applied": N_("Hold-harmless applied"),
}


def adjustments(result: Mapping[str, Any]) -> SignedChart | None:
    """The hold-harmless adjustment of each municipality of a result."""
    municipalities = result.get("municipalities")
    if not isinstance(municipalities, list) or not municipalities:
        return None
    return SignedChart(
        title=N_("Hold-harmless adjustments by municipality"),
        description=N_(
            "Bars right of zero: top-ups to the FY2007-08 allocation; left of zero: what "
            "was taken from the other municipalities to pay for them."
        ),
        items=tuple(
            (str(m.get("name")), Decimal(str(m.get("adjustment", "0"))))
            for m in municipalities
            if isinstance(m, Mapping)
        ),
        value_label=N_("Adjustment"),
    )


CALCULATOR = Calculator(
    name="equalization",
    rule="tid.rules.equalization:equalization_document",
    form=FORM,
    labels=LABELS,
    chart=adjustments,
    reads=("equalization",),
)
