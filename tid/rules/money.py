"""Money: one constructor, strict parsing, cents rounding and exact splits.

/readings#splits-to-the-cent: money is exact (``Decimal``, never ``float``), rounded to cents
half-up only where a statute amount is paid out, and every split of a total pays out exactly the
total: the cents left over by rounding go by the largest-remainder method (ties: the earlier
recipient in the statute's order)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation

from tid.rules.errors import InputError, field_error, required
from tid.rules.messages import FieldRef, Message

CENT = Decimal("0.01")
# Integer cents must fit a 64-bit column; no public figure of Puerto Rico comes near this.
MAX_WHOLE_DIGITS = 15
MAX_FRACTION_DIGITS = 10
LIMIT = Decimal(10) ** MAX_WHOLE_DIGITS
ZERO = Decimal("0")
# The largest amount one entry of a district's special account may carry (a payment, an
# expenditure, a bank balance, a lien): a district's whole yearly budget is far below it, and
# 92 million entries of it still add up inside the databases' 64-bit integer sums.
MAX_ACCOUNT_AMOUNT = Decimal("999999999.99")

# "1234.50", "1,234.50", "-3", "$1,234.5": ASCII digits with optional thousands commas (no
# other digits, no spaces: "٥", "５" and "5 000" are not amounts).
_AMOUNT = re.compile(r"^\$?(-)?\$?((?:[0-9]{1,3}(?:,[0-9]{3})+)|[0-9]+)(?:\.([0-9]+))?$")


def parse_decimal(value: object, field: str, *, allow_negative: bool = False) -> Decimal:
    """Strictly parse a user-supplied amount or quantity (``"1,234.50"``, ``"1234.5"``).

    A float (a JSON number) is refused: it may already have lost cents.
    """
    if isinstance(value, (bool, float)):
        raise field_error(field, Message('write the amount as text ("1234.50"), not as a number'))
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, str):
        text = value.strip()
        match = _AMOUNT.match(text)
        if not match:
            raise field_error(field, Message('"%(value)s" is not an amount', value=value))
        sign, whole, frac = match.groups()
        if len(whole.replace(",", "")) > MAX_WHOLE_DIGITS or len(frac or "") > MAX_FRACTION_DIGITS:
            raise field_error(
                field,
                Message(
                    '"%(value)s" is too large (or too precise): an amount here has at most '
                    "%(digits)s digits before the point and %(places)s after it",
                    value=value,
                    digits=MAX_WHOLE_DIGITS,
                    places=MAX_FRACTION_DIGITS,
                ),
            )
        try:
            result = Decimal(f"{sign or ''}{whole.replace(',', '')}.{frac or '0'}")
        except InvalidOperation:  # pragma: no cover - the regex admits only digits
            raise field_error(field, Message('"%(value)s" is not an amount', value=value)) from None
    elif value is None:
        raise required(field)
    else:
        raise field_error(field, Message("expected an amount as text"))
    if not result.is_finite():
        raise field_error(field, Message("not a finite amount"))
    if abs(result) >= LIMIT:
        raise field_error(field, Message("the amount is larger than any amount here"))
    if result < 0 and not allow_negative:
        raise InputError(field, Message("%(field)s cannot be negative", field=FieldRef(field)))
    return result


def parse_money(value: object, field: str, *, allow_negative: bool = False) -> Decimal:
    """Parse an amount of money: like :func:`parse_decimal`, at most cents."""
    amount = parse_decimal(value, field, allow_negative=allow_negative)
    if amount != amount.quantize(CENT, rounding=ROUND_DOWN):
        raise field_error(field, Message("an amount of money has at most two decimals"))
    return amount


def within_account_limit(amount: Decimal, field: str) -> Decimal:
    """An amount of the special account, refused above :data:`MAX_ACCOUNT_AMOUNT`."""
    if abs(amount) > MAX_ACCOUNT_AMOUNT:
        raise field_error(field, Message("the amount is larger than 999,999,999.99"))
    return amount


def json_money(value: object, field: str) -> Decimal:
    """An amount of a JSON document: a string (docs/calculators.md); a JSON number, even a whole
    one, is refused."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise field_error(field, Message('write the amount as text ("1234.50"), not as a number'))
    return parse_money(value, field)


def json_quantity(value: object, field: str, *, allow_negative: bool = False) -> Decimal:
    """A quantity (gallons, an attribute) of a JSON document: a string; a number is refused."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise field_error(field, Message('write the quantity as text ("5000000"), not as a number'))
    return parse_decimal(value, field, allow_negative=allow_negative)


def round_cents(amount: Decimal) -> Decimal:
    """Round to cents half-up (ROUND_HALF_UP), as statute amounts are paid out."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def to_cents(amount: Decimal) -> int:
    """Exact integer cents of an amount that is already whole cents."""
    cents = amount * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of cents")
    return int(cents)


def from_cents(cents: int) -> Decimal:
    return (Decimal(cents) / 100).quantize(CENT)


def money_str(amount: Decimal) -> str:
    """JSON form of an amount: a string with exactly two decimals."""
    return str(amount.quantize(CENT))


def allocate(total: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """Split ``total`` (whole cents) in proportion to ``weights``, exactly, to the cent.

    Each share is first truncated to cents; the cents left over go one each to the largest
    remainders, ties to the earlier recipient (/readings#splits-to-the-cent).
    """
    if not weights:
        if total != 0:
            raise ValueError("cannot split a non-zero total among no one")
        return []
    if any(w < 0 for w in weights):
        raise ValueError("weights cannot be negative")
    total_weight = sum(weights, ZERO)
    if total_weight == 0:
        raise ValueError("weights add up to zero")
    total_cents = to_cents(total)
    exact = [Decimal(total_cents) * w / total_weight for w in weights]
    floors = [int(e.to_integral_value(rounding=ROUND_DOWN)) for e in exact]
    if total_cents < 0:  # pragma: no cover - splits in this project are of non-negative sums
        raise ValueError("cannot split a negative total")
    leftover = total_cents - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[:leftover]:
        floors[i] += 1
    return [from_cents(c) for c in floors]
