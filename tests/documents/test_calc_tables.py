"""Results written as tables and CSV: each value's kind, every amount and warning in the CSV,
the totals row, no formula left for a spreadsheet."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from tests.calc_documents import DOCUMENTS
from tid.documents import calc_tables
from tid.rules import calculators


@pytest.mark.parametrize(
    ("key", "value", "kind"),
    [
        ("tax", "54.00", "money"),
        ("allocations.general_fund", "45000.00", "money"),
        ("rate", "0.09", "rate"),
        ("gf_rate", "0.025", "rate"),
        ("nightly_rate", "200.00", "money"),  # a rate charged, in dollars
        ("ratio_2007_08", "0.6", "rate"),
        ("diesel_gallons", "5000000", "quantity"),
        ("rank", 2, "number"),
        ("month", "2024-07", "text"),
        ("id", "1234", "number"),
        ("remit_by", "2026-04-10", "date"),
        ("protected", True, "flag"),
        ("reason", "Ranks above", "text"),
    ],
)
def test_kind_of(key: str, value: object, kind: str) -> None:
    assert calc_tables.kind_of(key, value) == kind


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_amount_of_a_result_is_in_its_csv(name: str) -> None:
    result = calculators.run(name, DOCUMENTS[name])
    rows = list(csv.reader(io.StringIO(calc_tables.result_csv(result))))
    cells = {cell for row in rows for cell in row}

    def amounts(value: object) -> list[str]:
        if isinstance(value, dict):
            return [a for k, v in value.items() if k not in ("trace",) for a in amounts(v)]
        if isinstance(value, list):
            return [a for v in value for a in amounts(v)]
        return (
            [value] if isinstance(value, str) and calc_tables.kind_of("x", value) == "money" else []
        )

    for amount in amounts(result):
        assert amount in cells, amount
    for warning in result["warnings"]:
        assert [warning] in rows


def test_months_table_with_its_totals() -> None:
    result = calculators.run("room-tax-distribution", DOCUMENTS["room-tax-distribution"])
    (months,) = [t for t in calc_tables.result_tables(result) if t.key == "months"]
    assert months.columns[:3] == ["month", "collected", "allocations.authority_debt_service"]
    # The totals row adds up each allocation column: 100,000.00 + 50,000.00 = 150,000.00.
    total = sum(Decimal(r["allocations.authority_debt_service"]) for r in months.rows)
    assert Decimal(months.totals["allocations.authority_debt_service"]) == total
    assert total == Decimal("150000.00")


def test_a_formula_is_not_left_for_a_spreadsheet() -> None:
    text = calc_tables.result_csv({"rows": [{"name": "=1+1", "amount": "-5.00"}], "warnings": []})
    assert text.splitlines() == ["name,amount", "'=1+1,-5.00"]
