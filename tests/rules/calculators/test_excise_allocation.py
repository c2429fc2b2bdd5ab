"""The excise allocations' module: its chart stacks each month by recipient, each named."""

from __future__ import annotations

from tests.calc_documents import DOCUMENTS
from tid.rules import calculators
from tid.rules.calculators import excise_allocation
from tid.rules.calculators.kit import StackedChart


def test_the_chart_names_every_recipient() -> None:
    result = calculators.run("excise-allocation", DOCUMENTS["excise-allocation"])
    chart = excise_allocation.CALCULATOR.chart
    assert chart is not None
    data = chart(result)
    assert isinstance(data, StackedChart)
    assert data.categories == tuple(m["month"] for m in result["months"])
    assert set(data.series) <= set(calculators.labels())
