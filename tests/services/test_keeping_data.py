"""Keeping data: backups that restore the same journal, balances and archived notices; locked
fiscal years; uploads deleted once imported or after the retention period."""

from __future__ import annotations

import json
import os
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text
from sqlmodel import Session, col, select

from tests.conftest import People, make_test_app
from tests.services.ledger_support import ACTOR, Scaffold
from tests.services.notice_support import BASE_URL, SECRET, SENDER, make_ordinance, make_run
from tid.db import make_engine
from tid.models import ArchivedDocument, JournalEntry, JournalLine
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear
from tid.services import ledger, notices, roll
from tid.services.account import audit_statement, expenditures, payments, year_locks


def _book(session: Session, people: People) -> None:
    """A year of the account: bills, payments, an expenditure, a reversal; and a notice run
    with its archived PDFs."""
    s = Scaffold(session, people.district)
    bills = [s.bill(s.property(owner=f"Dueño {i}"), f"{100 * (i + 1)}.00") for i in range(3)]
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    for i, bill in enumerate(bills):
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            paid_on=date(2025, 8, 1 + i),
            amount=Decimal(f"{60 * (i + 1)}.25"),
            today=date(2025, 9, 1),
            key=f"p{i}",
            notice_number=str(bill.id),
        )
    purpose = expenditures.add_purpose(
        session=session, actor=ACTOR, district_id=s.district_id, name="Ornato"
    )
    spent = expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        spent_on=date(2025, 8, 20),
        amount=Decimal("50.00"),
        payee="Jardines PR",
        today=date(2025, 9, 1),
        key="e1",
        administrative=False,
        purpose_id=purpose.id,
    )
    ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=spent.expenditure.entry_id,
        on=date(2025, 8, 21),
        reason="duplicate",
        today=date(2025, 9, 1),
    )
    session.commit()
    ordinance = make_ordinance(session, people.other_district)
    billed = make_run(session, people.other_district, ordinance)
    notices.create_batch(
        session=session,
        actor=ACTOR,
        billing_run_id=billed.run.id or 0,
        issued_on=date(2026, 1, 20),
        portal_base_url=BASE_URL,
        secret=SECRET,
        workers=1,
        **SENDER,
    )
    session.commit()


def _journal(session: Session) -> list[tuple[Any, ...]]:
    entries = session.exec(select(JournalEntry).order_by(col(JournalEntry.id))).all()
    lines = session.exec(select(JournalLine).order_by(col(JournalLine.id))).all()
    return [
        (e.id, e.district_id, e.entry_date, e.kind, e.memo, e.idempotency_key, e.created_at)
        for e in entries
    ] + [(x.id, x.entry_id, x.account, x.bill_id, x.amount) for x in lines]


def _documents(session: Session) -> dict[str, bytes]:
    return {d.sha256: d.content for d in session.exec(select(ArchivedDocument))}


def _second_database(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'restored' / 'tid.sqlite'}"
    server = request.getfixturevalue("pg_server")
    name = f"restored_{os.getpid()}_{time.monotonic_ns()}"
    admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return str(server.url(name))


