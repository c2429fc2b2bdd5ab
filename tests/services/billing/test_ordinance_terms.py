"""No bill without an approved ordinance whose term includes the year, and a roll."""

from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.billing.helpers import make_ordinance, run
from tid.rules.errors import InputError
from tid.services import billing


def test_no_bill_without_an_approved_ordinance_in_term_and_a_roll(
    session: Session, people: People
) -> None:
    with pytest.raises(InputError) as none:
        run(session, people)
    assert none.value.field == "ordinance"
    session.rollback()
    ordinance = make_ordinance(session, people, approved_on=None)
    with pytest.raises(InputError) as unapproved:
        run(session, people)
    assert "not approved" in unapproved.value.message
    session.rollback()
    ordinance.approved_on = date(2026, 3, 16)  # FY2025-26: the term is FY2025-26 … 2029-30
    session.add(ordinance)
    session.commit()
    with pytest.raises(InputError) as no_roll:
        run(session, people)
    assert "import the roll" in no_roll.value.message
    session.rollback()
    with pytest.raises(InputError) as outside:
        run(session, people, fiscal_year="2030-31")
    assert outside.value.field == "fiscal_year"
    session.rollback()
    first, last = billing.ordinance_term(ordinance)
    assert (first.label, last.label) == ("2025-26", "2029-30")
