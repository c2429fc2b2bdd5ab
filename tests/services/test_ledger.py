"""The journal: balanced, append-only (the database refuses UPDATE and DELETE), payments
partial and over, reversals, idempotency, the bank-deposit import."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from flask.testing import FlaskCliRunner
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session, select

from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import BillLedger, JournalEntry, JournalLine
from tid.rules.errors import FindingsError, InputError
from tid.services import ledger, payments
from tid.services.ledger import ASSESSED, BANK, OWNER_CREDIT, RECEIVABLE, REVENUE

TODAY = date(2025, 10, 15)


def _pay(
    session: Session, s: Scaffold, amount: str, key: str, **target: str
) -> payments.PaymentResult:
    return payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal(amount),
        today=TODAY,
        key=key,
        **target,
    )


def _entries_balance(session: Session) -> None:
    for entry in session.exec(select(JournalEntry)):
        lines = ledger.entry_lines(session, entry.id or 0)
        assert lines and sum(line.amount for line in lines) == 0


def test_update_and_delete_of_journal_rows_are_refused(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    s.bill(prop, "250.00")
    _pay(session, s, "100.00", "k1", notice_number="1")
    session.commit()
    statements = [
        "UPDATE journal_line SET amount = amount + 1",
        "DELETE FROM journal_line",
        "UPDATE journal_entry SET memo = 'changed'",
        "DELETE FROM journal_entry",
    ]
    for statement in statements:
        with pytest.raises(DatabaseError, match="append-only"):
            session.execute(text(statement))
        session.rollback()
    if session.get_bind().dialect.name == "postgresql":
        with pytest.raises(DatabaseError, match="append-only"):
            session.execute(text("TRUNCATE journal_line, journal_entry CASCADE"))
        session.rollback()
    # Nothing changed: 2 entries (the bill, the payment), 2 + 4 lines.
    assert len(session.exec(select(JournalEntry)).all()) == 2
    assert len(session.exec(select(JournalLine)).all()) == 6


def test_partial_payment_then_overpayment_held_as_credit(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "250.00")
    first = _pay(session, s, "100.00", "k1", notice_number=str(bill.id))
    # 250.00 owed − 100.00 paid = 150.00 still owed; nothing held.
    assert first.booked and first.credit == 0
    assert first.applied[0].applied == Decimal("100.00")
    assert first.applied[0].outstanding_after == Decimal("150.00")
    second = _pay(session, s, "200.00", "k2", cadastral_number=prop.cadastral_number)
    # 150.00 closes the bill; 200.00 − 150.00 = 50.00 held as the owner's credit.
    assert second.applied[0].applied == Decimal("150.00")
    assert second.credit == Decimal("50.00")
    d = s.district_id
    assert ledger.balance(session, d, BANK) == Decimal("300.00")
    assert ledger.balance(session, d, RECEIVABLE, bill_id=bill.id) == 0
    assert ledger.balance(session, d, REVENUE) == Decimal("-250.00")
    assert ledger.balance(session, d, OWNER_CREDIT) == Decimal("-50.00")
    assert ledger.balance(session, d, ASSESSED) == 0
    _entries_balance(session)


def test_the_same_payment_twice_is_booked_once(session: Session) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "80.00")
    a = _pay(session, s, "80.00", "form:abc", notice_number=str(bill.id))
    b = _pay(session, s, "80.00", "form:abc", notice_number=str(bill.id))
    assert a.booked and not b.booked and a.entry_id == b.entry_id
    assert ledger.balance(session, s.district_id, BANK) == Decimal("80.00")


def test_reversal_is_a_new_entry_and_restores_the_balances(session: Session) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "80.00")
    paid = _pay(session, s, "100.00", "k", notice_number=str(bill.id))
    rev = ledger.reverse_entry(
        session,
        actor=ACTOR,
        entry_id=paid.entry_id,
        on=date(2025, 8, 5),
        reason="bounced",
        today=TODAY,
    )
    assert rev.booked and rev.entry.reverses_id == paid.entry_id
    d = s.district_id
    assert ledger.balance(session, d, BANK) == 0
    assert ledger.balance(session, d, RECEIVABLE, bill_id=bill.id) == Decimal("80.00")
    assert ledger.balance(session, d, OWNER_CREDIT) == 0
    with pytest.raises(InputError, match="already been reversed"):
        ledger.reverse_entry(
            session,
            actor=ACTOR,
            entry_id=paid.entry_id,
            on=date(2025, 8, 5),
            reason="x",
            today=TODAY,
        )
    with pytest.raises(InputError, match="itself be reversed"):
        ledger.reverse_entry(
            session,
            actor=ACTOR,
            entry_id=rev.entry.id or 0,
            on=date(2025, 8, 5),
            reason="x",
            today=TODAY,
        )
    _entries_balance(session)


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
    assert ledger.entry_by_key(session, "k") is None


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
    assert ledger.balance(session, s.district_id, OWNER_CREDIT) == Decimal("-700.00")
    again = payments.import_deposits(
        session=session, actor=ACTOR, district_id=s.district_id, data=good, today=TODAY
    )
    assert (again.booked, again.already_booked) == (0, 2)
    assert ledger.balance(session, s.district_id, BANK) == Decimal("1100.00")
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
    assert ledger.balance(session, s.district_id, BANK) == Decimal("1100.00")


def test_an_unbalanced_entry_is_refused(session: Session) -> None:
    s = Scaffold(session)
    with pytest.raises(ValueError, match="balance"):
        ledger.post_entry(
            session,
            actor=ACTOR,
            district_id=s.district_id,
            entry_date=TODAY,
            kind="payment",
            memo="",
            key="x",
            lines=[ledger.Line(BANK, Decimal("1.00")), ledger.Line(REVENUE, Decimal("-0.99"))],
        )
    assert ledger.entry_by_key(session, "x") is None


def test_a_bill_not_yet_booked_is_owed_in_full_and_booked_with_the_next_posting(
    session: Session,
) -> None:
    s = Scaffold(session)
    bill = s.bill(s.property(), "90.00")
    assert ledger.bill_balances(session, s.district_id) == {}
    assert ledger.owed_by_bill(session, s.district_id) == {bill.id: Decimal("90.00")}
    assert ledger.owed_by_bill(session, s.district_id, until=date(2025, 6, 30)) == {}
    _pay(session, s, "10.00", "k", notice_number=str(bill.id))
    # Booked: 90.00 − 10.00 = 80.00, the same from the journal alone.
    assert ledger.bill_balances(session, s.district_id) == {bill.id: Decimal("80.00")}
    assert ledger.owed_by_bill(session, s.district_id) == {bill.id: Decimal("80.00")}


def test_what_was_paid_on_a_superseded_bill_moves_to_its_replacement(session: Session) -> None:
    from tid.models import BillingRun, BillStatus

    s = Scaffold(session)
    prop = s.property()
    old = s.bill(prop, "300.00")
    _pay(session, s, "120.00", "k", notice_number=str(old.id))
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "version": 2, "run_on": date(2025, 7, 20)}
    )
    session.add(run2)
    session.flush()
    new = s.bill(prop, "100.00", run=run2)
    old.status, old.superseded_by_id = BillStatus.SUPERSEDED.value, new.id
    session.add(old)
    session.flush()
    ledger.sync_bills(session, actor=ACTOR, district_id=s.district_id)
    d = s.district_id
    # Paid 120.00 on the old bill; the new one is 100.00: it is paid in full and the 20.00
    # left over is held as the owner's credit (and leaves the revenue).
    assert ledger.balance(session, d, RECEIVABLE, bill_id=old.id) == 0
    assert ledger.balance(session, d, RECEIVABLE, bill_id=new.id) == 0
    assert ledger.balance(session, d, OWNER_CREDIT) == Decimal("-20.00")
    assert ledger.balance(session, d, REVENUE) == Decimal("-100.00")
    assert ledger.balance(session, d, ASSESSED) == 0
    assert ledger.balance(session, d, BANK) == Decimal("120.00")
    with pytest.raises(InputError, match="superseded"):
        _pay(session, s, "5.00", "k2", notice_number=str(old.id))
    ledger.sync_bills(session, actor=ACTOR, district_id=d)  # again: nothing new
    assert ledger.balance(session, d, OWNER_CREDIT) == Decimal("-20.00")
    _entries_balance(session)


def test_the_trigger_sql_for_the_migration_recreates_the_guard(session: Session) -> None:
    from tid.models import JOURNAL_TRIGGERS_DROP_SQL, JOURNAL_TRIGGERS_SQL

    s = Scaffold(session)
    bill = s.bill(s.property(), "5.00")
    _pay(session, s, "5.00", "k", notice_number=str(bill.id))
    session.commit()
    dialect = session.get_bind().dialect.name
    # As a migration runs them: op.execute(statement) is text(statement) without parameters.
    for statement in JOURNAL_TRIGGERS_DROP_SQL[dialect]:
        session.execute(text(statement))
    session.execute(text("UPDATE journal_entry SET memo = memo"))  # unguarded now
    for statement in JOURNAL_TRIGGERS_SQL[dialect]:
        session.execute(text(statement))
    session.commit()
    with pytest.raises(DatabaseError, match="journal_line is append-only: DELETE refused"):
        session.execute(text("DELETE FROM journal_line"))
    session.rollback()


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


def test_a_key_booked_by_another_writer_between_check_and_insert_is_not_booked_twice(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Scaffold(session)
    lines = [ledger.Line(BANK, Decimal("5.00")), ledger.Line(OWNER_CREDIT, Decimal("-5.00"))]
    common = dict(actor=ACTOR, district_id=s.district_id, entry_date=TODAY, kind="payment", memo="")
    first = ledger.post_entry(session, key="dup", lines=lines, **common)  # type: ignore[arg-type]
    session.commit()
    # The other writer committed after our look-up: the look-up misses once, the insert hits
    # the unique key, and the entry already booked is returned.
    real = ledger.entry_by_key
    misses = [True]

    def lookup(db: Session, key: str) -> JournalEntry | None:
        if misses:
            misses.pop()
            return None
        return real(db, key)

    monkeypatch.setattr(ledger.posting, "entry_by_key", lookup)
    again = ledger.post_entry(session, key="dup", lines=lines, **common)  # type: ignore[arg-type]
    assert not misses  # the look-up did miss
    assert not again.booked and again.entry.id == first.entry.id
    session.commit()  # the session is still usable
    assert ledger.balance(session, s.district_id, BANK) == Decimal("5.00")


def test_the_owner_credit_pays_a_later_bill(session: Session) -> None:
    from tid.models import BillingRun

    s = Scaffold(session)
    prop = s.property()
    first = s.bill(prop, "100.00")
    _pay(session, s, "150.00", "k1", notice_number=str(first.id))  # 50.00 held
    run2 = BillingRun(
        **{**s.run.model_dump(exclude={"id"}), "fiscal_year": "2026-27", "run_on": date(2026, 7, 1)}
    )
    session.add(run2)
    session.flush()
    second = s.bill(prop, "80.00", due=date(2026, 9, 30), run=run2)
    d = s.district_id
    assert payments.credit_by_bill(session, d, prop.id or 0) == {first.id: Decimal("50.00")}
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
    assert ledger.owed_by_bill(session, d)[second.id or 0] == Decimal("30.00")
    assert ledger.balance(session, d, OWNER_CREDIT) == 0
    assert ledger.balance(session, d, REVENUE, since=date(2026, 7, 1)) == Decimal("-50.00")
    assert ledger.balance(session, d, BANK) == Decimal("150.00")  # no money moved
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
    _entries_balance(session)


def test_verify_recomputes_the_running_balances_and_reports_a_difference(
    runner: FlaskCliRunner, session: Session
) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "80.00")
    _pay(session, s, "30.00", "v1", notice_number=str(bill.id))
    _pay(session, s, "70.00", "v2", cadastral_number=prop.cadastral_number)  # 20.00 credit
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
    assert ledger.balance(session, s.district_id, BANK) == Decimal("100.00")
    assert ledger.bill_balances(session, s.district_id, OWNER_CREDIT) == {
        bill.id: Decimal("-20.00")
    }
    assert ledger.balance(session, s.district_id, RECEIVABLE, bill_id=bill.id) == 0
    # A running balance that drifted from the journal is reported, and the command fails.
    session.execute(text("UPDATE ledger_day SET amount = amount + 1 WHERE account = 'bank'"))
    session.execute(text("UPDATE bill_ledger SET receivable = receivable - 5"))
    session.execute(text("UPDATE journal_day SET entries = entries + 1 WHERE kind = 'payment'"))
    session.execute(
        text("INSERT INTO owed_day VALUES (:d, '2024-09-30', 1, 700)"), {"d": s.district_id}
    )
    session.commit()
    lines, differences = ledger.verify(session, s.district_id)
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
    _, differences = ledger.verify(session, s.district_id)
    assert f"{bill.id} due date" in [d.key for d in differences if d.what == "bill"]


def test_the_balances_as_they_stood_at_a_date_or_a_moment_come_from_the_journal(
    session: Session,
) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "100.00")
    d = s.district_id
    _pay(session, s, "40.00", "a", notice_number=str(bill.id))  # dated 2025-08-01
    session.commit()
    cut = session.exec(select(JournalEntry).where(JournalEntry.kind == "payment")).one()
    late = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=d,
        paid_on=date(2025, 9, 10),
        amount=Decimal("25.00"),
        today=TODAY,
        key="b",
        notice_number=str(bill.id),
    )
    session.commit()
    late_entry = session.get(JournalEntry, late.entry_id)
    assert late_entry is not None
    assert ledger.owed_by_bill(session, d) == {bill.id: Decimal("35.00")}
    assert ledger.owed_by_bill(session, d, until=date(2025, 8, 31)) == {bill.id: Decimal("60.00")}
    assert ledger.owed_by_bill(session, d, until=date(2025, 7, 1)) == {bill.id: Decimal("100.00")}
    # As the journal stood before the second payment was booked.
    assert ledger.owed_by_bill(session, d, booked_before=late_entry.created_at) == {
        bill.id: Decimal("60.00")
    }
    assert ledger.balance(session, d, BANK, booked_before=late_entry.created_at) == Decimal("40.00")
    assert ledger.balance(session, d, BANK, until=date(2025, 8, 31)) == Decimal("40.00")
    # Before the bill itself was booked: the active bill is owed in full all the same.
    first = session.exec(select(JournalEntry).where(JournalEntry.kind == "bill")).one()
    assert ledger.owed_by_bill(session, d, booked_before=first.created_at) == {
        bill.id: Decimal("100.00")
    }
    assert cut.created_at <= late_entry.created_at


def test_the_journal_a_page_at_a_time_is_the_journal(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    bill = s.bill(prop, "500.00")
    for i in range(7):
        _pay(session, s, f"{i + 1}.00", f"page-{i}", notice_number=str(bill.id))
    session.commit()
    d = s.district_id
    whole = [r.entry.id for r in ledger.journal(session, d)]
    assert len(whole) == 8  # the bill and seven payments
    pages = [ledger.journal_page(session, d, page=n, per_page=3) for n in (1, 2, 3, 4)]
    assert [p.page for p in pages] == [1, 2, 3, 3]  # past the last: the last
    assert all(p.total == 8 and p.pages == 3 for p in pages)
    assert [r.entry.id for p in pages[:3] for r in p.rows] == whole
    assert [len(r.lines) for r in pages[0].rows] == [2, 4, 4]
    backwards = [
        ledger.journal_page(session, d, page=n, per_page=3, newest_first=True) for n in (1, 2, 3)
    ]
    assert [r.entry.id for p in backwards for r in p.rows] == list(reversed(whole))
    newest = ledger.journal_page(session, d, kinds=("payment",), newest_first=True, counted=False)
    assert [r.entry.id for r in newest.rows] == list(reversed(whole[1:]))
    first = pages[1].rows[0].entry.id or 0
    ledger.reverse_entry(session, actor=ACTOR, entry_id=first, on=TODAY, reason="test", today=TODAY)
    session.commit()
    again = ledger.journal_page(session, d, page=2, per_page=3)
    assert again.rows[0].reversed_by is not None and again.total == 9


def test_a_bill_not_yet_booked_is_owed_in_full_until_booked(session: Session) -> None:
    """The bills made since the district's last booking are owed in full until booked
    (a billing run's moment), then their running balances say it."""
    s = Scaffold(session)
    first = s.bill(s.property(), "10.00")
    assert ledger.unbooked_owed(session, s.district_id) == {first.id: Decimal("10.00")}
    ledger.sync_bills(session, actor=ACTOR, district_id=s.district_id)
    later = s.bill(s.property(), "25.00")  # made after the mark
    session.commit()
    assert ledger.unbooked_owed(session, s.district_id) == {later.id: Decimal("25.00")}
    ledger.sync_bills(session, actor=ACTOR, district_id=s.district_id)
    session.commit()
    assert ledger.unbooked_owed(session, s.district_id) == {}
    assert ledger.bill_balances(session, s.district_id) == {
        first.id: Decimal("10.00"),
        later.id: Decimal("25.00"),
    }


def test_the_entries_are_counted_from_their_count_per_day(session: Session) -> None:
    """``entries_count`` counts a period's entries (of some kinds) from ``journal_day``."""
    s = Scaffold(session)
    bills = [s.bill(s.property(), "10.00") for _ in range(5)]
    ledger.sync_bills(session, actor=ACTOR, district_id=s.district_id)  # booked: 5 entries
    for n, bill in enumerate(bills[:2]):  # and 2 payments on one day
        _pay(session, s, "4.00", f"count-{n}", notice_number=str(bill.id))
    session.commit()
    whole = ledger.entries_count(session, s.district_id)
    assert whole == len(ledger.journal(session, s.district_id)) == 7
    assert ledger.entries_count(session, s.district_id, kinds=["bill"]) == 5
    assert ledger.entries_count(session, s.district_id, kinds=["payment"]) == 2
    assert ledger.entries_count(session, s.district_id, since=date(2025, 8, 1)) == 2
    assert ledger.entries_count(session, s.district_id, since=date(2030, 1, 1)) == 0
