"""An impost's explanation, in Spanish."""

from __future__ import annotations

from decimal import Decimal

from tid.rules.imposts import compile_formula, evaluate


def test_the_explanation_in_spanish() -> None:
    """The notices speak Spanish first: the same arithmetic, the roll's names in Spanish."""
    formula = compile_formula(
        'max(75.00, 0.0125 * assessed_value) + if(use_class == "hotel", 15.00 * rooms, 0)'
    )
    result = evaluate(
        formula,
        [
            {
                "id": "p1",
                "assessed_value": Decimal("412000.00"),
                "rooms": Decimal(120),
                "use_class": "hotel",
            }
        ],
    )
    line = result.properties[0]
    # max(75, 0.0125 × 412,000 = 5,150) + 15 × 120 = 1,800 → 6,950.00
    assert line.explanation_es == (
        "max($75.00, 0.0125 × $412,000.00 de valor tasado) + ($15.00 × 120 habitaciones) "
        '(pues clase de uso "hotel" = "hotel" es cierto) = $6,950.00'
    )
    assert line.explanation.endswith("= $6,950.00")
