"""Each field of the petition forms checked: names and texts (no control characters, within
their limits), dates (not before § 6653 was enacted, not in the future), amounts, terms,
ids and the ordinance's formula (tid/rules/imposts/language.py).
"""

from __future__ import annotations

import json
import re
from datetime import date
from decimal import Decimal
from typing import Any

from tid.rules.errors import N_, InputError
from tid.rules.imposts import Value, check_formula_names, compile_formula
from tid.rules.money import parse_money
from tid.services.billing.parameters import parse_parameters
from tid.services.petitions.errors import PetitionError

MAX_NAME = 200
MAX_NUMBER = 80
MAX_TEXT = 5000
MAX_TERM_YEARS = 99
# A ceiling far above any district's budget; it keeps amounts inside the cents column.
MAX_EXPECTED_AMOUNT = Decimal("1000000000000")
EXPECTED_AMOUNT = "expected_amount"  # the parameter every formula may name (§ 6653(3)(b))
FIRST_DAY = date(1998, 8, 8)  # Act 207-1998 enacted § 6653

# Control characters cannot be stored (PostgreSQL refuses NUL) and have no place in a record.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_INTEGER = re.compile(r"^\s*\d{1,9}\s*$", re.ASCII)


def _text(value: object, field: str, *, required: bool, limit: int, multiline: bool) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    text = text.strip()
    if not multiline and ("\n" in text or "\r" in text):
        raise PetitionError(field, N_("Write this on one line."))
    if _CONTROL.search(text):
        raise PetitionError(field, N_("This text contains control characters; remove them."))
    if required and not text:
        raise PetitionError(field, N_("This field is required."))
    if len(text) > limit:
        raise PetitionError(
            field,
            N_("Write at most %(limit)s characters (%(length)s given)."),
            limit=limit,
            length=len(text),
        )
    return text


def name_field(value: object, field: str, *, required: bool = True, limit: int = MAX_NAME) -> str:
    return _text(value, field, required=required, limit=limit, multiline=False)


def long_text(value: object, field: str, *, required: bool) -> str:
    return _text(value, field, required=required, limit=MAX_TEXT, multiline=True)


def formula_field(value: object) -> str:
    """The ordinance's formula, checked as the billing run will read it (§ 6653(3)(d)): the
    language, its length and its nesting are the same bounds as the public calculator's, so
    no ordinance can hold a formula that ties up the billing run. Its names are checked by
    :func:`ordinance_formula`."""
    text = long_text(value, "formula", required=True)
    try:
        compile_formula(text)
    except InputError as exc:
        raise PetitionError(
            "formula", N_("The formula cannot be used: %(reason)s"), reason=exc.message
        ) from None
    return text


def parameters_field(value: object) -> dict[str, Value]:
    """The ordinance's named parameters, one ``name = value`` a line (like budget = 250000)."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    try:
        return parse_parameters(text)
    except InputError as exc:
        raise PetitionError("parameters", exc.message) from None


def formula_names(text: str, parameters: dict[str, Value], *, columns: list[str]) -> None:
    """Every name of the formula ``text`` is a column of the roll (``columns``) or one of its
    ``parameters`` (or the ordinance's expected amount), and every parameter is used."""
    try:
        check_formula_names(
            text, columns=columns, parameters=list(parameters), always=[EXPECTED_AMOUNT]
        )
    except InputError as exc:
        field = "parameters" if exc.field.startswith("parameters") else "formula"
        raise PetitionError(field, exc.message) from None


def parameters_text(parameters_json: str) -> str:
    """An ordinance's parameters as the form writes them: one ``name = value`` a line."""
    stored = json.loads(parameters_json or "{}")
    return "\n".join(f"{name} = {value}" for name, value in sorted(stored.items()))


def date_field(
    value: object,
    field: str,
    *,
    today: date,
    after: date | None = None,
    after_msgid: str = "",
    **after_params: Any,
) -> date:
    """A date that is not in the future, not before § 6653 was enacted and, when ``after`` is
    given, not before it (``after_msgid`` says why)."""
    if isinstance(value, date):
        day = value
    else:
        text = value.strip() if isinstance(value, str) else ""
        if not text:
            raise PetitionError(field, N_("Enter the date."))
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise PetitionError(
                field, N_("Write the date as YYYY-MM-DD, for example 2026-03-02.")
            ) from None
    if day > today:
        raise PetitionError(
            field,
            N_("%(day)s is in the future (today is %(today)s)."),
            day=day,
            today=today,
        )
    if day < FIRST_DAY:
        raise PetitionError(
            field,
            N_("%(day)s is before 21 LPRA § 6653 was enacted (%(first)s)."),
            day=day,
            first=FIRST_DAY,
        )
    if after is not None and day < after:
        raise PetitionError(field, after_msgid, day=day, after=after, **after_params)
    return day


def parse_expected_amount(value: object, field: str = "expected_amount") -> Decimal:
    """§ 6653(3)(b): the amount expected to be collected, in dollars and cents, above zero."""
    try:
        amount = parse_money(value if value is not None else "", field)
    except InputError:
        raise PetitionError(
            field, N_("Write an amount in dollars, like 1,250,000.00 (at most two decimals).")
        ) from None
    except ArithmeticError:  # more digits than Decimal's context holds
        raise PetitionError(field, N_("The expected amount is implausibly large.")) from None
    if amount <= 0:
        raise PetitionError(field, N_("The expected amount must be more than zero."))
    if amount > MAX_EXPECTED_AMOUNT:
        raise PetitionError(field, N_("The expected amount is implausibly large."))
    return amount


def parse_term_years(value: object, field: str = "term_years") -> int:
    """§ 6653(3)(c): the term of the imposts, in whole years (1 or more)."""
    if isinstance(value, bool):
        value = ""
    text = str(value) if isinstance(value, int) else (value if isinstance(value, str) else "")
    if not _INTEGER.match(text):
        raise PetitionError(field, N_("Write the term as a whole number of years, like 10."))
    years = int(text)
    if years < 1:
        raise PetitionError(field, N_("The term must be at least one year."))
    if years > MAX_TERM_YEARS:
        raise PetitionError(field, N_("The term can be at most %(max)s years."), max=MAX_TERM_YEARS)
    return years


def id_field(value: object, field: str) -> int:
    text = str(value) if isinstance(value, int) else (value if isinstance(value, str) else "")
    if not _INTEGER.match(text):
        raise PetitionError(field, N_("Choose one of the options."))
    return int(text)
