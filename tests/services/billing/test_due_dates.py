"""A run's due date: 60 days after the run by default, never inside the certified-mail
notice's 30 days (21 LPRA § 6653(5))."""

from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.billing.helpers import count, import_roll, make_ordinance, run
from tid.models import Bill, BillingRun
from tid.rules.errors import InputError
from tid.services import billing


def test_the_default_due_date_is_60_days_after_the_run(billed: billing.BillingResult) -> None:
    # 2026-07-01 + 60 days = 2026-08-30
    assert billed.run.due_date == date(2026, 8, 30)


def test_due_dates(session: Session, people: People) -> None:
    make_ordinance(session, people, received_on=date(2026, 6, 25))
    import_roll(session, people)
    # The run is on 2026-07-01: its 30-day notice period ends 2026-07-31 (a Friday).
    with pytest.raises(InputError) as caught:
        run(session, people, due_date=date(2026, 7, 30))
    assert caught.value.field == "due_date"
    session.rollback()
    assert count(session, BillingRun) == 0
    first = run(session, people, due_date=date(2026, 7, 31))
    assert first.run.due_date == date(2026, 7, 31)
    # Another due date, same bills: a new version that says so in its due date.
    second = run(session, people, due_date=date(2026, 9, 30))
    assert second.unchanged is False and second.run.version == 2
    assert second.run.due_date == date(2026, 9, 30)
    assert {b.due_date for b in session.exec(select(Bill).where(Bill.status == "active"))} == {
        date(2026, 9, 30)
    }