def test_a_restored_backup_has_the_same_journal_balances_and_notices(
    app: Flask,
    session: Session,
    people: People,
    backend: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    _book(session, people)
    journal, documents = _journal(session), _documents(session)
    assert len(documents) >= 3  # the notices, their print file
    runner = app.test_cli_runner()
    verified = runner.invoke(args=["account", "verify"])
    assert verified.exit_code == 0, verified.output
    archive = tmp_path / "tid-backup.tar.gz"
    made = runner.invoke(args=["backup", str(archive)])
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["documents"] == len(documents)

    other = make_test_app(_second_database(backend, request, tmp_path), tmp_path / "second")
    try:
        restored = other.test_cli_runner().invoke(args=["restore", str(archive)])
        assert restored.exit_code == 0, restored.output
        with Session(other.extensions["tid.engine"]) as copy:
            assert _journal(copy) == journal
            copied = _documents(copy)
            assert copied.keys() == documents.keys()
            for sha, content in documents.items():
                assert copied[sha] == content  # byte for byte
            fy = FiscalYear(2025)
            d = people.district.id or 0
            assert audit_statement.statement(
                session=copy, district_id=d, fy=fy
            ) == audit_statement.statement(session=session, district_id=d, fy=fy)
        again = other.test_cli_runner().invoke(args=["account", "verify"])
        assert again.exit_code == 0 and json.loads(again.output) == json.loads(verified.output)
        # A database with data is replaced only when asked.
        refused = other.test_cli_runner().invoke(args=["restore", str(archive)])
        assert refused.exit_code == 2 and "--replace" in refused.output
        replaced = other.test_cli_runner().invoke(args=["restore", "--replace", str(archive)])
        assert replaced.exit_code == 0, replaced.output
    finally:
        other.extensions["tid.engine"].dispose()


def test_a_damaged_backup_is_refused(app: Flask, tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    assert app.test_cli_runner().invoke(args=["backup", str(archive)]).exit_code == 0
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    archive.write_bytes(bytes(data))
    result = app.test_cli_runner().invoke(args=["restore", "--replace", str(archive)])
    assert result.exit_code == 2 and "error" in result.output


def test_a_locked_year_takes_no_backdated_entry_and_corrections_go_to_the_open_year(
    session: Session, people: People
) -> None:
    s = Scaffold(session, people.district)
    bill = s.bill(s.property(), "1000.00")
    ledger.sync_bills(session=session, actor=ACTOR, district_id=s.district_id)
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2025, 8, 1),
        amount=Decimal("400.00"),
        today=date(2025, 9, 1),
        key="p1",
        notice_number=str(bill.id),
    )
    session.commit()
    fy, today = FiscalYear(2025), date(2026, 8, 1)
    with pytest.raises(InputError, match="ended"):
        year_locks.lock_year(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            fy=FiscalYear(2026),
            today=today,
        )
    year_locks.lock_year(
        session=session, actor=ACTOR, district_id=s.district_id, fy=fy, today=today
    )
    session.commit()
    issued = audit_statement.statement(session=session, district_id=s.district_id, fy=fy)
    with pytest.raises(InputError) as refused:
        payments.record_payment(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            paid_on=date(2026, 6, 30),  # the last day of the locked year
            amount=Decimal("100.00"),
            today=today,
            key="late",
            notice_number=str(bill.id),
        )
    assert refused.value.field == "date" and refused.value.message == year_locks.LOCKED
    session.rollback()
    with pytest.raises(InputError):
        ledger.reverse_entry(
            session=session,
            actor=ACTOR,
            entry_id=paid.entry_id,
            on=date(2026, 6, 1),
            reason="wrong bill",
            today=today,
        )
    session.rollback()
    # The correction: a reversal dated in the open year, naming the entry it reverses.
    fix = ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=paid.entry_id,
        on=today,
        reason="wrong bill",
        today=today,
    )
    session.commit()
    assert fix.entry.reverses_id == paid.entry_id and f"entry {paid.entry_id}" in fix.entry.memo
    assert audit_statement.statement(session=session, district_id=s.district_id, fy=fy) == issued
    assert year_locks.unlock_year(session=session, actor=ACTOR, district_id=s.district_id, fy=fy)
    session.commit()
    payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=s.district_id,
        paid_on=date(2026, 6, 30),
        amount=Decimal("100.00"),
        today=today,
        key="late",
        notice_number=str(bill.id),
    )
    session.commit()
    assert audit_statement.statement(session=session, district_id=s.district_id, fy=fy) != issued


def test_uploads_go_once_imported_or_after_the_retention_period(tmp_path: Path) -> None:
    folder = tmp_path / "uploads"
    kept = roll.store_upload(folder, b"a,b\n1,2\n", meta={"district_id": 1, "user_id": 7})
    other = roll.store_upload(folder, b"c,d\n3,4\n", meta={"district_id": 1, "user_id": 7})
    shared = roll.store_upload(folder, b"c,d\n3,4\n", meta={"district_id": 1, "user_id": 8})
    assert shared == other
    roll.delete_upload(folder, other, user_id=7)  # user 8 still has it to import
    assert (folder / f"{other}.csv").exists() and not (folder / f"{other}.7.json").exists()
    roll.delete_upload(folder, other, user_id=8)
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{kept}.csv", f"{kept}.7.json"])
    day = timedelta(hours=24)
    assert roll.purge_uploads(folder, older_than=day) == 0
    old = time.time() - 25 * 3600
    for path in folder.iterdir():
        os.utime(path, (old, old))
    assert roll.purge_uploads(folder, older_than=day) == 2
    assert list(folder.iterdir()) == []
