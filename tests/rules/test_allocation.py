"""A sum spread over what is owed, in order (tid/rules/allocation.py): a payment over a
property's open bills, an owner's credit over the bills it pays and the bills it is held on."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tid.rules.allocation import allocate

D = Decimal

cents = st.integers(min_value=0, max_value=10**11).map(lambda c: D(c) / 100)
# What a bill's receivable can read: owed, paid off, or paid over (a credit on the bill).
owed_cents = st.integers(min_value=-(10**9), max_value=10**11).map(lambda c: D(c) / 100)
bills = st.lists(
    st.tuples(st.integers(min_value=1, max_value=10**6), owed_cents),
    max_size=12,
    unique_by=lambda bill: bill[0],
)


def test_the_earliest_first_and_the_excess_left() -> None:
    spread = allocate(D("150.00"), [(7, D("100.00")), (8, D("0.00")), (9, D("80.00"))])
    assert spread.taken == ((7, D("100.00")), (9, D("50.00")))
    assert spread.left == D("0.00") and spread.used == D("150.00")
    over = allocate(D("150.00"), [(7, D("100.00")), (9, D("-5.00"))])
    assert over.taken == ((7, D("100.00")),) and over.left == D("50.00")
    assert allocate(D("10.00"), []).taken == () and allocate(D("10.00"), []).left == D("10.00")


@settings(max_examples=examples(500), deadline=None)
@given(amount=cents, owed=bills)
def test_the_allocation_adds_up_to_the_payment_to_the_cent(
    amount: Decimal, owed: list[tuple[int, Decimal]]
) -> None:
    spread = allocate(amount, owed)
    assert spread.used + spread.left == amount
    assert sum((a for _bill, a in spread.taken), D(0)) == spread.used
    for _bill, taken in spread.taken:
        assert taken > 0 and taken == taken.quantize(D("0.01"))
    assert spread.left >= 0 and spread.left == spread.left.quantize(D("0.01"))


@settings(max_examples=examples(500), deadline=None)
@given(amount=cents, owed=bills)
def test_each_bill_takes_at_most_what_it_owes_in_order(
    amount: Decimal, owed: list[tuple[int, Decimal]]
) -> None:
    spread = allocate(amount, owed)
    positions = []
    rest = iter(enumerate(owed))
    for bill, taken in spread.taken:
        position, due = next((i, d) for i, (b, d) in rest if b == bill)
        positions.append(position)
        assert taken <= due
    assert positions == sorted(positions)
    # Something is left only when every bill that owed something was paid in full; a bill
    # is paid short only when nothing is left for the ones after it.
    if spread.left > 0:
        assert spread.used == sum((d for _b, d in owed if d > 0), D(0))
    short = [
        i for (bill, taken), i in zip(spread.taken, positions, strict=True) if taken < owed[i][1]
    ]
    assert len(short) <= 1 and (not short or spread.left == 0)
