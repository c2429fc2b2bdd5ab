"""The Municipal Equalization Fund's module: its chart is one signed bar per municipality."""

from __future__ import annotations

from decimal import Decimal

from tests.calc_documents import DOCUMENTS
from tid.rules import calculators
from tid.rules.calculators import equalization
from tid.rules.calculators.kit import SignedChart


def test_one_bar_per_municipality_its_adjustment() -> None:
    result = calculators.run("equalization", DOCUMENTS["equalization"])
    data = equalization.adjustments(result)
    assert isinstance(data, SignedChart)
    assert data.items == tuple(
        (m["name"], Decimal(m["adjustment"])) for m in result["municipalities"]
    )
    assert sum(amount for _name, amount in data.items) == 0  # top-ups paid by the others
