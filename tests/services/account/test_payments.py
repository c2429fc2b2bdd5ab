"""Payments: partial and over (the excess held as credit), idempotent, refused with their
field, the bank-deposit import (by service and command line), the owner's credit applied."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask.testing import FlaskCliRunner
from sqlmodel import Session

from tests.services.ledger.conftest import TODAY, entries_balance, pay
from tests.services.ledger_support import ACTOR, Scaffold
from tid.rules.errors import FindingsError, InputError
from tid.services import ledger
from tid.services.account import payments
from tid.services.ledger import ASSESSED, BANK, OWNER_CREDIT, RECEIVABLE, REVENUE


def test_partial_payment_then_overpayment_held_as_credit(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "250.00")
    first = pay(session, s, "100.00", "k1", notice_number=str(bill.id))
    # 250.00 owed − 100.00 paid = 150.00 still owed; nothing held.
    assert first.booked and first.credit == 0
    assert first.applied[0].applied == Decimal("100.00")
    assert first.applied[0].outstanding_after == Decimal("150.00")
    second = pay(session, s, "200.00", "k2", cadastral_number=prop.cadastral_number)
    # 150.00 closes the bill; 200.00 − 150.00 = 50.00 held as the owner's credit.
    assert second.applied[0].applied == Decimal("150.00")
    assert second.credit == Decimal("50.00")
    d = s.district_id
    assert ledger.balance(session=session, district_id=d, account=BANK) == Decimal("300.00")
    assert ledger.balance(session=session, district_id=d, account=RECEIVABLE, bill_id=bill.id) == 0
    assert ledger.balance(session=session, district_id=d, account=REVENUE) == Decimal("-250.00")
    assert ledger.balance(session=session, district_id=d, account=OWNER_CREDIT) == Decimal("-50.00")
    assert ledger.balance(session=session, district_id=d, account=ASSESSED) == 0
    entries_balance(session)


def test_the_same_payment_twice_is_booked_once(session: Session) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "80.00")
    a = pay(session, s, "80.00", "form:abc", notice_number=str(bill.id))
    b = pay(session, s, "80.00", "form:abc", notice_number=str(bill.id))
    assert a.booked and not b.booked and a.entry_id == b.entry_id
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "80.00"
    )


@pytest.mark.parametrize(
    ("amount", "paid_on", "target", "field", "message"),
    [
        ("0.00", date(2025, 8, 1), {"notice_number": "1"}, "amount", "more than zero"),
        ("-5.00", date(2025, 8, 1), {"notice_number": "1"}, "amount", "more than zero"),
        ("5.00", date(2025, 10, 16), {"notice_number": "1"}, "date", "future"),
        ("5.00", date(2025, 8, 1), {"notice_number": "999"}, "notice_number", "no bill"),
        (
            "5.00",
            date(2025, 8, 1),
            {"cadastral_number": "999-999-999-99"},
            "cadastral_number",
            "no property",
        ),
        ("5.00", date(2025, 8, 1), {}, "notice_number", "notice number or the cadastral"),
    ],
)
def test_bad_payments_are_refused_with_their_field(
    session: Session, amount: str, paid_on: date, target: dict[str, str], field: str, message: str
) -> None:
    s = Scaffold(session)
    s.bill(s.property(), "80.00")
    with pytest.raises(InputError, match=message) as caught:
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            paid_on=paid_on,
            amount=Decimal(amount),
            today=TODAY,
            key="k",
            **target,
        )
    assert caught.value.field == field
    assert ledger.entry_by_key(session=session, key="k") is None


def test_import_is_all_or_nothing_and_rerun_books_nothing_twice(session: Session) -> None:
    s = Scaffold(session)
    p1, p2 = s.property("111-111-111-11"), s.property("222-222-222-22")
    b1, _ = s.bill(p1, "100.00"), s.bill(p2, "300.00")
    session.commit()
    good = (
        "date,amount,reference,cadastral_number,notice_number\n"
        f"2025-08-01,100.00,DEP-1,,{b1.id}\n"
        '2025-08-02,"1,000.00",DEP-2,222-222-222-22,\n'
    ).encode()
    result = payments.import_deposits(
        session=session, actor=ACTOR, district_id=s.district_id, data=good, today=TODAY
    )
    session.commit()
    # 100.00 + 1,000.00 = 1,100.00 into the bank; 1,000.00 − 300.00 = 700.00 held as credit.
    assert (result.booked, result.already_booked, result.total_booked) == (2, 0, Decimal("1100.00"))
    assert ledger.balance(
        session=session, district_id=s.district_id, account=OWNER_CREDIT
    ) == Decimal("-700.00")
    again = payments.import_deposits(
        session=session, actor=ACTOR, district_id=s.district_id, data=good, today=TODAY
    )
    assert (again.booked, again.already_booked) == (0, 2)
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "1100.00"
    )
    bad = (
        b"date,amount,reference,cadastral_number\n"
        b"2025-08-03,50.00,DEP-3,111-111-111-11\n"
        b"2025-13-01,50.00,DEP-4,111-111-111-11\n"
        b"2025-08-05,abc,DEP-5,111-111-111-11\n"
        b"2025-08-06,-1.00,DEP-6,111-111-111-11\n"
        b"2025-08-07,5.00,DEP-7,999-999-999-99\n"
    )
    with pytest.raises(FindingsError) as caught:
        payments.import_deposits(
            session=session, actor=ACTOR, district_id=s.district_id, data=bad, today=TODAY
        )
    assert [f.row for f in caught.value.findings] == [3, 4, 5]
    session.rollback()
    unknown = b"date,amount,reference,cadastral_number\n2025-08-07,5.00,DEP-7,999-999-999-99\n"
    with pytest.raises(FindingsError) as caught:
        payments.import_deposits(
            session=session, actor=ACTOR, district_id=s.district_id, data=unknown, today=TODAY
        )
    assert caught.value.findings[0].row == 2
    assert caught.value.findings[0].field == "rows[2].cadastral_number"
    session.rollback()
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "1100.00"
    )


def test_the_command_line_imports_deposits_once(
    runner: FlaskCliRunner, session: Session, tmp_path: Path
) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "50.00")
    session.commit()
    good = tmp_path / "deposits.csv"
    good.write_text(f"date,amount,reference,notice_number\n2025-08-01,50.00,D1,{bill.id}\n")
    args = ["account", "import-deposits", str(good), "--district", str(s.district_id)]
    first = runner.invoke(args=args)
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["booked"] == 1
    again = runner.invoke(args=args)
    assert json.loads(again.output) == {
        "rows": 1,
        "booked": 0,
        "already_booked": 1,
        "total_booked": "0.00",
    }
    bad = tmp_path / "bad.csv"
    bad.write_text("date,amount,reference,notice_number\n2025-08-01,0,D2,1\n")
    failed = runner.invoke(
        args=["account", "import-deposits", str(bad), "--district", str(s.district_id)]
    )
    assert failed.exit_code == 2
    assert json.loads(failed.stderr)["errors"][0]["row"] == 2


def test_the_owner_credit_pays_a_later_bill(session: Session) -> None:
    from tid.models import BillingRun

    s = Scaffold(session)
    prop = s.property()
    first = s.bill(prop, "100.00")
    pay(session, s, "150.00", "k1", notice_number=str(first.id))  # 50.00 held
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "fiscal_year": "2026-27", "run_on": date(2026, 7, 1)}
    )
    session.add(run2)
    session.flush()
    second = s.bill(prop, "80.00", due=date(2026, 9, 30), run=run2)
    d = s.district_id
    assert payments.credit_by_bill(session=session, district_id=d, property_id=prop.id or 0) == {
        first.id: Decimal("50.00")
    }
    later = date(2026, 8, 1)
    result = payments.apply_credit(
        session=session,
        actor=ACTOR,
        district_id=d,
        property_id=prop.id or 0,
        on=later,
        today=later,
        key="c1",
    )
    # 80.00 owed − 50.00 credit = 30.00 still owed; the 50.00 is FY2026-27 revenue now.
    assert result.booked and result.amount == Decimal("50.00")
    assert ledger.owed_by_bill(session=session, district_id=d)[second.id or 0] == Decimal("30.00")
    assert ledger.balance(session=session, district_id=d, account=OWNER_CREDIT) == 0
    assert ledger.balance(
        session=session, district_id=d, account=REVENUE, since=date(2026, 7, 1)
    ) == Decimal("-50.00")
    assert ledger.balance(session=session, district_id=d, account=BANK) == Decimal(
        "150.00"
    )  # no money moved
    with pytest.raises(InputError, match="No credit"):
        payments.apply_credit(
            session=session,
            actor=ACTOR,
            district_id=d,
            property_id=prop.id or 0,
            on=later,
            today=later,
            key="c2",
        )
    entries_balance(session)
