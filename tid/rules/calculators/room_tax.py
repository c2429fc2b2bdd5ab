"""The room occupancy tax on one stay (IRC 1994 § 2051; Act 272-2003 §§ 24, 28): its rule
(tid/rules/room_tax.py), its form and the labels of its fields."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section
from tid.rules.calculators.kit import Calculator
from tid.rules.params import CODE_LABELS
from tid.rules.vocab.lodging_types import EXEMPTIONS, LODGING_TYPES, act272_types

_MONEY_HINT = N_("Dollars and cents, like 1,234.50.")

FORM = FormSpec(
    name="room-tax",
    title=N_("Room occupancy tax"),
    description=N_("The tax on one stay: rate, base, tax and the day it is remitted."),
    citation=N_("IRC 1994 § 2051; Act 272-2003 §§ 24, 28"),
    sections=(
        Section(
            N_("The stay"),
            (
                # The choices are the vocabulary's (tid/rules/vocab/lodging_types.py).
                Field("lodging_type", "choice", N_("Lodging type"), True, act272_types()),
                Field("date", "date", N_("Date of the stay"), True),
                Field("nightly_rate", "money", N_("Nightly rate"), hint=_MONEY_HINT),
                Field("nights", "integer", N_("Nights"), True),
                Field("additional_charges", "money", N_("Additional charges")),
                Field(
                    "exemption",
                    "choice",
                    N_("Exemption"),
                    choices=EXEMPTIONS.codes(),
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
)

LABELS: dict[str, str] = {
    "lodging_type": N_("Lodging type"),
    "nightly_rate": N_("Nightly rate"),
    "nights": N_("Nights"),
    "additional_charges": N_("Additional charges"),
    "exemption": N_("Exemption"),
    "complimentary": N_("Complimentary casino room"),
    "grouped_meals": N_("Rate grouped with meals"),
    "average_daily_rate": N_("Average daily rate"),
    "room_cost": N_("Room cost per night"),
    "industry_cost": N_("Industry cost per night"),
    "regime": N_("Regime"),
    "rate": N_("Rate"),
    "base": N_("Base"),
    "tax": N_("Tax"),
    "remit_by": N_("Remit by"),
    "taxable": N_("Taxable"),
    # the regimes, as the parameter room_tax.regime names them (tid/rules/params.py)
    **{code: CODE_LABELS[code] for code in ("irc-1994", "act-272-2003")},
    # the lodging types and the exemptions (choices)
    **LODGING_TYPES.msgids(),
    **EXEMPTIONS.msgids(),
}

CALCULATOR = Calculator(
    name="room-tax",
    rule="tid.rules.room_tax:room_tax_document",
    form=FORM,
    labels=LABELS,
    reads=("room_tax",),
)
