"""Evaluating a formula: the worked example, half-up rounding, conditions, text and functions,
aggregates, errors naming the property and the position, amounts too large.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.rules.imposts.helpers import D, cents, one
from tid.rules.errors import InputError
from tid.rules.imposts import compile_formula, evaluate


def test_rate_and_per_room_fee_worked_example() -> None:
    # 0.0125 × 412,000.00 = 5,150.00; 1.50 × 120 = 180.00; 5,150.00 + 180.00 = 5,330.00
    line = one(
        "0.0125 * assessed_value + 1.50 * rooms", assessed_value=D("412000.00"), rooms=D(120)
    )
    assert line.amount == D("5330.00")
    assert line.explanation == (
        "0.0125 × $412,000.00 assessed value + $1.50 × 120 rooms = $5,330.00"
    )


def test_half_up_rounding_of_amount_and_round() -> None:
    # 0.005 × 1 = 0.005 -> 0.01 half-up (half-even would give 0.00).
    assert one("0.005 * x", x=D(1)).amount == D("0.01")
    # round(2.345, 2) = 2.35 half-up; × 1 = 2.35
    assert one("round(2.345, 2) * x", x=D(1)).amount == D("2.35")
    # 10 / 3 = 3.333… -> 3.33, and the explanation says it was rounded.
    line = one("x / 3", x=D(10))
    assert line.amount == D("3.33")
    assert line.explanation == "10 x ÷ 3 = $3.33 (rounded to cents)"


def test_conditions_text_and_functions() -> None:
    formula = (
        'if(kind == "hotel" and not rooms < 100, 0.02, 0.01) * value + max(0, rooms - 10) * 2.00'
    )
    # hotel with 120 rooms: 0.02 × 50,000.00 = 1,000.00; (120 - 10) × 2.00 = 220.00 -> 1,220.00
    hotel = one(formula, kind="hotel", rooms=D(120), value=D("50000.00"))
    assert hotel.amount == D("1220.00")
    assert '(as kind "hotel" = "hotel" and not (120 rooms < 100) is true)' in hotel.explanation
    # inn with 3 rooms: 0.01 × 50,000.00 = 500.00; max(0, 3 - 10) = 0 -> 500.00
    inn = one(formula, kind="inn", rooms=D(3), value=D("50000.00"))
    assert inn.amount == D("500.00")
    assert "is false" in inn.explanation
    # min, or, != and <>
    assert one("min(5.00, x, 7.00)", x=D("6.00")).amount == D("5.00")
    assert one('if(k != "a" or x >= 2, 1.00, 2.00)', k="a", x=D(1)).amount == D("2.00")
    assert one('if(k <> "a", 1.00, 2.00)', k="b").amount == D("1.00")
    assert one("-(-x)", x=D("4.00")).amount == D("4.00")


def test_aggregates() -> None:
    f = compile_formula("count() * 1.00 + count(rooms > 10) * 10.00 + sum(rooms * 2) / 100")
    props = [{"id": "A", "rooms": D(20)}, {"id": "B", "rooms": D(5)}]
    # count() = 2; count(rooms > 10) = 1; sum(rooms × 2) = 40 + 10 = 50
    # each: 2 × 1.00 + 1 × 10.00 + 50 / 100 = 2.00 + 10.00 + 0.50 = 12.50
    result = evaluate(f, props)
    assert [p.amount for p in result.properties] == [D("12.50"), D("12.50")]
    assert result.total == D("25.00")
    assert "2 properties × $1.00" in result.properties[0].explanation
    assert "1 property where rooms > 10" in result.properties[0].explanation


def test_evaluation_errors_name_the_property_and_position() -> None:
    f = compile_formula("10.00 / rooms")
    with pytest.raises(InputError) as err:
        evaluate(f, [{"id": "A", "rooms": D(2)}, {"id": "B-7", "rooms": D(0)}])
    assert err.value.field == "properties[1]"
    assert err.value.message == (
        "property B-7: division by zero (rooms is 0) at column 7 of the formula"
    )
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("2 * romz"), [{"id": "A", "rooms": D(1)}])
    assert err.value.field == "properties[0].romz"
    assert err.value.message.startswith("property A: unknown name 'romz'")
    assert err.value.message.endswith("at column 5 of the formula")
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("2 * kind"), [{"id": "A", "kind": "hotel"}])
    assert "property A: kind is 'hotel', not a number at column 5" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula('if(kind == "1", 1, 2)'), [{"id": "A", "kind": D(1)}])
    assert "compares a number with text" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("x - 5.00"), [{"id": "A", "x": D("1.00")}])
    assert "negative amount" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(
            compile_formula("budget * x"),
            [{"id": "A", "x": D(1), "budget": D(2)}],
            {"budget": D(1)},
        )
    assert "both a parameter and an attribute" in err.value.message
    with pytest.raises(InputError) as err:
        evaluate(compile_formula("x"), [{"id": "A", "x": D(1)}, {"id": "A", "x": D(1)}])
    assert err.value.field == "properties[1].id"


@settings(max_examples=examples(300), deadline=None)
@given(
    rate=st.integers(min_value=0, max_value=10**6).map(lambda n: D(n) / 10**5),
    value=cents,
    fee=cents,
    rooms=st.integers(min_value=0, max_value=5000),
)
def test_amount_is_the_exact_value_rounded_half_up(
    rate: Decimal, value: Decimal, fee: Decimal, rooms: int
) -> None:
    line = one(
        "rate * value + fee * rooms", {"rate": rate, "fee": fee}, value=value, rooms=D(rooms)
    )
    exact = rate * value + fee * rooms
    assert line.exact == exact
    assert line.amount == exact.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def test_a_hundred_thousand_properties_each_to_the_cent() -> None:
    """A roll of a large municipality's size: every amount exact (its speed is measured by
    benchmarks/billing.py, not here)."""
    props = [
        {"id": str(i), "assessed_value": D(100000 + i), "rooms": D(i % 50)} for i in range(100_000)
    ]
    f = compile_formula("0.0125 * assessed_value + 1.50 * rooms")
    result = evaluate(f, props)
    assert len(result.properties) == 100_000
    # property 0: 0.0125 × 100,000 + 1.50 × 0 = 1,250.00
    assert result.properties[0].amount == D("1250.00")
    expected = [
        (D("0.0125") * (100000 + i) + D("1.50") * (i % 50)).quantize(D("0.01"), ROUND_HALF_UP)
        for i in range(100_000)
    ]
    assert [p.amount for p in result.properties] == expected


def test_absurdly_large_amount_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        evaluate(
            compile_formula("99999999999999999999 * 99999999999999999999 * x"),
            [{"id": "A", "x": D(1)}],
        )
    assert err.value.field == "properties[0]"
    assert "too large" in err.value.message
