"""The excise allocations (13 LPRA § 31751): its rule (tid/rules/excise.py), its form, the
labels of its fields and its chart, the months stacked by recipient."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section, Table
from tid.rules.calculators.kit import Calculator, months_by_recipient

_FY_HINT = N_("Like 2024-25 (July 1, 2024 to June 30, 2025).")

FORM = FormSpec(
    name="excise-allocation",
    title=N_("Excise allocations"),
    description=N_(
        "Gasoline, diesel, crude-oil and cigarette taxes to the Highways Authority, the "
        "bus authorities and the General Fund, month by month."
    ),
    citation=N_("13 LPRA § 31751"),
    sections=(
        Section(
            N_("Fiscal year"),
            (Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),),
        ),
        Section(
            N_("Collections each month"),
            (
                Table(
                    "months",
                    N_("Collections each month"),
                    (
                        Field("month", "month", N_("Month"), True),
                        Field("gasoline_tax", "money", N_("Gasoline tax"), True),
                        Field("diesel_gallons", "quantity", N_("Diesel gallons"), True),
                        Field("crude_oil_excise", "money", N_("Crude-oil excise"), True),
                        Field("reimbursements", "money", N_("Reimbursements"), True),
                        Field("cigarette_tax", "money", N_("Cigarette tax"), True),
                        Field(
                            "cigarette_reimbursements",
                            "money",
                            N_("Cigarette reimbursements (13 LPRA § 31668)"),
                        ),
                    ),
                    min_rows=12,
                ),
            ),
        ),
    ),
)

LABELS: dict[str, str] = {
    "gasoline_tax": N_("Gasoline tax"),
    "diesel_gallons": N_("Diesel gallons"),
    "crude_oil_excise": N_("Crude-oil excise"),
    "reimbursements": N_("Reimbursements"),
    "cigarette_tax": N_("Cigarette tax"),
    "cigarette_reimbursements": N_("Cigarette reimbursements (13 LPRA § 31668)"),
    "cigarette_allocated": N_("Cigarette tax allocated"),
    "hta_fuel": N_("Highways Authority (fuel)"),
    "hta_cigarette": N_("Highways Authority (cigarettes)"),
    "mba": N_("Metropolitan Bus Authority"),
    "prita": N_("Integrated Transportation Authority"),
    "reachable_annual_max": N_("Reachable annual maximum"),
    "outstanding": N_("Outstanding at year end"),
    "carried_after_last_month": N_("Carried after the last month given"),
}

CALCULATOR = Calculator(
    name="excise-allocation",
    rule="tid.rules.excise:excise_document",
    form=FORM,
    labels=LABELS,
    chart=months_by_recipient,
    reads=("excise",),
)
