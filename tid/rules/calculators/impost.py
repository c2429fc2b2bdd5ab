"""Each property's yearly impost under the ordinance's formula (21 LPRA § 6653(3)(d)): its
rule (tid/rules/imposts/), its form and the labels of its fields."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section, Table
from tid.rules.calculators.kit import Calculator

FORM = FormSpec(
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
                    open_columns=True,  # any attribute; the rows come from a CSV file only
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
                    pairs=True,  # the document holds them as {name → value}
                ),
            ),
        ),
    ),
)

LABELS: dict[str, str] = {
    "id": N_("Identifier"),
    "formula": N_("Formula"),
    "properties": N_("Properties"),
    "parameters": N_("Parameters"),
    "apportioned": N_("Apportioned"),
    "budget": N_("Budget"),
    "parameters_used": N_("Parameters used"),
    "attributes_used": N_("Attributes used"),
}

CALCULATOR = Calculator(
    name="impost",
    rule="tid.rules.imposts:impost_document",
    form=FORM,
    labels=LABELS,
    reads=("district",),
)
