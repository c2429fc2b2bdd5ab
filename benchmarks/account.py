"""Speed of the special account as the years go by, on SQLite and PostgreSQL.

Two districts are made with the large-district generator (``tid demo --large``): a small one
of 500 properties and one fiscal year (the demo's size), and a large one of N properties and
Y fiscal years (default 20,000 × 10: about 1,200,000 journal lines). Then, on each backend:

- **book one payment** (``record_payment`` on a delinquent bill, and the commit), P times on
  the large district: the median, against the baseline of a bare SQLAlchemy Core insert of
  the same journal rows (an entry and its four lines) and its commit into an empty database
  of the same schema, in the same run. Targets: median ≤ 20 ms and ≤ 10× the bare insert.
- **the first payment after a billing run**: the next fiscal year's roll (the last one's,
  copied) is billed for every property (``run_billing``, which books its bills in the
  journal), then one payment is booked. Target ≤ 1 s.
- **the pages' queries** (through the services the pages call): the account dashboard, the
  journal (the first and the last page of the year), the delinquency (first page) and the
  yearly statement with its receivables by age (the count of the bills still owed at the
  year's end and their totals per bucket, as its page shows them), each timed on the large and
  on the small district. Target: each large ≤ 10× small.

PostgreSQL is a throwaway server started as the tests do (tests/pg.py).

Run: ``.venv/bin/python benchmarks/account.py [--properties N] [--years Y]
[--backend sqlite|postgresql|both] [--payments P]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sizes import pick
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

import tid.models as models
from tests.pg import ThrowawayPostgres
from tid.clock import utcnow
from tid.db import make_engine
from tid.demo.large_district import make_large_district
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services import billing, ledger
from tid.services.account import audit_statement, payments
from tid.services.audit_trail import audit
from tid.services.liens import impost_lien as liens

ACTOR = audit.Actor("benchmark")
TODAY = date(2026, 11, 30)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm the caches once
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class Databases:
    """Empty databases with the schema, on one backend."""

    def __init__(self, backend: str, folder: Path) -> None:
        self.backend = backend
        self.folder = folder
        self.server: ThrowawayPostgres | None = None
        if backend == "postgresql":
            self.server = ThrowawayPostgres()
            self.server.start()

    def new(self, name: str) -> Engine:
        if self.server is None:
            url = f"sqlite:///{self.folder / name}.sqlite"
        else:
            admin = make_engine(self.server.url(), isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            admin.dispose()
            url = self.server.url(name)
        engine = make_engine(url)
        SQLModel.metadata.create_all(engine)
        return engine

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


def analyze(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.execute(text("ANALYZE"))
        conn.commit()


def make(engine: Engine, properties: int, years: int) -> tuple[int, float, int]:
    with Session(engine, expire_on_commit=False) as session:
        made = make_large_district(session, properties=properties, years=years, user_email=None)
        session.commit()
    analyze(engine)
    return made.district_id, made.seconds, made.lines


def page_queries(engine: Engine, district_id: int) -> dict[str, Callable[[], Any]]:
    """What each page asks of the services (the same calls as tid/web/account/)."""

    def session() -> Session:
        return Session(engine, expire_on_commit=False)

    def latest_fy(db: Session) -> FiscalYear:
        latest = db.exec(
            select(func.max(models.JournalEntry.entry_date)).where(  # type: ignore[call-overload]
                models.JournalEntry.district_id == district_id
            )
        ).one()[0]
        return fiscal_year_of(latest)

    def dashboard() -> None:
        with session() as db:
            fy = latest_fy(db)
            ledger.cap_figures(session=db, district_id=district_id, fy=fy)
            audit_statement.months(session=db, district_id=district_id, fy=fy)
            ledger.balances(session=db, district_id=district_id)
            ledger.unbooked_owed(session=db, district_id=district_id)
            audit_statement.bank_checks(session=db, district_id=district_id, limit=1)

    def journal_first() -> None:
        with session() as db:
            fy = latest_fy(db)
            ledger.journal_page(
                session=db, district_id=district_id, since=fy.start, until=fy.end, page=1
            )

    def journal_last() -> None:
        with session() as db:
            fy = latest_fy(db)
            ledger.journal_page(
                session=db, district_id=district_id, since=fy.start, until=fy.end, page=10**6
            )

    def delinquency() -> None:
        with session() as db:
            liens.delinquency_page(session=db, district_id=district_id, today=TODAY, page=1)

    def statement() -> None:
        with session() as db:
            audit_statement.statement(session=db, district_id=district_id, fy=latest_fy(db))

    def aging() -> None:
        with session() as db:
            audit_statement.aging_page(
                session=db, district_id=district_id, as_of=latest_fy(db).end, limit=0
            )

    return {
        "account dashboard": dashboard,
        "journal, first page": journal_first,
        "journal, last page": journal_last,
        "delinquency, first page": delinquency,
        "yearly statement": statement,
        "statement's receivables by age": aging,
    }


def delinquent_bills(engine: Engine, district_id: int, n: int) -> list[tuple[int, Decimal]]:
    with Session(engine) as db:
        rows = liens.delinquency(session=db, district_id=district_id, today=TODAY)
    return [(r.bill.id or 0, r.outstanding) for r in rows[:n]]


def pay(engine: Engine, district_id: int, bill_id: int, amount: Decimal, key: str) -> float:
    started = time.perf_counter()
    with Session(engine, expire_on_commit=False) as db:
        result = payments.record_payment(
            session=db,
            actor=ACTOR,
            district_id=district_id,
            paid_on=TODAY,
            amount=amount,
            today=TODAY,
            key=key,
            reference=key,
            notice_number=str(bill_id),
        )
        db.commit()
    assert result.booked
    return time.perf_counter() - started


def bare_inserts(engine: Engine, n: int) -> list[float]:
    """An entry and its four lines, a bare Core insert and commit each time."""
    entry_table = models.JournalEntry.__table__  # type: ignore[attr-defined]
    line_table = billing._plain_table(models.JournalLine)
    with Session(engine) as db:
        municipality = models.Municipality(name="Bench")
        db.add(municipality)
        db.flush()
        district = models.District(municipality_id=municipality.id or 0, name="Bench")
        db.add(district)
        db.commit()
        district_id = district.id or 0
    times = []
    for i in range(n):
        started = time.perf_counter()
        with engine.begin() as conn:
            entry_id = conn.execute(
                insert(entry_table).returning(entry_table.c.id),
                {
                    "district_id": district_id,
                    "entry_date": TODAY,
                    "kind": "payment",
                    "memo": f"Payment 10.00, ref. bare-{i}",
                    "idempotency_key": f"bare-{i}",
                    "actor": "benchmark",
                    "created_at": utcnow(),
                },
            ).scalar_one()
            conn.execute(
                insert(line_table),
                [
                    {"entry_id": entry_id, "account": "bank", "bill_id": None, "amount": 1000},
                    {
                        "entry_id": entry_id,
                        "account": "receivable",
                        "bill_id": None,
                        "amount": -1000,
                    },
                    {
                        "entry_id": entry_id,
                        "account": "impost_assessed",
                        "bill_id": None,
                        "amount": 1000,
                    },
                    {
                        "entry_id": entry_id,
                        "account": "impost_revenue",
                        "bill_id": None,
                        "amount": -1000,
                    },
                ],
            )
        times.append(time.perf_counter() - started)
    return times


def bill_next_year(engine: Engine, district_id: int) -> tuple[float, float, int]:
    """Copy the last roll to the next fiscal year, bill it, and book the first payment."""
    year_table = models.PropertyYear.__table__  # type: ignore[attr-defined]
    with Session(engine, expire_on_commit=False) as db:
        last = db.exec(
            select(func.max(year_table.c.fiscal_year)).where(  # type: ignore[call-overload]
                year_table.c.district_id == district_id
            )
        ).one()[0]
        fy = FiscalYear(int(last[:4]) + 1)
        roll = models.RollImport(
            district_id=district_id,
            fiscal_year=fy.label,
            file_name="next.csv",
            sha256="f" * 64,
            rows=0,
            actor="benchmark",
        )
        db.add(roll)
        db.flush()
        columns = [c.name for c in year_table.columns if c.name != "id"]
        chosen = [
            text(f"'{fy.label}'")
            if c == "fiscal_year"
            else text(str(roll.id))
            if c == "roll_import_id"
            else year_table.c[c]
            for c in columns
        ]
        db.execute(
            year_table.insert().from_select(
                columns,
                select(*chosen).where(
                    year_table.c.district_id == district_id, year_table.c.fiscal_year == last
                ),
            )
        )
        db.commit()
    analyze(engine)
    started = time.perf_counter()
    with Session(engine, expire_on_commit=False) as db:
        result = billing.run_billing(
            session=db,
            actor=ACTOR,
            district_id=district_id,
            fiscal_year=fy.label,
            run_on=date(fy.start_year, 7, 15),
        )
        db.commit()
        run_id = result.run.id
        bills = result.run.property_count
    billed = time.perf_counter() - started
    with Session(engine) as db:
        bill = db.exec(
            select(models.Bill).where(models.Bill.billing_run_id == run_id).limit(1)  # type: ignore[call-overload]
        ).one()[0]
    first = pay(engine, district_id, bill.id or 0, Decimal("10.00"), "first-after-billing")
    return billed, first, bills


def run(backend: str, properties: int, years: int, n_payments: int) -> bool:
    print(f"\n== {backend}: {properties:,} properties × {years} fiscal years, against 500 × 1")
    ok = True
    with tempfile.TemporaryDirectory(prefix="tid-bench-account-") as folder:
        dbs = Databases(backend, Path(folder))
        try:
            small = dbs.new("small")
            large = dbs.new("large")
            bare = dbs.new("bare")
            small_id, small_s, small_lines = make(small, 500, 1)
            large_id, large_s, large_lines = make(large, properties, years)
            print(
                f"generated: small {small_lines:,} journal lines in {small_s:.1f} s; "
                f"large {large_lines:,} journal lines in {large_s:.1f} s"
            )

            # Pages' queries, large against small.
            small_q = page_queries(small, small_id)
            large_q = page_queries(large, large_id)
            print(f"{'query':<32}{'small':>12}{'large':>12}{'ratio':>8}  target ≤ 10×")
            for name in small_q:
                s = median_of(small_q[name], 15)
                big = median_of(large_q[name], 15)
                ratio = big / s
                informational = name.startswith("(info)")
                verdict = "" if informational else ("ok" if ratio <= 10 else "MISSED")
                ok = ok and (informational or ratio <= 10)
                print(f"{name:<32}{ms(s):>12}{ms(big):>12}{ratio:>7.1f}×  {verdict}")

            # One payment, against the bare insert of its rows.
            targets = delinquent_bills(large, large_id, n_payments)
            times = [
                pay(large, large_id, bill_id, (owed / 2).quantize(Decimal("0.01")) or owed, f"p{i}")
                for i, (bill_id, owed) in enumerate(targets)
            ]
            bare_times = bare_inserts(bare, len(times))
            paid, base = statistics.median(times), statistics.median(bare_times)
            good = paid <= 0.020 and paid / base <= 10
            ok = ok and good
            print(
                f"book one payment (median of {len(times)}): {ms(paid)}; bare insert of its rows "
                f"{ms(base)}; ratio {paid / base:.1f}×  (targets ≤ 20 ms, ≤ 10×) "
                f"{'ok' if good else 'MISSED'}"
            )

            # The first payment after a billing run.
            billed, first, bills = bill_next_year(large, large_id)
            ok = ok and first <= 1.0
            print(
                f"billing run of {bills:,} bills (booked in the journal): {billed:.2f} s; "
                f"first payment after it: {ms(first)}  (target ≤ 1 s) "
                f"{'ok' if first <= 1.0 else 'MISSED'}"
            )
            with Session(large) as db:
                lines, differences = ledger.verify(session=db, district_id=large_id)
            ok = ok and not differences
            print(f"tid account verify: {lines:,} lines, {len(differences)} differences")
            for engine in (small, large, bare):
                engine.dispose()
        finally:
            dbs.stop()
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--properties", type=int, default=pick(20_000, 200))
    parser.add_argument("--years", type=int, default=pick(10, 2))
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--payments", type=int, default=pick(50, 3))
    args = parser.parse_args()
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    results = [run(b, args.properties, args.years, args.payments) for b in backends]
    print("\nall targets met" if all(results) else "\nsome targets MISSED")


if __name__ == "__main__":
    main()
