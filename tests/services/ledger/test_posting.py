"""Posting: a balanced entry, booked once per key (also by writers at once), in a journal
the database keeps append-only (it refuses UPDATE and DELETE)."""

from __future__ import annotations

import threading
from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session, select

from tests.services.ledger.conftest import TODAY, pay
from tests.services.ledger_support import ACTOR, Scaffold
from tid.models import JournalEntry, JournalLine
from tid.services import ledger
from tid.services.account import payments
from tid.services.ledger import (
    BANK,
    OWNER_CREDIT,
    REVENUE,
)


def test_update_and_delete_of_journal_rows_are_refused(session: Session) -> None:
    s = Scaffold(session)
    prop = s.property()
    s.bill(prop, "250.00")
    pay(session, s, "100.00", "k1", notice_number="1")
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


def test_an_unbalanced_entry_is_refused(session: Session) -> None:
    s = Scaffold(session)
    with pytest.raises(ValueError, match="balance"):
        ledger.post_entry(
            session=session,
            actor=ACTOR,
            district_id=s.district_id,
            entry_date=TODAY,
            kind="payment",
            memo="",
            key="x",
            lines=[ledger.Line(BANK, Decimal("1.00")), ledger.Line(REVENUE, Decimal("-0.99"))],
        )
    assert ledger.entry_by_key(session=session, key="x") is None


def test_the_trigger_sql_for_the_migration_recreates_the_guard(session: Session) -> None:
    from tid.models import JOURNAL_TRIGGERS_DROP_SQL, JOURNAL_TRIGGERS_SQL

    s = Scaffold(session)
    bill = s.bill(s.property(), "5.00")
    pay(session, s, "5.00", "k", notice_number=str(bill.id))
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


def test_a_key_booked_by_another_writer_between_check_and_insert_is_not_booked_twice(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Scaffold(session)
    lines = [ledger.Line(BANK, Decimal("5.00")), ledger.Line(OWNER_CREDIT, Decimal("-5.00"))]
    common = dict(actor=ACTOR, district_id=s.district_id, entry_date=TODAY, kind="payment", memo="")
    first = ledger.post_entry(session=session, key="dup", lines=lines, **common)  # type: ignore[arg-type]
    session.commit()
    # The other writer committed after our look-up: the look-up misses once, the insert hits
    # the unique key, and the entry already booked is returned.
    real = ledger.entry_by_key
    misses = [True]

    def lookup(*, session: Session, key: str) -> JournalEntry | None:
        if misses:
            misses.pop()
            return None
        return real(session=session, key=key)

    monkeypatch.setattr(ledger.posting, "entry_by_key", lookup)
    again = ledger.post_entry(session=session, key="dup", lines=lines, **common)  # type: ignore[arg-type]
    assert not misses  # the look-up did miss
    assert not again.booked and again.entry.id == first.entry.id
    session.commit()  # the session is still usable
    assert ledger.balance(session=session, district_id=s.district_id, account=BANK) == Decimal(
        "5.00"
    )


def test_the_same_payment_posted_concurrently_is_booked_once(app: Flask) -> None:
    engine = app.extensions["tid.engine"]
    with Session(engine, expire_on_commit=False) as setup:
        s = Scaffold(setup)
        bill = s.bill(s.property(), "100.00")
        setup.commit()
        district_id, bill_id = s.district_id, bill.id
    barrier = threading.Barrier(6)
    booked: list[bool] = []

    def writer() -> None:
        with Session(engine, expire_on_commit=False) as db:
            barrier.wait()
            result = payments.record_payment(
                session=db,
                actor=ACTOR,
                district_id=district_id,
                paid_on=date(2025, 8, 1),
                amount=Decimal("100.00"),
                today=TODAY,
                key=payments.payment_key(
                    district_id=district_id,
                    paid_on=date(2025, 8, 1),
                    amount=Decimal("100.00"),
                    reference="DEP-9",
                ),
                notice_number=str(bill_id),
            )
            db.commit()
            booked.append(result.booked)

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(booked) == [False] * 5 + [True]
    with Session(engine) as db:
        assert ledger.balance(session=db, district_id=district_id, account=BANK) == Decimal(
            "100.00"
        )
