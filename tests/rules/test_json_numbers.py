"""docs/calculators.md: amounts and quantities are JSON strings; a JSON number is refused, even a
whole one, with the field named."""

from __future__ import annotations

from typing import Any

import pytest

from tid.rules import calculators
from tid.rules.errors import InputError

CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "liens",
        {"liens": [{"id": "m", "kind": "mortgage", "constituted_on": "2015-01-01", "amount": 5}]},
        "liens[0].amount",
    ),
    (
        "liens",
        {
            "liens": [
                {"id": "m", "kind": "mortgage", "constituted_on": "2015-01-01", "amount": "5.00"}
            ],
            "sale_proceeds": 7,
        },
        "sale_proceeds",
    ),
    (
        "impost",
        {"formula": "2 * x", "properties": [{"id": "p1", "x": 2}]},
        "properties[0].x",
    ),
    (
        "room-tax",
        {"lodging_type": "hotel", "date": "2026-03-02", "nightly_rate": 100, "nights": 2},
        "nightly_rate",
    ),
]


@pytest.mark.parametrize(("name", "document", "field"), CASES)
def test_a_json_number_for_an_amount_is_refused(
    name: str, document: dict[str, Any], field: str
) -> None:
    with pytest.raises(InputError) as info:
        calculators.run(name, document)
    assert info.value.field == field
    assert "text" in info.value.message
