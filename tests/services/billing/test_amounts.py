"""All or nothing: a formula that fails on one property names it and writes nothing."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import count, import_roll, make_ordinance, run
from tid.models import Bill, BillingRun
from tid.rules.errors import InputError


def test_a_formula_failing_on_one_property_writes_nothing(session: Session, people: People) -> None:
    make_ordinance(session, people, formula="2.00 * land_area")  # 001-03 has no land area
    import_roll(session, people)
    with pytest.raises(InputError) as caught:
        run(session, people)
    assert "040-010-001-03" in caught.value.message
    session.rollback()
    assert count(session, BillingRun) == 0 and count(session, Bill) == 0
