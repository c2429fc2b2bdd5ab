"""The special account against a simple reference model, step by step (Hypothesis stateful).

Bills (and next year's bill of the same property), payments (partial, over, repeated, by
notice or by cadastral number), bank-file imports (some with a bad row, refused whole), an
owner's credit applied to a later bill, administrative and program expenditures and
reversals, in any order, on SQLite and PostgreSQL. After every step: every entry balances,
the balances derived from the journal equal the model's (bank, each bill's receivable and
owner credit, each FY's revenue and administrative spending), administrative spending stays
within 5% of each FY's revenue, the running balances agree with the journal (``tid account
verify``), and no journal row written before has changed.
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
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, text
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, col, select

from tests.conftest import BACKENDS, examples
from tests.pg import ThrowawayPostgres
from tests.services.ledger_support import ACTOR, Scaffold
from tid.db import make_engine
from tid.models import JOURNAL_TRIGGERS_SQL, JournalEntry, JournalLine
from tid.rules.errors import FindingsError, InputError
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services import ledger
from tid.services.account import audit_statement, expenditures, payments
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
    kind: str  # payment, credit (an owner's credit applied), admin, program
    on: date
    amount: Decimal  # into the bank (payment) or out of it (expenditure)
    applied: dict[int, Decimal] = field(default_factory=dict)
    credit: Decimal = Decimal(0)  # owner credit added (negative: used)
    account: str = ""
    credit_by: dict[int, Decimal] = field(default_factory=dict)  # the same, per bill


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
        self.prop_of: dict[int, int] = {}
        self.bills_of: dict[int, list[int]] = {}  # per property, earliest due first
        self.run2: Any = None
        self.bank = Decimal(0)
        self.credit = Decimal(0)
        self.credit_of: dict[int, Decimal] = {}
        self.revenue = {fy: Decimal(0) for fy in FYS}
        self.admin = {fy: Decimal(0) for fy in FYS}
        self.program = Decimal(0)
        self.seen_rows: dict[tuple[str, int], tuple[Any, ...]] = {}
        self.last_payment: tuple[str, int, Decimal, date] | None = None

    def teardown(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ model helpers

    def _apply(
        self, bills: list[int], credit_bill: int, amount: Decimal, on: date
    ) -> tuple[dict[int, Decimal], Decimal]:
        """A payment as the service applies it: bill by bill, the rest held as credit."""
        left = amount
        applied: dict[int, Decimal] = {}
        for bill_id in bills:
            take = min(left, max(self.owed[bill_id], Decimal(0)))
            if take > 0:
                applied[bill_id] = take
                self.owed[bill_id] -= take
                left -= take
        self.bank += amount
        self.credit += left
        self.credit_of[credit_bill] = self.credit_of.get(credit_bill, Decimal(0)) + left
        self.revenue[fiscal_year_of(on)] += amount - left
        return applied, left

    # ------------------------------------------------------------------ rules

    @rule(target=bills, amount=BILL_AMOUNTS)
    def add_bill(self, amount: Decimal) -> int:
        bill = self.s.bill(self.s.property(), str(amount))
        ledger.sync_bills(session=self.db, actor=ACTOR, district_id=self.d)
        self.db.commit()
        self.owed[bill.id or 0] = amount
        prop_id = bill.property_id
        from tid.models import Property

        prop = self.db.get(Property, prop_id)
        assert prop is not None
        self.cadastral[bill.id or 0] = prop.cadastral_number
        self.prop_of[bill.id or 0] = prop_id
        self.bills_of[prop_id] = [bill.id or 0]
        return bill.id or 0

    @rule(target=bills, bill=bills, amount=BILL_AMOUNTS)
    def add_next_years_bill(self, bill: int, amount: Decimal) -> Any:
        """The same property billed again for the next fiscal year (a second run)."""
        prop_id = self.prop_of[bill]
        if len(self.bills_of[prop_id]) > 1:
            return multiple()
        if self.run2 is None:
            from tid.models import BillingRun

            self.db.refresh(self.s.run)  # a rollback may have expired it
            self.run2 = BillingRun(
                **{
                    **self.s.run.model_dump(exclude={"id"}),
                    "fiscal_year": "2026-27",
                    "run_on": date(2026, 7, 1),
                }
            )
            self.db.add(self.run2)
            self.db.flush()
        from tid.models import Property

        prop = self.db.get(Property, prop_id)
        assert prop is not None
        new = self.s.bill(prop, str(amount), due=date(2026, 9, 30), run=self.run2)
        ledger.sync_bills(session=self.db, actor=ACTOR, district_id=self.d)
        self.db.commit()
        new_id = new.id or 0
        self.owed[new_id] = amount
        self.cadastral[new_id] = prop.cadastral_number
        self.prop_of[new_id] = prop_id
        self.bills_of[prop_id].append(new_id)  # due a year later: after the first
        return new_id

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
        bills = [bill] if by_notice else self.bills_of[self.prop_of[bill]]
        applied, credit = self._apply(bills, bills[-1], amount, on)
        assert result.credit == credit
        assert {a.bill_id: a.applied for a in result.applied} == applied
        self.last_payment = (key, bill, amount, on)
        return Effect(
            result.entry_id,
            "payment",
            on,
            amount,
            applied,
            credit,
            credit_by={bills[-1]: credit},
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
            self._apply([bill], bill, amount, on)
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
            spent = max(Decimal(0), self.admin[fy])  # a refund of last year's makes no room
            assert administrative and spent + amount > RATE * max(Decimal(0), self.revenue[fy])
            return Effect(0, "refused", on, amount)
        self.db.commit()
        self.bank -= amount
        if administrative:
            assert max(Decimal(0), self.admin[fy]) + amount <= RATE * self.revenue[fy]
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

    @rule(target=entries, bill=bills, on=DATES)
    def apply_credit(self, bill: int, on: date) -> Effect:
        prop_id = self.prop_of[bill]
        mine = self.bills_of[prop_id]
        held = {b: self.credit_of[b] for b in mine if self.credit_of.get(b, Decimal(0)) > 0}
        left = sum(held.values(), Decimal(0))
        try:
            result = payments.apply_credit(
                session=self.db,
                actor=ACTOR,
                district_id=self.d,
                property_id=prop_id,
                on=on,
                today=TODAY,
                key=f"credit:{next(_keys)}",
            )
        except InputError:
            self.db.rollback()
            assert left <= 0 or all(self.owed[b] <= 0 for b in mine)
            return Effect(0, "refused", on, Decimal(0))
        self.db.commit()
        applied: dict[int, Decimal] = {}
        for b in mine:
            take = min(left, max(self.owed[b], Decimal(0)))
            if take > 0:
                applied[b] = take
                self.owed[b] -= take
                left -= take
        used = sum(applied.values(), Decimal(0))
        assert used > 0 and result.amount == used
        credit_by: dict[int, Decimal] = {}
        remaining = used
        for b, amount in sorted(held.items()):  # the oldest credit first
            take = min(amount, remaining)
            if take > 0:
                credit_by[b] = -take
                self.credit_of[b] -= take
                remaining -= take
        self.credit -= used
        self.revenue[fiscal_year_of(on)] += used
        return Effect(
            result.entry_id, "credit", on, Decimal(0), applied, -used, credit_by=credit_by
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
                session=self.db,
                actor=ACTOR,
                entry_id=effect.entry_id,
                on=on,
                reason="test",
                today=TODAY,
            )
        except CapExceededError:
            self.db.rollback()
            assert effect.kind in ("payment", "credit")
            assert self.admin[fy] > RATE * max(Decimal(0), self.revenue[fy] - taken)
            return
        self.db.commit()
        if effect.kind in ("payment", "credit"):
            assert self.admin[fy] <= RATE * max(Decimal(0), self.revenue[fy] - taken)
            self.bank -= effect.amount
            self.credit -= effect.credit
            for b, change in effect.credit_by.items():
                self.credit_of[b] -= change
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
        accounts = ledger.balances(session=db, district_id=d)
        assert accounts.get(BANK, Decimal(0)) == self.bank
        some = (BANK, OWNER_CREDIT)  # the dashboard's: those accounts' days only
        assert ledger.balances(session=db, district_id=d, accounts=some) == {
            a: v for a, v in accounts.items() if a in some
        }
        assert -accounts.get(OWNER_CREDIT, Decimal(0)) == self.credit
        held = ledger.bill_balances(session=db, district_id=d, account=OWNER_CREDIT)
        assert {b: -v for b, v in held.items() if v} == {
            b: v for b, v in self.credit_of.items() if v
        }
        owed = ledger.bill_balances(session=db, district_id=d)
        assert {b: owed.get(b, Decimal(0)) for b in self.owed} == self.owed
        for fy in FYS:
            figures = ledger.cap_figures(session=db, district_id=d, fy=fy)
            assert figures.revenue == self.revenue[fy]
            assert figures.admin == self.admin[fy]
            # The dashboard's: from the year's months, the same figures.
            last = audit_statement.months(session=db, district_id=d, fy=fy)[-1]
            by_month = ledger.cap_figures_of(
                fy, revenue=last.revenue_to_date, admin=last.admin_to_date
            )
            assert (by_month.revenue, by_month.admin, by_month.cap, by_month.headroom) == (
                figures.revenue,
                figures.admin,
                figures.cap,
                figures.headroom,
            )
            # The 5% cap holds in every FY. (A payment reversed in a later FY than it was
            # collected takes the revenue out of the later FY, which may go below zero.)
            assert figures.admin <= RATE * max(Decimal(0), figures.revenue)

    @invariant()
    def the_running_balances_agree_with_the_journal(self) -> None:
        """``tid account verify``: every running balance recomputed from the journal."""
        lines, differences = ledger.verify(session=self.db)
        assert differences == []
        assert lines == self.db.exec(select(func.count()).select_from(JournalLine)).one()

    @invariant()
    def no_journal_row_changed(self) -> None:
        now: dict[tuple[str, int], tuple[Any, ...]] = {}
        # Read as plain rows (the same columns), not as model objects: this runs every step.
        entry_columns = sa_select(
            col(JournalEntry.id),
            col(JournalEntry.entry_date),
            col(JournalEntry.kind),
            col(JournalEntry.memo),
            col(JournalEntry.idempotency_key),
            col(JournalEntry.reverses_id),
        )
        for entry_id, *entry in self.db.execute(entry_columns):
            now[("e", entry_id or 0)] = tuple(entry)
        line_columns = sa_select(
            col(JournalLine.id),
            col(JournalLine.entry_id),
            col(JournalLine.account),
            col(JournalLine.bill_id),
            col(JournalLine.amount),
        )
        for line_id, *line in self.db.execute(line_columns):
            now[("l", line_id or 0)] = tuple(line)
        for k, v in self.seen_rows.items():
            assert now.get(k) == v, f"journal row {k} changed or vanished"
        self.seen_rows = now


# 30 runs of up to 30 steps on SQLite; on PostgreSQL 12 runs check the same statements on the
# other engine (its locks, its numeric sums), within the suite's time (every step re-verifies
# the whole journal, so a run costs its steps squared).
EXAMPLES = {"sqlite": 15, "postgresql": 6}


def test_the_account_against_a_reference_model(stateful_engine: Engine, backend: str) -> None:
    AccountMachine.engine = stateful_engine
    run_state_machine_as_test(
        AccountMachine,
        settings=settings(
            max_examples=examples(EXAMPLES[backend]), stateful_step_count=30, deadline=None
        ),
    )
