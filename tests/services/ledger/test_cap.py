"""The administrative cap of 21 LPRA § 6653(6) (/readings#admin-cap-per-fiscal-year) on the
journal: spending up to
the cap, refused above it with the figures, also under parallel writers."""

from __future__ import annotations

import threading
from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from sqlmodel import Session

from tests.services.ledger.conftest import TODAY, funded, spend
from tests.services.ledger_support import ACTOR
from tid.rules.periods import FiscalYear
from tid.services import ledger
from tid.services.account import expenditures, payments
from tid.services.ledger import ADMIN_EXPENSE, BANK, CapExceededError


def test_admin_up_to_the_cap_then_refused_with_the_figures(session: Session) -> None:
    s, _ = funded(session)
    # 5% × 1,000.00 collected = 50.00 cap.
    first = spend(session, s, "30.00", "a1", administrative=True)
    assert first.booked and first.figures.headroom == Decimal("20.00")
    with pytest.raises(CapExceededError) as caught:
        spend(session, s, "20.01", "a2", administrative=True)  # 30.00 + 20.01 = 50.01 > 50.00
    figures = caught.value.figures
    assert (figures.revenue, figures.admin, figures.headroom) == (
        Decimal("1000.00"),
        Decimal("30.00"),
        Decimal("20.00"),
    )
    assert caught.value.field == "amount"
    assert not caught.value.decision.allowed
    exactly = spend(session, s, "20.00", "a3", administrative=True)  # 50.00 = cap: allowed
    assert exactly.figures.headroom == 0
    assert ledger.balance(
        session=session, district_id=s.district_id, account=ADMIN_EXPENSE
    ) == Decimal("50.00")
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "950.00"
    )


def test_parallel_admin_expenditures_cannot_together_break_the_cap(app: Flask) -> None:
    engine = app.extensions["tid.engine"]
    with Session(engine, expire_on_commit=False) as setup:
        s, _ = funded(setup, "1000.00")  # cap 50.00
        district_id = s.district_id
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        with Session(engine, expire_on_commit=False) as db:
            barrier.wait()
            try:
                expenditures.record_expenditure(
                    session=db,
                    actor=ACTOR,
                    district_id=district_id,
                    spent_on=date(2025, 9, 1),
                    amount=Decimal("15.00"),
                    payee=f"Vendor {n}",
                    today=TODAY,
                    key=f"par-{n}",
                    administrative=True,
                )
                db.commit()
                outcomes.append("booked")
            except CapExceededError:
                db.rollback()
                outcomes.append("refused")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # 3 × 15.00 = 45.00 ≤ 50.00; a fourth would make 60.00.
    assert sorted(outcomes) == ["booked"] * 3 + ["refused"] * 5
    with Session(engine) as db:
        assert ledger.balance(
            session=db, district_id=district_id, account=ADMIN_EXPENSE
        ) == Decimal("45.00")


def test_a_refund_of_last_years_admin_spending_makes_no_room_this_year(session: Session) -> None:
    s, _ = funded(session)  # 1,000.00 collected in FY2025-26: cap 50.00
    spent = spend(session, s, "40.00", "a1", administrative=True)
    later = date(2026, 8, 1)  # FY2026-27
    ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=spent.expenditure.entry_id,
        on=later,
        reason="refund",
        today=later,
    )
    bill = s.bill(s.property(), "200.00")
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=later,
        amount=Decimal("200.00"),
        today=later,
        key="pay2",
        notice_number=str(bill.id),
    )
    # FY2026-27: revenue 200.00, cap 10.00; administrative −40.00 (the refund) counts as 0.
    figures = ledger.cap_figures(session=session, district_id=s.district_id, fy=FiscalYear(2026))
    assert figures.admin == Decimal("-40.00") and figures.headroom == Decimal("10.00")
    with pytest.raises(CapExceededError):
        expenditures.record_expenditure(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            spent_on=later,
            amount=Decimal("10.01"),
            payee="V",
            today=later,
            key="a2",
            administrative=True,
        )
    expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        spent_on=later,
        amount=Decimal("10.00"),
        payee="V",
        today=later,
        key="a3",
        administrative=True,
    )
