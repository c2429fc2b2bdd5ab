"""The words of an impost's explanation ("how it was computed"): operators and comparisons as
people write them, the roll's usual attributes and parameters by their labels, numbers and
money as printed. Each explanation is a message, rendered in the reader's language.
"""

from __future__ import annotations

from decimal import Decimal

from tid.rules.messages import Message

COMPARE_WORDS = {
    "==": "=",
    "=": "=",
    "!=": "≠",
    "<>": "≠",
    "<": "<",
    "<=": "≤",
    ">": ">",
    ">=": "≥",
}
ARITH_WORDS = {"+": "+", "-": "−", "*": "×", "/": "÷"}


# The roll's usual attributes and parameters, labelled; any other name is shown as written.
_LABELS = {
    "assessed_value": Message("assessed value"),
    "rooms": Message("rooms"),
    "land_area": Message("land area"),
    "built_area": Message("built area"),
    "frontage": Message("frontage"),
    "use_class": Message("use class"),
    "budget": Message("budget"),
    "expected_amount": Message("expected amount"),
}


def label_of(name: str) -> str:
    """A name of the formula as users call it: a message for the usual ones, else the name as
    the roll or the ordinance writes it."""
    if name in _LABELS:
        return _LABELS[name]
    return name.replace("_", " ")


def compose_text(template: str, **parts: str) -> str:
    """Parts of an explanation put together with symbols only (parentheses, operators): the
    same in every language, so not a catalog entry (the template is not a literal that
    ``make messages`` extracts); each part is said in the reader's language."""
    return Message(template, **parts)


def fmt_number(value: Decimal, *, literal: bool = False) -> str:
    """A number as a clerk reads it: a value with two decimals is money ($1,234.50), others
    plain (0.0125, 120). In the formula's own text a literal under 1 (0.02) is taken for a
    rate, not money."""
    if value.as_tuple().exponent == -2 and not (literal and abs(value) < 1):
        return ("-" if value < 0 else "") + f"${abs(value):,}"
    return f"{value:,}"


def money_text(value: Decimal) -> str:
    return ("-" if value < 0 else "") + f"${abs(value):,.2f}"
