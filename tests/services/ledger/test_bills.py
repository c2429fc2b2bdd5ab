"""The bills in the journal: booked with the next posting, and what was paid on a superseded
bill moved to its replacement."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger.conftest import entries_balance, pay
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import InputError
from tid.services import ledger
from tid.services.ledger import ASSESSED, BANK, OWNER_CREDIT, RECEIVABLE, REVENUE


def test_a_bill_not_yet_booked_is_owed_in_full_and_booked_with_the_next_posting(
    session: Session,
) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "90.00")
    assert ledger.bill_balances(session=session, district_id=s.district_id) == {}
    assert ledger.owed_by_bill(session=session, district_id=s.district_id) == {
        bill.id: Decimal("90.00")
    }
    assert (
        ledger.owed_by_bill(session=session, district_id=s.district_id, until=date(2025, 6, 30))
        == {}
    )
    pay(session, s, "10.00", "k", notice_number=str(bill.id))
    # Booked: 90.00 − 10.00 = 80.00, the same from the journal alone.
    assert ledger.bill_balances(session=session, district_id=s.district_id) == {
        bill.id: Decimal("80.00")
    }
    assert ledger.owed_by_bill(session=session, district_id=s.district_id) == {
        bill.id: Decimal("80.00")
    }


def test_what_was_paid_on_a_superseded_bill_moves_to_its_replacement(session: Session) -> None:
    from tid.models import BillingRun, BillStatus

    s = Scaffold(session)
    prop = s.property()
    old = s.bill(prop, "300.00")
    pay(session, s, "120.00", "k", notice_number=str(old.id))
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "version": 2, "run_on": date(2025, 7, 20)}
    )
    session.add(run2)
    session.flush()
    new = s.bill(prop, "100.00", run=run2)
    old.status, old.superseded_by_id = BillStatus.SUPERSEDED.value, new.id
    session.add(old)
    session.flush()
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    d = s.district_id
    # Paid 120.00 on the old bill; the new one is 100.00: it is paid in full and the 20.00
    # left over is held as the owner's credit (and leaves the revenue).
    assert ledger.balance(session=session, district_id=d, account=RECEIVABLE, bill_id=old.id) == 0
    assert ledger.balance(session=session, district_id=d, account=RECEIVABLE, bill_id=new.id) == 0
    assert ledger.balance(session=session, district_id=d, account=OWNER_CREDIT) == Decimal("-20.00")
    assert ledger.balance(session=session, district_id=d, account=REVENUE) == Decimal("-100.00")
    assert ledger.balance(session=session, district_id=d, account=ASSESSED) == 0
    assert ledger.balance(session=session, district_id=d, account=BANK) == Decimal("120.00")
    with pytest.raises(InputError, match="superseded"):
        pay(session, s, "5.00", "k2", notice_number=str(old.id))
    ledger.sync_bills(session=session, actor=ACTOR, district_id=d)  # again: nothing new
    assert ledger.balance(session=session, district_id=d, account=OWNER_CREDIT) == Decimal("-20.00")
    entries_balance(session)
