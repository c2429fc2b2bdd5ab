"""What a person fills in to give a calculator its document: fields, tables of rows and
groups (their English labels translated by the caller), and the check of one value as
typed. Each calculator's module declares its form with these."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from tid.rules.errors import InputError
from tid.rules.money import parse_decimal
from tid.rules.periods import parse_date, parse_fiscal_year, parse_month

Gettext = Callable[[str], str]


def N_(message: str) -> str:  # noqa: N802 - the extraction marker of gettext
    """Mark a msgid for the catalog; it is translated where it is shown."""
    return message


def untranslated(message: str) -> str:
    """A message as written (the ``_`` of callers that do not translate)."""
    return message


@dataclass(frozen=True)
class Field:
    """One input of a calculator, named by its JSON key.

    ``kind``: money, quantity, integer, date, month, fiscal_year, choice, flag (a checkbox:
    true or absent), tristate (yes / no / the default), text, longtext.
    """

    element: ClassVar[str] = "field"

    key: str
    kind: str
    label: str
    required: bool = False
    choices: tuple[str, ...] = ()
    hint: str = ""


@dataclass(frozen=True)
class Table:
    """A list input (``months``, ``municipalities``…): rows of the same columns.

    With ``csv`` the rows may come from an uploaded file whose header names the columns as
    the JSON fields do. With ``open_columns`` any column is taken (the rows come from a CSV
    file only); with ``pairs`` the rows are name/value pairs that the document holds as a
    mapping {name → value}.
    """

    element: ClassVar[str] = "table"

    key: str
    label: str
    columns: tuple[Field, ...]
    min_rows: int = 6
    csv: bool = True
    hint: str = ""
    open_columns: bool = False
    pairs: bool = False

    def column(self, key: str) -> Field | None:
        return next((c for c in self.columns if c.key == key), None)


@dataclass(frozen=True)
class Group:
    """A mapping input (``collections`` {lodging type → amount}): one field per key."""

    element: ClassVar[str] = "group"

    key: str
    label: str
    fields: tuple[Field, ...]
    hint: str = ""


Item = Field | Table | Group


@dataclass(frozen=True)
class Section:
    title: str
    items: tuple[Item, ...]
    hint: str = ""


@dataclass(frozen=True)
class FormSpec:
    """How a person gives the document of one calculator."""

    name: str
    title: str
    description: str
    citation: str
    sections: tuple[Section, ...]

    def items(self) -> Iterable[Item]:
        for section in self.sections:
            yield from section.items

    def tables(self) -> list[Table]:
        return [i for i in self.items() if isinstance(i, Table)]


def check_value(item: Field, text: str, _: Gettext = untranslated) -> str | None:
    """Why ``text`` is not a valid value of ``item`` (None when it is). ``text`` not empty."""
    kind = item.kind
    if kind in ("money", "quantity"):
        try:
            amount = parse_decimal(text, item.key, allow_negative=True)
        except InputError:
            if kind == "money":
                return _("Write an amount in dollars, like 1,234.50.")
            return _("Write a quantity, like 5000000.")
        if amount < 0:
            return _("It cannot be negative.")
        if kind == "money" and amount != amount.quantize(amount.__class__("0.01")):
            return _("An amount of money has at most two decimals (cents).")
        return None
    if kind == "integer":
        return None if re.fullmatch(r"\d{1,9}", text) else _("Write a whole number, like 3.")
    if kind == "date":
        try:
            parse_date(text, item.key)
        except InputError:
            return _('Write a date as year-month-day, like "2026-03-02".')
        return None
    if kind == "month":
        try:
            parse_month(text, item.key)
        except InputError:
            return _("Write a month as year-month, like 2026-03.")
        return None
    if kind == "fiscal_year":
        try:
            parse_fiscal_year(text, item.key)
        except InputError:
            return _("Write a fiscal year like 2024-25.")
        return None
    if kind == "choice" and text not in item.choices:
        return _("Choose one of the options.")
    if kind == "tristate" and text not in ("true", "false"):
        return _("Choose one of the options.")
    return None


def json_value(item: Field, text: str) -> Any:
    """The JSON value of a checked, non-empty ``text`` (amounts stay strings)."""
    if item.kind == "integer":
        return int(text)
    if item.kind in ("flag", "tristate"):
        return text in ("true", "on", "y", "yes", "1")
    return text
