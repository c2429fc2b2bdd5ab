"""A district's whole life in tid, end to end: it moves in with its past from the example
files (their bad rows named first, nothing booked until the files are right and the totals
confirmed), bills and collects a year after the cut-over, leaves with its whole record, and
comes back in a fresh installation on the other backend with the same yearly statements,
delinquency list and account verification."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import Session, select

from tests.conftest import People, make_test_app
from tests.services.aboard.support import ACTOR, check, district_with_rolls, example_files, load
from tests.services.aboard.test_loading import BAD_BILLS
from tests.services.roll.helpers import GOOD
from tests.services.test_district_record import TODAY, _export, _figures, _fresh_database
from tid.models import Bill, BillStatus, JournalEntry
from tid.rules.errors import FindingsError
from tid.services import billing, roll
from tid.services.account import payments


def test_a_district_moves_in_bills_a_year_leaves_and_comes_back_alike(
    database_url: str,
    session: Session,
    people: People,
    backend: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    district_id = district_with_rolls(session, people)
    # Moving in: the bad rows first, each at its row; nothing is booked.
    bad = example_files("es", bills=BAD_BILLS)
    assert {f.row for f in check(session, district_id, bad).findings} == {3, 4, 5, 6, 7}
    with pytest.raises(FindingsError):
        load(session, district_id, bad)
    session.rollback()
    assert session.exec(select(JournalEntry)).all() == []
    load(session, district_id, example_files("es"))
    session.commit()
    opening = session.exec(select(JournalEntry).where(JournalEntry.kind == "opening")).all()
    assert opening
    # A year after the cut-over: the year's roll billed by the ordinance, and a payment.
    roll.import_roll(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year="2026-27",
        data=GOOD.encode(),
        file_name="roll.csv",
    )
    billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year="2026-27",
        run_on=date(2026, 7, 15),
    )
    session.commit()
    bill = session.exec(
        select(Bill).where(
            Bill.district_id == district_id,
            Bill.fiscal_year == "2026-27",
            Bill.status == BillStatus.ACTIVE.value,
        )
    ).first()
    assert bill is not None
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        paid_on=date(2026, 8, 1),
        amount=Decimal("100.00"),
        today=date(2026, 8, 1),
        key="a-year-after",
        notice_number=str(bill.id),
    )
    session.commit()
    source = make_test_app(database_url, tmp_path / "source", TODAY=TODAY.isoformat())
    other = "postgresql" if backend == "sqlite" else "sqlite"
    target: Flask | None = None
    try:
        before = _figures(source, district_id)
        assert any(name.startswith("statement 2026-27") for name in before)
        _export(source, district_id, tmp_path / "district.zip")
        target = make_test_app(
            _fresh_database(other, request, tmp_path), tmp_path / "target", TODAY=TODAY.isoformat()
        )
        done = target.test_cli_runner().invoke(
            args=["import", "district", str(tmp_path / "district.zip")]
        )
        assert done.exit_code == 0, done.output
        with target.app_context(), Session(target.extensions["tid.engine"]) as again:
            kinds = again.exec(select(JournalEntry.kind)).all()
            new_id = again.exec(select(JournalEntry.district_id)).first()
        assert sorted(kinds).count("opening") == len(opening) and new_id is not None
        assert _figures(target, new_id) == before
    finally:
        source.extensions["tid.engine"].dispose()
        if target is not None:
            target.extensions["tid.engine"].dispose()
