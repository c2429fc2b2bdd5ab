"""Speed of the billing run (21 LPRA § 6653(3)(d)) against a bare Core insert of its bills.

On a fresh SQLite database in a temporary folder: a district, an approved ordinance and a
roll of N properties for FY2026-27 (generated with the demo's generator, imported with the
roll's own bulk insert; not timed). Then, timed:

- ``run_billing``: reading the roll, compiling and evaluating the ordinance's formula for
  every property (with its explanation), the fingerprint, the bulk insert of the bills, the
  audit event and the commit;
- the baseline: a bare SQLAlchemy Core ``executemany`` insert of the same bill rows (integer
  cents, explanation text and all) into the same table of a second, identical database,
  and its commit.

Prints properties per second and the ratio run / baseline; the targets at N = 100,000 are at
least 25,000 properties per second and at most 10 times the bare insert.

Run: ``.venv/bin/python benchmarks/billing.py [N]`` (default 100000)
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from sizes import pick
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

import tid.models as models
from tid.db import make_engine
from tid.demo import records
from tid.demo.roll import DEMO_FORMULA, roll_csv
from tid.services import billing, roll
from tid.services.audit_trail import audit

ACTOR = audit.Actor("benchmark")
FY = "2026-27"


def approved_district(session: Session) -> tuple[int, int, models.Ordinance]:
    """San Juan's district of Viejo San Juan with its ordinance approved (the demo's formula),
    flushed: the municipality's and the district's ids, and the ordinance. Every benchmark of a
    district's roll starts from it."""
    municipality = models.Municipality(name="San Juan")
    session.add(municipality)
    session.flush()
    district = models.District(municipality_id=municipality.id or 0, name="Viejo San Juan")
    session.add(district)
    session.flush()
    ordinance = records.ordinance(
        session,
        municipality_id=municipality.id or 0,
        district_id=district.id or 0,
        district_name=district.name,
        petitioner="benchmark",
        received_on=date(2026, 1, 5),
        expected_amount=Decimal("1000000.00"),
        term_years=5,
        formula=DEMO_FORMULA,
        association_name="Asociación",
        issued_on=date(2026, 3, 2),
        approved_on=date(2026, 3, 16),
    )
    return municipality.id or 0, district.id or 0, ordinance


def setup(engine: Engine, n: int, *, with_roll: bool) -> tuple[int, int]:
    """A district with an approved ordinance (and its roll of ``n`` properties)."""
    SQLModel.metadata.create_all(engine)
    with Session(engine, expire_on_commit=False) as session:
        _municipality, district_id, ordinance = approved_district(session)
        session.commit()
        if with_roll:
            data = roll_csv(n, seed=7, bom=False)
            roll.import_roll(
                session=session,
                actor=ACTOR,
                district_id=district_id,
                fiscal_year=FY,
                data=data,
                file_name="roll.csv",
                max_bytes=len(data),
                max_rows=n,
            )
            session.commit()
        return district_id, ordinance.id or 0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else pick(100_000, 200)
    with tempfile.TemporaryDirectory() as folder:
        run_engine = make_engine(f"sqlite:///{Path(folder) / 'run.sqlite'}")
        bare_engine = make_engine(f"sqlite:///{Path(folder) / 'bare.sqlite'}")
        started = time.perf_counter()
        district_id, _ = setup(run_engine, n, with_roll=True)
        print(f"setup: roll of {n:,} properties imported in {time.perf_counter() - started:.1f} s")

        with Session(run_engine, expire_on_commit=False) as session:
            started = time.perf_counter()
            cpu = time.process_time()
            result = billing.run_billing(
                session=session,
                actor=ACTOR,
                district_id=district_id,
                fiscal_year=FY,
                run_on=date(2026, 7, 1),
            )
            session.commit()
            run_seconds = time.perf_counter() - started
            run_cpu = time.process_time() - cpu
            run_id = result.run.id
            assert result.run.property_count == n
            # The very rows the run inserted, as it gave them (no id, no empty columns).
            rows: list[dict[str, Any]] = [
                {
                    k: v
                    for k, v in r._mapping.items()
                    if k not in ("id", "mailed_at", "superseded_by_id")
                }
                for r in session.execute(
                    select(billing._BILL_ROWS).where(billing._BILL_ROWS.c.billing_run_id == run_id)
                )
            ]
            # A second run with nothing changed is idempotent: measured too.
            started = time.perf_counter()
            again = billing.run_billing(
                session=session,
                actor=ACTOR,
                district_id=district_id,
                fiscal_year=FY,
                run_on=date(2026, 7, 2),
            )
            session.commit()
            rerun_seconds = time.perf_counter() - started
            assert again.unchanged

        # The baseline: the same rows into the same table of an identical database.
        setup(bare_engine, n, with_roll=True)
        with Session(bare_engine) as session:
            session.add(
                models.BillingRun(
                    id=run_id,
                    district_id=district_id,
                    ordinance_id=1,
                    fiscal_year=FY,
                    version=1,
                    formula=DEMO_FORMULA,
                    total=Decimal(0),
                    expected_amount=Decimal(0),
                    run_on=date(2026, 7, 1),
                    due_date=date(2026, 8, 30),
                    fingerprint="",
                    actor="baseline",
                )
            )
            session.commit()
        with bare_engine.begin() as connection:
            started = time.perf_counter()
            cpu = time.process_time()
            connection.execute(insert(billing._BILL_ROWS), rows)
        bare_seconds = time.perf_counter() - started
        bare_cpu = time.process_time() - cpu
        run_engine.dispose()
        bare_engine.dispose()

    print(
        f"billing run:      {n:,} properties in {run_seconds:.2f} s = {n / run_seconds:,.0f}/s"
        f" (CPU {run_cpu:.2f} s)"
    )
    print(
        f"bare Core insert: {n:,} rows in {bare_seconds:.2f} s = {n / bare_seconds:,.0f}/s"
        f" (CPU {bare_cpu:.2f} s)"
    )
    print(f"ratio run / bare insert: {run_seconds / bare_seconds:.1f}x (target <= 10x)")
    print(f"idempotent rerun (nothing written): {rerun_seconds:.2f} s")
    print(f"total billed: ${result.total:,}; expected ${result.expected_amount:,}")
    ok = n / run_seconds >= 25_000 and run_seconds / bare_seconds <= 10
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
