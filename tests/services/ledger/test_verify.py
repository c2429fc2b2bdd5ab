"""The check of the running balances against the journal."""

from __future__ import annotations

import json
from decimal import Decimal

from flask.testing import FlaskCliRunner
from sqlalchemy import text
from sqlmodel import Session, select

from tests.services.ledger.conftest import pay
from tests.services.ledger_support import Scaffold
from tid.models import BillLedger
from tid.services import ledger
from tid.services.ledger import BANK, OWNER_CREDIT, RECEIVABLE


def test_verify_recomputes_the_running_balances_and_reports_a_difference(
    runner: FlaskCliRunner, session: Session
) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "80.00")
    pay(session, s, "30.00", "v1", notice_number=str(bill.id))
    pay(session, s, "70.00", "v2", cadastral_number=prop.cadastral_number)  # 20.00 credit
    session.commit()
    args = ["account", "verify", "--district", str(s.district_id)]
    good = runner.invoke(args=args)
    assert good.exit_code == 0, good.output
    report = json.loads(good.output)
    assert (report["journal_lines"], report["differences"], report["agrees"]) == (
        2 + 4 + 5,
        0,
        True,
    )
    # The running balances read by the pages are the journal's.
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "100.00"
    )
    assert ledger.bill_balances(
        session=session, district_id=s.district_id, account=OWNER_CREDIT
    ) == {bill.id: Decimal("-20.00")}
    assert (
        ledger.balance(
            session=session, district_id=s.district_id, account=RECEIVABLE, bill_id=bill.id
        )
        == 0
    )
    # A running balance that drifted from the journal is reported, and the command fails.
    session.execute(text("UPDATE ledger_day SET amount = amount + 1 WHERE account = 'bank'"))
    session.execute(text("UPDATE bill_ledger SET receivable = receivable - 5"))
    session.execute(text("UPDATE journal_day SET entries = entries + 1 WHERE kind = 'payment'"))
    session.execute(
        text("INSERT INTO owed_day VALUES (:d, '2024-09-30', 1, 700)"), {"d": s.district_id}
    )
    session.commit()
    lines, differences = ledger.verify(session=session, district_id=s.district_id)
    assert lines == 11
    assert sorted((d.what, d.key.split()[0]) for d in differences) == [
        ("bill", str(bill.id)),
        ("day", "bank"),
        ("entries", "payment"),
        ("owed", "bills"),
        ("owed", "owed"),
    ]
    bad = runner.invoke(args=args)
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["differences"] == 5
    assert "bank 2025-08-01" in bad.stderr
    assert "entries payment 2025-08-01: stored 3, journal 2" in bad.stderr
    # The due date the running balance keeps for the delinquency's order is the bill's.
    assert session.exec(select(BillLedger.due_date)).all() == [bill.due_date]
    session.execute(text("UPDATE bill_ledger SET due_date = '2030-01-01'"))
    session.commit()
    _, differences = ledger.verify(session=session, district_id=s.district_id)
    assert f"{bill.id} due date" in [d.key for d in differences if d.what == "bill"]
