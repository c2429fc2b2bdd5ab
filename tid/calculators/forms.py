"""Each calculator's form (:data:`FORMS`): the sections, fields, tables and groups a person
fills in to give its document, with their hints and citations."""

from __future__ import annotations

from tid.calculators.inputs import N_, Field, FormSpec, Group, Section, Table
from tid.rules.liens import KINDS
from tid.rules.room_tax import ACT272_TYPES, IRC1994_TYPES

# The choices of the forms are the rules' own lists, so that they cannot drift apart.
LODGING_TYPES = ACT272_TYPES
LODGING_TYPES_1994 = IRC1994_TYPES  # IRC 1994 § 2051(a)
LIEN_KINDS = KINDS

_FY_HINT = N_("Like 2024-25 (July 1, 2024 to June 30, 2025).")
_MONEY_HINT = N_("Dollars and cents, like 1234.50.")

FORMS: dict[str, FormSpec] = {
    "room-tax": FormSpec(
        name="room-tax",
        title=N_("Room occupancy tax"),
        description=N_("The tax on one stay: rate, base, tax and the day it is remitted."),
        citation=N_("IRC 1994 § 2051; Act 272-2003 §§ 24, 28"),
        sections=(
            Section(
                N_("The stay"),
                (
                    Field("lodging_type", "choice", N_("Lodging type"), True, LODGING_TYPES),
                    Field("date", "date", N_("Date of the stay"), True),
                    Field("nightly_rate", "money", N_("Nightly rate"), hint=_MONEY_HINT),
                    Field("nights", "integer", N_("Nights"), True),
                    Field("additional_charges", "money", N_("Additional charges")),
                    Field(
                        "exemption",
                        "choice",
                        N_("Exemption"),
                        choices=("film_production", "timeshare"),
                    ),
                ),
            ),
            Section(
                N_("Complimentary rooms and rates grouped with meals"),
                (
                    Field("complimentary", "flag", N_("Complimentary casino room")),
                    Field("grouped_meals", "flag", N_("Rate grouped with meals")),
                    Field("average_daily_rate", "money", N_("Average daily rate")),
                    Field("room_cost", "money", N_("Room cost per night")),
                    Field("industry_cost", "money", N_("Industry cost per night")),
                ),
                hint=N_(
                    "Only for a complimentary room or a rate grouped with meals: the base is "
                    "the greatest of these figures per night."
                ),
            ),
        ),
    ),
    "room-tax-distribution": FormSpec(
        name="room-tax-distribution",
        title=N_("Room tax distribution"),
        description=N_(
            "Who receives the room tax collected: per fiscal year up to 2002-03 (and FY2003-04 "
            "up to 2003-09-08), month by month from September 2003."
        ),
        citation=N_("IRC 1994 § 2051(5); Act 272-2003 § 31"),
        chart="waterfall",
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
                N_("Up to 2003-09-08 (IRC 1994 § 2051)"),
                (
                    Group(
                        "collections",
                        N_("Tax collected in the fiscal year, by lodging type"),
                        tuple(Field(t, "money", t) for t in LODGING_TYPES_1994),
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
                            "FY2003-04 is a part-year under these rules: give 2003-09-08. What "
                            "was collected from 2003-09-09 goes as month 2003-09 above."
                        ),
                    ),
                ),
            ),
        ),
    ),
    "excise-allocation": FormSpec(
        name="excise-allocation",
        title=N_("Excise allocations"),
        description=N_(
            "Gasoline, diesel, crude-oil and cigarette taxes to the Highways Authority, the "
            "bus authorities and the General Fund, month by month."
        ),
        citation=N_("13 LPRA § 31751"),
        chart="waterfall",
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
    ),
    "equalization": FormSpec(
        name="equalization",
        title=N_("Municipal Equalization Fund"),
        description=N_(
            "The lottery and General Fund shares and the hold-harmless adjustments by municipality."
        ),
        citation=N_("Municipal Equalization Fund (b)–(d)"),
        chart="adjustments",
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
                    Field(
                        "gf_net_revenues", "money", N_("General Fund net internal revenues"), True
                    ),
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
    ),
    "liens": FormSpec(
        name="liens",
        title=N_("Lien ranking"),
        description=N_(
            "The rank of the district's impost lien among the others, and how sale proceeds "
            "are paid."
        ),
        citation=N_("21 LPRA § 6653(8)"),
        sections=(
            Section(
                N_("Liens on the property"),
                (
                    Table(
                        "liens",
                        N_("Liens"),
                        (
                            Field("id", "text", N_("Identifier"), True),
                            Field("kind", "choice", N_("Kind"), True, LIEN_KINDS),
                            Field("constituted_on", "date", N_("Constituted on"), True),
                            Field("amount", "money", N_("Amount"), True),
                            Field("unsecured_charges", "money", N_("Unsecured charges")),
                        ),
                        min_rows=6,
                        hint=N_(
                            "Unsecured charges: interest, surcharges and fees on a late "
                            "impost (impost liens only)."
                        ),
                    ),
                ),
            ),
            Section(
                N_("Sale"),
                (
                    Field("sale_proceeds", "money", N_("Sale proceeds")),
                    Field(
                        "act_effective_date",
                        "date",
                        N_("Effective date of the act"),
                        hint=N_("Leave empty for the default setting."),
                    ),
                ),
            ),
        ),
    ),
    "deadlines": FormSpec(
        name="deadlines",
        title=N_("Statutory deadlines"),
        description=N_(
            "The ordinance, the mayor's decision, the publication and the owners' notice, "
            "counted as the law counts days."
        ),
        citation=N_("21 LPRA § 6653(2), (5), (7); 1 LPRA § 72"),
        sections=(
            Section(
                N_("Dates"),
                (
                    Field("petition_received", "date", N_("Legislature received the petition")),
                    Field(
                        "ordinance_received_by_mayor", "date", N_("Mayor received the ordinance")
                    ),
                    Field("mayor_approved", "date", N_("Mayor approved the ordinance")),
                    Field(
                        "ordinance_received_by_association",
                        "date",
                        N_("Association received the ordinance"),
                    ),
                    Field("skip_saturday", "tristate", N_("Saturdays do not end a deadline")),
                ),
                hint=N_("Give at least one date."),
            ),
        ),
    ),
    "impost": FormSpec(
        name="impost",
        title=N_("Impost formula"),
        description=N_("Each property's yearly impost under the ordinance's formula."),
        citation=N_("21 LPRA § 6653(3)(d)"),
        sections=(
            Section(
                N_("Formula"),
                (Field("formula", "longtext", N_("Formula"), True),),
            ),
            Section(
                N_("Properties"),
                (
                    Table(
                        "properties",
                        N_("Properties"),
                        (Field("id", "text", N_("Identifier"), True),),
                        min_rows=0,
                        hint=N_(
                            "Upload a CSV file: a column id and one column per attribute the "
                            "formula uses."
                        ),
                    ),
                    Table(
                        "parameters",
                        N_("Formula parameters"),
                        (
                            Field("name", "text", N_("Name"), True),
                            Field("value", "text", N_("Value"), True),
                        ),
                        min_rows=4,
                        csv=False,
                    ),
                ),
            ),
        ),
    ),
}

# Tables whose columns are open (any attribute); the rows come from a CSV file only.
OPEN_TABLES = {("impost", "properties")}
# Tables given as rows of name/value that the document holds as a mapping {name → value}.
PAIR_TABLES = {("impost", "parameters")}
