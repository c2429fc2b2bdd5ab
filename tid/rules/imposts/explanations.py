"""The words of an impost's explanation ("how it was computed"): operators and comparisons as
people write them, the roll's columns and the ordinance's figures by their labels, numbers and
money as printed. Each explanation is a message, rendered in the reader's language.
"""

from __future__ import annotations

from decimal import Decimal

from tid.rules.messages import Message
from tid.rules.vocab import formula_name_label

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


def label_of(name: str) -> str:
    """A name of the formula as users call it: a message for the roll's columns and the
    ordinance's figures (the vocabulary's, tid/rules/vocab/formula_names.py), else the name
    as the roll writes it."""
    return formula_name_label(name) or name.replace("_", " ")


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
