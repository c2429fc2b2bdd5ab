"""Expenditures: on an authorized purpose only (administration within the cap:
tests/services/ledger/test_cap.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import Session

from tests.services.ledger.conftest import funded, spend
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import InputError
from tid.services import ledger
from tid.services.account import expenditures


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


def test_the_caps_refusal_is_one_message_said_in_each_language() -> None:
    from tid.rules import admin_cap
    from tid.rules.messages import Message, render
    from tid.rules.periods import FiscalYear
    from tid.services.ledger import CapFigures

    figures = CapFigures(
        fiscal_year=FiscalYear(2026),
        citation="21 LPRA § 6653(6)",
        measure=admin_cap.measure(
            rate=Decimal("0.125"), revenue=Decimal("1000"), admin=Decimal("100")
        ),
    )
    refusal = expenditures.cap_message(figures)
    assert isinstance(refusal, Message)
    assert "would exceed 12.5% of the impost revenue" in str(refusal)
    spanish = render(refusal, "es")
    assert spanish != str(refusal) and "12.5" in spanish and "%" in spanish
    none = expenditures.cap_message(
        CapFigures(
            fiscal_year=FiscalYear(2026),
            citation="21 LPRA § 6653(6)",
            measure=admin_cap.measure(
                rate=Decimal("0.125"), revenue=Decimal("0"), admin=Decimal("0")
            ),
        )
    )
    assert "FY 2026-27 has no impost revenue" in str(none)
    assert "2026-27" in render(none, "es") and render(none, "es") != str(none)
