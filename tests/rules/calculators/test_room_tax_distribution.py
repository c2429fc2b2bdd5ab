"""The room tax distribution's module: its chart stacks each month by recipient."""

from __future__ import annotations

from decimal import Decimal

from tests.calc_documents import DOCUMENTS
from tid.rules import calculators
from tid.rules.calculators import room_tax_distribution
from tid.rules.calculators.kit import StackedChart


def test_the_chart_stacks_each_month_by_recipient() -> None:
    result = calculators.run("room-tax-distribution", DOCUMENTS["room-tax-distribution"])
    chart = room_tax_distribution.CALCULATOR.chart
    assert chart is not None
    data = chart(result)
    assert isinstance(data, StackedChart)
    assert data.categories == tuple(m["month"] for m in result["months"])
    first = result["months"][0]
    assert data.values[first["month"]] == {k: Decimal(v) for k, v in first["allocations"].items()}
    assert set(data.series) <= set(room_tax_distribution.LABELS)


def test_no_chart_without_months() -> None:
    chart = room_tax_distribution.CALCULATOR.chart
    assert chart is not None and chart({"months": []}) is None
