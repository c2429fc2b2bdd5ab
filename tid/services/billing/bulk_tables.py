"""The tables of bills and of the roll's rows with money as plain integer cents, for the
bulk reads and inserts of a billing run."""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Column, MetaData, Table

from tid.models import Bill, Money, PropertyYear, Quantity


def _plain_table(model: Any) -> Table:
    """The model's table with money as plain integer cents (quantities as integer
    ten-thousandths), for bulk reads and inserts that bypass the per-value conversion."""
    source: Table = model.__table__
    columns = [
        Column(
            c.name,
            BigInteger() if isinstance(c.type, Money | Quantity) else c.type,
            primary_key=c.primary_key,
        )
        for c in source.columns
    ]
    return Table(source.name, MetaData(), *columns)


_BILL_ROWS = _plain_table(Bill)
_YEAR_ROWS = _plain_table(PropertyYear)
