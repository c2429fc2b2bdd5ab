"""The room tax calculator's module: its form offers the rule's lodging types, each named."""

from __future__ import annotations

from tid.rules.calculators import room_tax
from tid.rules.calculators.inputs import Field
from tid.rules.room_tax import ACT272_TYPES


def test_the_form_offers_the_rules_lodging_types_each_with_its_label() -> None:
    lodging = next(
        i for i in room_tax.FORM.items() if isinstance(i, Field) and i.key == "lodging_type"
    )
    assert lodging.choices == ACT272_TYPES
    assert set(ACT272_TYPES) <= set(room_tax.LABELS)
