"""Who receives the room tax collected (IRC 1994 § 2051(5); Act 272-2003 § 31): its rule
(tid/rules/distribution.py), its form, the labels of its fields and its chart, the months
stacked by recipient."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Group, Section, Table
from tid.rules.calculators.kit import Calculator, months_by_recipient
from tid.rules.vocab.lodging_types import irc1994_types

_FY_HINT = N_("Like 2024-25 (July 1, 2024 to June 30, 2025).")

FORM = FormSpec(
    name="room-tax-distribution",
    title=N_("Room tax distribution"),
    description=N_(
        "Who receives the room tax collected: per fiscal year up to 2002-03 (and FY2003-04 "
        "up to September 8, 2003), month by month from September 2003."
    ),
    citation=N_("IRC 1994 § 2051(5); Act 272-2003 § 31"),
    sections=(
        Section(
            N_("Fiscal year"),
            (Field("fiscal_year", "fiscal_year", N_("Fiscal year"), True, hint=_FY_HINT),),
        ),
        Section(
            N_("From September 2003 (Act 272-2003 § 31), month by month"),
            (
                Field(
                    "bank_certified_amount",
                    "money",
                    N_("Amount certified by the Bank for the Authority's debt service"),
                ),
                Field(
                    "bureau_floor_from_fy",
                    "fiscal_year",
                    N_("Convention Bureau floor applies from fiscal year"),
                    hint=N_("Leave empty: the supplied text leaves this year blank."),
                ),
                Field(
                    "convention_center_opened_on",
                    "date",
                    N_("Convention Center opened on"),
                    hint=N_(
                        "For ten years from the opening the five percent is a reserve for the "
                        "Center's operating deficit."
                    ),
                ),
                Field(
                    "convention_center_operating_deficit",
                    "money",
                    N_("Convention Center operating deficit of the fiscal year"),
                    hint=N_("The reserve covers the deficit above $2,500,000."),
                ),
                Table(
                    "months",
                    N_("Tax collected each month"),
                    (
                        Field("month", "month", N_("Month"), True),
                        Field("collected", "money", N_("Tax collected"), True),
                    ),
                    min_rows=12,
                ),
            ),
        ),
        Section(
            N_("Up to September 8, 2003 (IRC 1994 § 2051)"),
            (
                Group(
                    "collections",
                    N_("Tax collected in the fiscal year, by lodging type"),
                    # the lodging types of IRC 1994 § 2051(a), the vocabulary's
                    tuple(Field(t, "money", t) for t in irc1994_types()),
                ),
                Field(
                    "bond_fund_amount",
                    "money",
                    N_("Amount determined by the Secretary for the Bond Redemption Fund"),
                ),
                Field(
                    "collections_until",
                    "date",
                    N_("Collections up to (FY2003-04 only)"),
                    hint=N_(
                        'FY2003-04 is a part-year under these rules: give "2003-09-08". What '
                        "was collected from September 9, 2003 goes as month 2003-09 above."
                    ),
                ),
            ),
        ),
    ),
)

LABELS: dict[str, str] = {
    "collections": N_("Collections"),
    "bond_fund_amount": N_("Bond Redemption Fund amount"),
    "collected": N_("Tax collected"),
    "bank_certified_amount": N_("Amount certified by the Bank"),
    "bureau_floor_from_fy": N_("Bureau floor from fiscal year"),
    "collections_until": N_("Collections up to (part-year)"),
    "convention_center_opened_on": N_("Convention Center opened on"),
    "convention_center_operating_deficit": N_("Convention Center operating deficit"),
    "convention_center_reserve": N_("Convention Center reserve"),
    "opened_on": N_("Opened on"),
    "first_fiscal_year": N_("First fiscal year"),
    "last_fiscal_year": N_("Last fiscal year"),
    "held": N_("Held in reserve"),
    "deficit_threshold": N_("Deficit covered above"),
    "operating_deficit": N_("Operating deficit"),
    "covers_deficit": N_("Covers the deficit"),
    "released_to_general_fund": N_("Released to the General Fund"),
    "joined_months": N_("Months distributed together"),
    "general_fund": N_("General Fund"),
    "special_account_i": N_("Special Account I"),
    "special_account_ii": N_("Special Account II"),
    "convention_center_account": N_("Convention Center account"),
    "bond_redemption_fund": N_("Bond Redemption Fund"),
    "recreational_development_fund": N_("Recreational Development Fund"),
    "unnamed_one_sixth": N_("1/6 of 6% (recipient not named in the supplied text)"),
    "unnamed_above_general_fund": N_(
        "Points above 7/9 before FY1997-98 (recipient not named in the supplied text)"
    ),
    "authority_debt_service": N_("Convention Center District Authority (debt service)"),
    "tourism_company_admin": N_("Tourism Company (administration)"),
    "convention_bureau": N_("Convention Bureau"),
    "tourism_company_remainder": N_("Tourism Company (remainder)"),
    "carried_shortfall": N_("Shortfall carried"),
    "bank_transfers": N_("Bank transfers"),
    "bureau_floor": N_("Convention Bureau floor applied"),
}

CALCULATOR = Calculator(
    name="room-tax-distribution",
    rule="tid.rules.distribution:distribution_document",
    form=FORM,
    labels=LABELS,
    chart=months_by_recipient,
    reads=("distribution",),
)
