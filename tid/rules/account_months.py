"""A month of the special account as the charts and the statement draw it: what came in, what
was spent on the program and on administration, and the fiscal year's running totals that the
administrative cap is measured against (21 LPRA § 6653(6))."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Month:
    year: int
    month: int
    revenue: Decimal
    program: Decimal
    admin: Decimal
    revenue_to_date: Decimal
    admin_to_date: Decimal

    @property
    def label(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"
