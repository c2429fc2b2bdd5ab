"""The special account against a simple reference model, step by step (Hypothesis stateful).

Bills, payments (partial, over, repeated), bank-file imports (some with a bad row, refused
whole), administrative and program expenditures and reversals, in any order, on SQLite and
PostgreSQL. After every step: every entry balances, the balances derived from the journal
equal the model's, administrative spending stays within 5% of each FY's revenue, and no
journal row written before has changed.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, select

from tests.conftest import BACKENDS
from tests.pg import ThrowawayPostgres
from tests.services.ledger_support import ACTOR, Scaffold
from tid.db import make_engine
from tid.models import JOURNAL_TRIGGERS_SQL, JournalEntry, JournalLine
from tid.rules.calendar import FiscalYear, fiscal_year_of
from tid.rules.errors import FindingsError
from tid.services import expenditures, ledger, payments
from tid.services.ledger import ADMIN_EXPENSE, BANK, OWNER_CREDIT, CapExceededError

TODAY = date(2026, 12, 31)
RATE = Decimal("0.05")
FYS = (FiscalYear(2025), FiscalYear(2026))
DATES = st.dates(date(2025, 7, 1), TODAY)
AMOUNTS = st.integers(1, 200_000).map(lambda cents: Decimal(cents) / 100)
BILL_AMOUNTS = st.integers(100, 500_000).map(lambda cents: Decimal(cents) / 100)

_keys = itertools.count()


@pytest.fixture(scope="module")
def stateful_engine(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: Any
) -> Iterator[Engine]:
    """One engine per backend for every example; the tables are emptied between examples."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        target = tmp_path_factory.mktemp("stateful") / "account.sqlite"
        shutil.copyfile(template, target)
        engine = make_engine(f"sqlite:///{target}")
    else:
        server: ThrowawayPostgres = request.getfixturevalue("pg_server")
        admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("DROP DATABASE IF EXISTS stateful_account WITH (FORCE)"))
            conn.execute(text("CREATE DATABASE stateful_account TEMPLATE tid_template"))
        engine = make_engine(server.url("stateful_account"))
    yield engine
    engine.dispose()


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _empty(engine: Engine) -> None:
    """Empty every table (the journal's guard triggers are set aside for the moment: on
    PostgreSQL by the replica role, which skips triggers, on SQLite by dropping them)."""
    tables = [t.name for t in reversed(SQLModel.metadata.sorted_tables)]
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SET LOCAL session_replication_role = replica"))
            for name in tables:  # small tables: DELETE is quicker than TRUNCATE
                conn.execute(text(f"DELETE FROM {name}"))
            return
        for name in ("journal_entry", "journal_line"):
            for op in ("update", "delete"):
                conn.execute(text(f"DROP TRIGGER IF EXISTS {name}_no_{op}"))
        for name in tables:
            conn.execute(text(f"DELETE FROM {name}"))
        for statement in JOURNAL_TRIGGERS_SQL["sqlite"]:
            conn.execute(text(statement))


@dataclass
class Effect:
    """What an entry did, as the model sees it (to undo it on reversal)."""

    entry_id: int
    kind: str  # payment, admin, program
    on: date
    amount: Decimal
    applied: dict[int, Decimal] = field(default_factory=dict)
    credit: Decimal = Decimal(0)
    account: str = ""


