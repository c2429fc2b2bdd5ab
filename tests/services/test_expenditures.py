"""Expenditures: on an authorized purpose only (administration within the cap:
tests/services/ledger/test_cap.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger.conftest import funded, spend
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import InputError
from tid.services import expenditures, ledger


def test_program_spending_needs_an_authorized_purpose(session: Session) -> None:
    s, purpose_id = funded(session)
    with pytest.raises(InputError, match="authorized purpose") as caught:
        spend(session, s, "10.00", "p1")
    assert caught.value.field == "purpose"
    with pytest.raises(InputError, match="not a purpose"):
        spend(session, s, "10.00", "p2", purpose_id=purpose_id + 99)
    other = Scaffold(session)
    foreign = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=other.district_id, name="Elsewhere"
    )
    with pytest.raises(InputError, match="not a purpose"):
        spend(session, s, "10.00", "p3", purpose_id=foreign.id)
    expenditures.set_purpose_active(
        session=session, actor=ACTOR, purpose_id=purpose_id, active=False
    )
    with pytest.raises(InputError, match="no longer authorized"):
        spend(session, s, "10.00", "p4", purpose_id=purpose_id)
    expenditures.set_purpose_active(
        session=session, actor=ACTOR, purpose_id=purpose_id, active=True
    )
    done = spend(session, s, "900.00", "p5", purpose_id=purpose_id)  # no cap on program spending
    assert done.booked
    assert ledger.balance(
        session=session, district_id=s.district_id, account=ledger.purpose_account(purpose_id)
    ) == Decimal("900.00")
    with pytest.raises(InputError, match="more than zero"):
        spend(session, s, "0", "p6", purpose_id=purpose_id)
