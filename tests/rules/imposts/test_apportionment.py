"""Apportionment: a budget split by the largest-remainder method, adding up to the cent; the
shape of an apportioning formula; a total of zero.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.imposts.helpers import D, cents
from tid.rules.errors import InputError
from tid.rules.imposts import apportioned_attribute, compile_formula, evaluate


def test_budget_apportionment_by_largest_remainder() -> None:
    f = compile_formula("budget * assessed_value / sum(assessed_value)", parameters={"budget"})
    props = [{"id": i, "assessed_value": D("100.00")} for i in ("A", "B", "C")]
    result = evaluate(f, props, {"budget": D("100.00")})
    # 100.00 × 100 / 300 = 33.333… each; 3 × 33.33 = 99.99, the cent left goes to the
    # earliest of the equal remainders: A.
    assert [p.amount for p in result.properties] == [D("33.34"), D("33.33"), D("33.33")]
    assert result.total == D("100.00")
    assert result.apportioned and result.budget == D("100.00")
    assert result.properties[0].explanation == (
        "$100.00 budget × $100.00 assessed value ÷ $300.00 total assessed value = $33.34 "
        "(a largest-remainder share of $100.00)"
    )
    assert any("largest-remainder" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("budget * assessed_value / sum(assessed_value)", "assessed_value"),
        ("assessed_value / sum(assessed_value) * budget", "assessed_value"),
        ("budget * (assessed_value / sum(assessed_value))", "assessed_value"),
        ("0.5 * budget * rooms / sum(rooms)", "rooms"),
        ("budget * assessed_value / sum(assessed_value) + 1.00", None),
        ("rooms * assessed_value / sum(assessed_value)", None),  # rooms varies by property
        ("budget * assessed_value / sum(rooms)", None),
        ("budget / sum(assessed_value) / assessed_value", None),
    ],
)
def test_apportionment_shape(formula: str, expected: str | None) -> None:
    f = compile_formula(formula, parameters={"budget"})
    assert apportioned_attribute(f, {"budget"}) == expected


def test_zero_total_apportionment_is_a_division_error() -> None:
    f = compile_formula("budget * v / sum(v)", parameters={"budget"})
    with pytest.raises(InputError) as err:
        evaluate(f, [{"id": "A", "v": D(0)}], {"budget": D("10.00")})
    assert "division by zero (sum(v) is 0) at column 12" in err.value.message


@settings(max_examples=examples(300), deadline=None)
@given(
    budget=cents,
    weights=st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=20).filter(
        lambda ws: sum(ws) > 0
    ),
)
def test_apportionment_adds_up_to_the_budget(budget: Decimal, weights: list[int]) -> None:
    f = compile_formula("budget * value / sum(value)", parameters={"budget"})
    props = [{"id": str(i), "value": D(w)} for i, w in enumerate(weights)]
    result = evaluate(f, props, {"budget": budget})
    amounts = [p.amount for p in result.properties]
    assert sum(amounts, D(0)) == budget == result.total
    total_weight = sum(weights)
    for amount, w in zip(amounts, weights, strict=True):
        assert amount >= 0
        # Each share is within a cent of its exact value.
        assert abs(amount - budget * w / total_weight) < D("0.01")