class AccountMachine(RuleBasedStateMachine):
    engine: Engine

    bills = Bundle("bills")
    entries = Bundle("entries")

    def __init__(self) -> None:
        super().__init__()
        _empty(self.engine)
        self.db = Session(self.engine, expire_on_commit=False)
        self.s = Scaffold(self.db)
        self.purpose = expenditures.add_purpose(
            session=self.db, actor=ACTOR, district_id=self.s.district_id, name="Lighting"
        )
        self.db.commit()
        self.d = self.s.district_id
        self.owed: dict[int, Decimal] = {}
        self.cadastral: dict[int, str] = {}
        self.bank = Decimal(0)
        self.credit = Decimal(0)
        self.revenue = {fy: Decimal(0) for fy in FYS}
        self.admin = {fy: Decimal(0) for fy in FYS}
        self.program = Decimal(0)
        self.seen_rows: dict[tuple[str, int], tuple[Any, ...]] = {}
        self.last_payment: tuple[str, int, Decimal, date] | None = None

    def teardown(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ model helpers

    def _apply(self, bill_id: int, amount: Decimal, on: date) -> tuple[Decimal, Decimal]:
        applied = min(amount, max(self.owed[bill_id], Decimal(0)))
        self.owed[bill_id] -= applied
        self.bank += amount
        self.credit += amount - applied
        self.revenue[fiscal_year_of(on)] += applied
        return applied, amount - applied

    # ------------------------------------------------------------------ rules

    @rule(target=bills, amount=BILL_AMOUNTS)
    def add_bill(self, amount: Decimal) -> int:
        bill = self.s.bill(self.s.property(), str(amount))
        ledger.sync_bills(self.db, actor=ACTOR, district_id=self.d)
        self.db.commit()
        self.owed[bill.id or 0] = amount
        prop_id = bill.property_id
        from tid.models import Property

        prop = self.db.get(Property, prop_id)
        assert prop is not None
        self.cadastral[bill.id or 0] = prop.cadastral_number
        return bill.id or 0

    @rule(target=entries, bill=bills, amount=AMOUNTS, on=DATES, by_notice=st.booleans())
    def pay(self, bill: int, amount: Decimal, on: date, by_notice: bool) -> Effect:
        key = f"form:{next(_keys)}"
        target = (
            {"notice_number": str(bill)}
            if by_notice
            else {"cadastral_number": self.cadastral[bill]}
        )
        result = payments.record_payment(
            session=self.db,
            actor=ACTOR,
            district_id=self.d,
            paid_on=on,
            amount=amount,
            today=TODAY,
            key=key,
            **target,
        )
        self.db.commit()
        assert result.booked
        applied, credit = self._apply(bill, amount, on)
        assert result.credit == credit
        assert sum((a.applied for a in result.applied), Decimal(0)) == applied
        self.last_payment = (key, bill, amount, on)
        return Effect(
            result.entry_id, "payment", on, amount, {bill: applied} if applied else {}, credit
        )

    @precondition(lambda self: self.last_payment is not None)
    @rule()
    def pay_again(self) -> None:
        assert self.last_payment is not None
        key, bill, amount, on = self.last_payment
        result = payments.record_payment(
            session=self.db,
            actor=ACTOR,
            district_id=self.d,
            paid_on=on,
            amount=amount,
            today=TODAY,
            key=key,
            notice_number=str(bill),
        )
        self.db.commit()
        assert not result.booked

    @rule(
        rows=st.lists(st.tuples(st.integers(0, 10_000), AMOUNTS, DATES), min_size=1, max_size=4),
        bad_row=st.booleans(),
        data=st.data(),
    )
    def import_file(self, rows: list[tuple[int, Decimal, date]], bad_row: bool, data: Any) -> None:
        if not self.owed:
            return
        bill_ids = sorted(self.owed)
        lines = ["date,amount,reference,notice_number"]
        planned = []
        for pick, amount, on in rows:
            bill = bill_ids[pick % len(bill_ids)]
            ref = f"DEP-{next(_keys)}"
            lines.append(f"{on.isoformat()},{amount},{ref},{bill}")
            planned.append((bill, amount, on))
        if bad_row:
            lines.insert(data.draw(st.integers(1, len(lines))), "2025-08-01,0.00,DEP-X,1")
        body = ("\n".join(lines) + "\n").encode()
        try:
            result = payments.import_deposits(
                session=self.db, actor=ACTOR, district_id=self.d, data=body, today=TODAY
            )
        except FindingsError:
            self.db.rollback()
            assert bad_row
            return
        self.db.commit()
        assert not bad_row and result.booked == len(planned)
        for bill, amount, on in planned:
            self._apply(bill, amount, on)
        again = payments.import_deposits(
            session=self.db, actor=ACTOR, district_id=self.d, data=body, today=TODAY
        )
        self.db.commit()
        assert (again.booked, again.already_booked) == (0, len(planned))

    @rule(target=entries, amount=AMOUNTS, on=DATES, administrative=st.booleans())
    def spend(self, amount: Decimal, on: date, administrative: bool) -> Effect:
        fy = fiscal_year_of(on)
        kind: dict[str, Any] = (
            {"administrative": True} if administrative else {"purpose_id": self.purpose.id}
        )
        try:
            result = expenditures.record_expenditure(
                session=self.db,
                actor=ACTOR,
                district_id=self.d,
                spent_on=on,
                amount=amount,
                payee="Vendor",
                today=TODAY,
                key=f"exp:{next(_keys)}",
                **kind,
            )
        except CapExceededError:
            self.db.rollback()
            assert administrative and self.admin[fy] + amount > RATE * self.revenue[fy]
            return Effect(0, "refused", on, amount)
        self.db.commit()
        self.bank -= amount
        if administrative:
            assert self.admin[fy] + amount <= RATE * self.revenue[fy]
            self.admin[fy] += amount
        else:
            self.program += amount
        account = ADMIN_EXPENSE if administrative else ledger.purpose_account(self.purpose.id or 0)
        return Effect(
            result.expenditure.entry_id,
            "admin" if administrative else "program",
            on,
            amount,
            account=account,
        )

    @rule(effect=consumes(entries), later=DATES)
    def reverse(self, effect: Effect, later: date) -> None:
        if effect.kind == "refused":
            return
        on = max(effect.on, later)
        fy = fiscal_year_of(on)
        taken = sum(effect.applied.values(), Decimal(0))
        try:
            ledger.reverse_entry(
                self.db, actor=ACTOR, entry_id=effect.entry_id, on=on, reason="test", today=TODAY
            )
        except CapExceededError:
            self.db.rollback()
            assert effect.kind == "payment"
            assert self.admin[fy] > RATE * max(Decimal(0), self.revenue[fy] - taken)
            return
        self.db.commit()
        if effect.kind == "payment":
            assert self.admin[fy] <= RATE * max(Decimal(0), self.revenue[fy] - taken)
            self.bank -= effect.amount
            self.credit -= effect.credit
            self.revenue[fy] -= taken
            for bill, applied in effect.applied.items():
                self.owed[bill] += applied
        else:
            self.bank += effect.amount
            if effect.kind == "admin":
                self.admin[fy] -= effect.amount
            else:
                self.program -= effect.amount

    # ------------------------------------------------------------------ invariants

    @invariant()
    def entries_balance(self) -> None:
        unbalanced = self.db.exec(
            select(JournalLine.entry_id)
            .group_by(JournalLine.entry_id)
            .having(func.sum(JournalLine.amount) != 0)
        ).all()
        assert unbalanced == []

    @invariant()
    def balances_match_the_model(self) -> None:
        db, d = self.db, self.d
        accounts = ledger.balances(db, d)
        assert accounts.get(BANK, Decimal(0)) == self.bank
        assert -accounts.get(OWNER_CREDIT, Decimal(0)) == self.credit
        owed = ledger.bill_balances(db, d)
        assert {b: owed.get(b, Decimal(0)) for b in self.owed} == self.owed
        for fy in FYS:
            figures = ledger.cap_figures(db, d, fy)
            assert figures.revenue == self.revenue[fy]
            assert figures.admin == self.admin[fy]
            # The 5% cap holds in every FY. (A payment reversed in a later FY than it was
            # collected takes the revenue out of the later FY, which may go below zero.)
            assert figures.admin <= RATE * max(Decimal(0), figures.revenue)

    @invariant()
    def no_journal_row_changed(self) -> None:
        now: dict[tuple[str, int], tuple[Any, ...]] = {}
        for e in self.db.exec(select(JournalEntry)):
            now[("e", e.id or 0)] = (e.entry_date, e.kind, e.memo, e.idempotency_key, e.reverses_id)
        for line in self.db.exec(select(JournalLine)):
            now[("l", line.id or 0)] = (line.entry_id, line.account, line.bill_id, line.amount)
        for k, v in self.seen_rows.items():
            assert now.get(k) == v, f"journal row {k} changed or vanished"
        self.seen_rows = now


def test_the_account_against_a_reference_model(stateful_engine: Engine) -> None:
    AccountMachine.engine = stateful_engine
    run_state_machine_as_test(
        AccountMachine,
        settings=settings(max_examples=200, stateful_step_count=30, deadline=None),
    )
