"""The statutory deadlines of a petition (21 LPRA § 6653(2), (5), (7); 1 LPRA § 72): its
rule (tid/rules/calendar.py), its form and the labels of its fields."""

from __future__ import annotations

from tid.rules.calculators.inputs import N_, Field, FormSpec, Section
from tid.rules.calculators.kit import Calculator

FORM = FormSpec(
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
                Field("ordinance_received_by_mayor", "date", N_("Mayor received the ordinance")),
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
)

LABELS: dict[str, str] = {
    "petition_received": N_("Legislature received the petition"),
    "ordinance_received_by_mayor": N_("Mayor received the ordinance"),
    "mayor_approved": N_("Mayor approved the ordinance"),
    "ordinance_received_by_association": N_("Association received the ordinance"),
    "skip_saturday": N_("Saturdays do not end a deadline"),
    "today": N_("Today"),
    "ordinance_due": N_("Ordinance due"),
    "mayor_decision_due": N_("Mayor's decision due"),
    "publication_window": N_("Publication window"),
    "initial_notice_due": N_("Owners' notice due"),
    "nominal_date": N_("Date before moving past holidays"),
    "start": N_("From"),
    "end": N_("To"),
    "days_left": N_("Days left"),
}

CALCULATOR = Calculator(
    name="deadlines",
    rule="tid.rules.calendar:deadlines_document",
    form=FORM,
    labels=LABELS,
    reads=("district",),
)
