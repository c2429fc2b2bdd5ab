"""The column types every table shares, and the one naming convention of constraints.

Money is integer cents behind :class:`Money`, which reads and writes ``Decimal``; an
area or a length is integer ten-thousandths behind :class:`Quantity`; no float column
anywhere. Constraint names follow one convention so that migrations are stable on SQLite
and PostgreSQL alike."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from tid.rules.money import from_cents, to_cents

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Money(TypeDecorator[Decimal]):
    """An amount of money stored as integer cents, read back as ``Decimal``."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        if isinstance(value, float):
            raise TypeError("money columns take Decimal, never float")
        return to_cents(Decimal(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return from_cents(int(value))


def money_column(nullable: bool = False) -> Any:
    """A ``Field`` for an amount of money (integer cents in the database)."""
    return Field(sa_type=Money, nullable=nullable)


class Quantity(TypeDecorator[Decimal]):
    """A non-money quantity (an area, a length) stored exactly as integer ten-thousandths,
    read back as ``Decimal`` (up to four places); never a float."""

    impl = BigInteger
    cache_ok = True
    SCALE = 10_000

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        if isinstance(value, float):
            raise TypeError("quantity columns take Decimal, never float")
        scaled = Decimal(value) * self.SCALE
        if scaled != scaled.to_integral_value():
            raise ValueError(f"{value} has more than four decimals")
        return int(scaled)

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        # An exact quotient: 1086.78 stays 1086.78, 1000 stays 1000 (no trailing zeros).
        return Decimal(int(value)) / self.SCALE


def quantity_column(nullable: bool = True) -> Any:
    """A ``Field`` for an exact quantity with up to four decimals (areas, lengths)."""
    return Field(default=None, sa_type=Quantity, nullable=nullable)
