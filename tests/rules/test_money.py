"""Money: strict parsing, half-up cents, and splits that pay out exactly their total."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.errors import InputError
from tid.rules.money import allocate, parse_money, round_cents, to_cents

D = Decimal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1234.50", "1234.50"),
        ("1,234.50", "1234.50"),
        ("1234.5", "1234.5"),
        ("$12", "12"),
        (" 7 ", "7"),
        ("0", "0"),
    ],
)
def test_amounts_a_clerk_writes_are_read(text: str, expected: str) -> None:
    assert parse_money(text, "amount") == Decimal(expected)


@pytest.mark.parametrize(
    "text", ["12abc", "1,23.00", "1.234", "", "--1", "1e5", "NaN", "Infinity", "9" * 40]
)
def test_anything_else_is_a_field_error(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_money(text, "amount")
    assert info.value.field == "amount"


def test_floats_and_negatives_are_refused() -> None:
    with pytest.raises(InputError, match="as text"):
        parse_money(12.5, "collected")
    with pytest.raises(InputError, match="negative"):
        parse_money("-3.00", "collected")
    assert parse_money("-3.00", "adjustment", allow_negative=True) == D("-3.00")


def test_half_up() -> None:
    # 0.125 → 0.13 (half up), not 0.12 (banker's rounding)
    assert round_cents(D("0.125")) == D("0.13")
    assert round_cents(D("2.675")) == D("2.68")
    assert round_cents(D("-0.125")) == D("-0.13")


def test_largest_remainder_ties_go_to_the_earlier_recipient() -> None:
    # $100.00 in three equal parts: 33.333… each; the one cent left goes to the first.
    assert allocate(D("100.00"), [D(1), D(1), D(1)]) == [D("33.34"), D("33.33"), D("33.33")]
    # $10.00 as 1:2 → 3.333… and 6.666…; the larger remainder (.666) takes the cent.
    assert allocate(D("10.00"), [D(1), D(2)]) == [D("3.33"), D("6.67")]


@settings(max_examples=examples(300))
@given(
    cents=st.integers(min_value=0, max_value=10**13),
    weights=st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=80).filter(
        lambda ws: sum(ws) > 0
    ),
)
def test_every_split_pays_out_exactly_its_total(cents: int, weights: list[int]) -> None:
    total = Decimal(cents) / 100
    shares = allocate(total, [Decimal(w) for w in weights])
    assert sum(shares) == total
    assert all(s >= 0 for s in shares)
    assert all(s == s.quantize(D("0.01")) for s in shares)
    # No share is more than a cent away from its exact proportion.
    weight_sum = sum(weights)
    for share, weight in zip(shares, weights, strict=True):
        exact = Decimal(cents) * weight / weight_sum
        assert abs(to_cents(share) - exact) < 1
