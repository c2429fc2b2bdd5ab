"""The rank of the district's impost lien and how sale proceeds are paid (21 LPRA §
6653(8)): its rule (tid/rules/liens.py), its form and the labels of its fields."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section, Table
from tid.rules.calculators.kit import Calculator
from tid.rules.vocab.lien_kinds import LIEN_KINDS

FORM = FormSpec(
    name="liens",
    title=N_("Lien ranking"),
    description=N_(
        "The rank of the district's impost lien among the others, and how sale proceeds are paid."
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
                        # The choices are the vocabulary's (tid/rules/vocab/lien_kinds.py).
                        Field("kind", "choice", N_("Kind"), True, LIEN_KINDS.codes()),
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
)

LABELS: dict[str, str] = {
    "liens": N_("Liens"),
    "kind": N_("Kind"),
    "constituted_on": N_("Constituted on"),
    "amount": N_("Amount"),
    "unsecured_charges": N_("Unsecured charges"),
    "sale_proceeds": N_("Sale proceeds"),
    "act_effective_date": N_("Effective date of the act"),
    "ranking": N_("Ranking"),
    "rank": N_("Rank"),
    "group": N_("Group"),
    "part": N_("Part"),
    "owed": N_("Owed"),
    "secured_amount": N_("Secured amount"),
    "reason": N_("Reason"),
    "distribution": N_("Distribution of the proceeds"),
    "paid": N_("Paid"),
    "unpaid": N_("Unpaid"),
    "to_owner": N_("To the owner"),
    "secured": N_("Secured"),
    # the kinds of lien (choices)
    **LIEN_KINDS.msgids(),
}

CALCULATOR = Calculator(
    name="liens",
    rule="tid.rules.liens:liens_document",
    form=FORM,
    labels=LABELS,
    reads=("district",),
)
