"""The ``impost`` document of docs/calculators.md and its errors."""

from __future__ import annotations

from typing import Any

import pytest

from tid.rules.calculators import run
from tid.rules.errors import InputError


def test_document() -> None:
    out = run(
        "impost",
        {
            "formula": 'if(kind = "hotel", 0.0125, 0.01) * assessed_value + fee * rooms',
            "properties": [
                {"id": "A", "kind": "hotel", "assessed_value": "412,000.00", "rooms": "120"},
                {"id": "B", "kind": "inn", "assessed_value": "80000.00", "rooms": "4"},
            ],
            "parameters": {"fee": "1.50"},
        },
    )
    # A: 0.0125 × 412,000.00 + 1.50 × 120 = 5,150.00 + 180.00 = 5,330.00
    # B: 0.01 × 80,000.00 + 1.50 × 4 = 800.00 + 6.00 = 806.00; total 6,136.00
    assert [(p["id"], p["amount"]) for p in out["properties"]] == [
        ("A", "5330.00"),
        ("B", "806.00"),
    ]
    assert out["total"] == "6136.00"
    assert out["properties"][1]["explanation"] == (
        '0.01 (as kind "inn" = "hotel" is false) × $80,000.00 assessed value '
        "+ $1.50 fee × 4 rooms = $806.00"
    )
    assert out["parameters_used"] == ["fee"]
    assert out["apportioned"] is False
    assert out["trace"] and "warnings" in out


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"formula": "x", "properties": [{"id": "A", "x": 1.5}]}, "properties[0].x"),
        ({"formula": 3, "properties": [{"id": "A"}]}, "formula"),
        ({"formula": "x +", "properties": [{"id": "A"}]}, "formula"),
        ({"formula": "x", "properties": []}, "properties"),
        ({"formula": "x", "properties": [{"x": "1"}]}, "properties[0].id"),
        (
            {"formula": "x * k", "properties": [{"id": "A", "x": "1"}], "parameters": {"k": "a"}},
            "parameters.k",
        ),
    ],
)
def test_document_errors(doc: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        run("impost", doc)
    assert err.value.field == field
