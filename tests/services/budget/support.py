"""What the budget's tests share: a district of FY 2025-26 with its billing, two authorized
purposes, and a plan within the law."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.periods import FiscalYear
from tid.services.account import expenditures
from tid.services.budget import planning

FY = FiscalYear(2025)
BEFORE = date(2025, 6, 15)  # the budget is drafted before the year


class District:
    def __init__(self, session: Session) -> None:
        self.s = Scaffold(session)
        self.s.run.total = Decimal("1500.00")
        session.add(self.s.run)
        session.flush()
        self.id = self.s.district_id
        add = dict(session=session, actor=ACTOR, district_id=self.id)
        self.cleaning = expenditures.add_purpose(name="Street cleaning", **add).id or 0  # type: ignore[arg-type]
        self.security = expenditures.add_purpose(name="Security", **add).id or 0  # type: ignore[arg-type]

    def plan(self, **lines: str) -> planning.Plan:
        """1,500.00 billed at 90% (a new district's guess): 1,350.00 expected."""
        amounts = {"admin": "60.00", "cleaning": "800.00", "security": "400.00", **lines}
        keys = {"admin": "admin", "cleaning": str(self.cleaning), "security": str(self.security)}
        return planning.Plan(
            billed=Decimal("1500.00"),
            collection_rate=Decimal("0.9"),
            rate_reason="The district's first year: the municipality's own rate.",
            lines={keys.get(k, k): Decimal(v) for k, v in amounts.items()},
        )
