"""How a column's value is written in the package's CSV and read back: the Frictionless type
of each column and its text. Money is an exact decimal with two places ("1234.50", integer
cents in the database); a quantity an exact decimal; dates and times ISO 8601 (times in UTC,
without a zone); booleans ``true``/``false``; an empty cell is null in a column that may be
null, and the empty text in a text column that may not."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import BigInteger, Boolean, Column, Date, DateTime, Integer, LargeBinary
from sqlalchemy.types import TypeDecorator, TypeEngine

from tid.models.column_types import Money, Quantity


class CellError(ValueError):
    """A cell that does not hold a value of its column's type."""


def kind(column: Column[Any]) -> str:
    """The column's kind: money, quantity, integer, boolean, date, datetime, binary, string."""
    sa_type: TypeEngine[Any] = column.type
    if isinstance(sa_type, Money):
        return "money"
    if isinstance(sa_type, Quantity):
        return "quantity"
    if isinstance(sa_type, TypeDecorator):  # sqlmodel's UTCDateTime, say
        sa_type = sa_type.impl_instance
    if isinstance(sa_type, Boolean):
        return "boolean"
    if isinstance(sa_type, DateTime):
        return "datetime"
    if isinstance(sa_type, Date):
        return "date"
    if isinstance(sa_type, Integer | BigInteger):
        return "integer"
    if isinstance(sa_type, LargeBinary):
        return "binary"
    return "string"


FRICTIONLESS = {
    "money": "number",
    "quantity": "number",
    "integer": "integer",
    "boolean": "boolean",
    "date": "date",
    "datetime": "datetime",
    "string": "string",
}


def field_of(column: Column[Any]) -> dict[str, Any]:
    """The Table Schema field of a column."""
    what = kind(column)
    found: dict[str, Any] = {"name": column.name, "type": FRICTIONLESS[what]}
    if what == "money":
        found["description"] = "An amount of money: an exact decimal with two places."
    if what == "datetime":
        found["format"] = "%Y-%m-%dT%H:%M:%S.%f"
        found["description"] = "UTC."
    if not column.nullable and what != "string":
        found["constraints"] = {"required": True}
    return found


def to_text(what: str, value: Any) -> str:
    """The cell of a value."""
    if value is None:
        return ""
    if what == "money":
        return f"{Decimal(value):.2f}"
    if what == "quantity":
        return format(Decimal(value), "f")
    if what == "boolean":
        return "true" if value else "false"
    if what == "datetime":
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return str(value.strftime("%Y-%m-%dT%H:%M:%S.%f"))
    if what == "date":
        return str(value.isoformat())
    return str(value)


def from_text(what: str, text: str, nullable: bool) -> Any:
    """The value of a cell (raises :class:`CellError`)."""
    if text == "" and (nullable or what != "string"):
        if not nullable:
            raise CellError("is empty")
        return None
    try:
        return _parse(what, text)
    except (ValueError, InvalidOperation) as exc:
        raise CellError(f"is not a {FRICTIONLESS.get(what, what)}: {text[:40]!r}") from exc


def _parse(what: str, text: str) -> Any:
    if what == "money":
        value = Decimal(text)
        if value != value.quantize(Decimal("0.01")) or not value.is_finite():
            raise ValueError(text)
        return value.quantize(Decimal("0.01"))
    if what == "quantity":
        value = Decimal(text)
        if not value.is_finite():
            raise ValueError(text)
        return value
    if what == "integer":
        if not text.lstrip("-").isdigit():
            raise ValueError(text)
        return int(text)
    if what == "boolean":
        if text not in ("true", "false"):
            raise ValueError(text)
        return text == "true"
    if what == "datetime":
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)
    if what == "date":
        return date.fromisoformat(text)
    return text
