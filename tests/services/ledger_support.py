"""Shared test scaffolding for the special account: a district with an ordinance, a billing
run and properties with bills, made directly (the billing service is not under test here)."""

from __future__ import annotations

import itertools
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tid.demo import records
from tid.models import Bill, BillingRun, District, Municipality, Property, PropertyYear
from tid.services.account import payments
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
# 90 days after the bills' due date 2025-09-30: the delinquency's and the statement's day.
TODAY_90_DAYS_LATE = date(2025, 12, 29)
_serial = itertools.count(1)


class Scaffold:
    """A municipality, a district, its ordinance and one billing run of FY 2025-26."""

    def __init__(self, session: Session, district: District | None = None) -> None:
        self.session = session
        if district is None:
            n = next(_serial)
            municipality = Municipality(name=f"Rincón {n}")
            session.add(municipality)
            session.flush()
            district = District(municipality_id=municipality.id or 0, name=f"Rincón Playa {n}")
            session.add(district)
            session.flush()
        self.district = district
        self.district_id = district.id or 0
        self.ordinance = records.ordinance(
            session,
            municipality_id=district.municipality_id,
            district_id=self.district_id,
            district_name=district.name,
            petitioner="Mayor",
            received_on=date(2024, 1, 10),
            expected_amount=Decimal("100000.00"),
            term_years=5,
            formula="0.01 * assessed_value",
            association_name="Asociación",
            issued_on=date(2024, 3, 1),
        )
        self.roll = records.roll_import(
            session,
            district_id=self.district_id,
            fiscal_year="2025-26",
            sha256=f"{self.district_id:064d}",
            rows=0,
            actor="tests",
        )
        self.run = records.billing_run(
            session,
            self.ordinance,
            fiscal_year="2025-26",
            run_on=date(2025, 7, 1),
            due_date=date(2025, 9, 30),
            fingerprint="0" * 64,
            actor="tests",
        )
        self._n = 0

    def property(self, cadastral: str | None = None, owner: str = "Ana Pérez") -> Property:
        self._n += 1
        prop = Property(
            district_id=self.district_id,
            cadastral_number=cadastral or f"100-{self.district_id:03d}-{self._n:03d}-01",
        )
        self.session.add(prop)
        self.session.flush()
        year = PropertyYear(
            property_id=prop.id or 0,
            district_id=self.district_id,
            fiscal_year="2025-26",
            roll_import_id=self.roll.id or 0,
            owner_names=owner,
            assessed_value=Decimal("100000.00"),
        )
        self.session.add(year)
        self.session.flush()
        self._years = getattr(self, "_years", {})
        self._years[prop.id] = year
        return prop

    def bill(
        self,
        prop: Property,
        amount: str,
        due: date = date(2025, 9, 30),
        run: BillingRun | None = None,
    ) -> Bill:
        bill = Bill(
            billing_run_id=(run or self.run).id or 0,
            district_id=self.district_id,
            property_id=prop.id or 0,
            property_year_id=self._years[prop.id].id or 0,
            fiscal_year="2025-26",
            amount=Decimal(amount),
            explanation="test",
            due_date=due,
        )
        self.session.add(bill)
        self.session.flush()
        return bill


def pay_bill(
    session: Session, s: Scaffold, amount: str, on: date, key: str, bill_id: int | None
) -> None:
    """A payment of ``amount`` on ``on`` against one bill (booked as of 90 days late)."""
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=on,
        amount=Decimal(amount),
        today=TODAY_90_DAYS_LATE,
        key=key,
        notice_number=str(bill_id),
    )
