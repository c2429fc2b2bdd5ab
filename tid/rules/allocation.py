"""How a sum is spread over what is owed, in order: a payment over a property's open bills
(the earliest due first), an owner's credit over the bills it pays, the credit taken from the
bills it is held on (the oldest first).

Each item in turn takes what it is owed, or what is left if that is less; an item owed
nothing (or less than nothing) takes nothing. What no item takes is left over (a payment's
excess, held as the owner's credit). Exact: the amounts taken and what is left add up to
the sum.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from tid.rules.money import ZERO


@dataclass(frozen=True)
class Allocation:
    """What each item took, in the order given (items that took nothing left out), and what
    was left over."""

    taken: tuple[tuple[int, Decimal], ...]  # (item, amount > 0)
    left: Decimal

    @property
    def used(self) -> Decimal:
        return sum((amount for _item, amount in self.taken), ZERO)


def allocate(amount: Decimal, owed: Iterable[tuple[int, Decimal]]) -> Allocation:
    """Spread ``amount`` over ``owed`` (item, what it is owed), in the order given."""
    left = amount
    taken: list[tuple[int, Decimal]] = []
    for item, due in owed:
        take = min(left, due)
        if take <= 0:
            continue
        left -= take
        taken.append((item, take))
    return Allocation(tuple(taken), left)
