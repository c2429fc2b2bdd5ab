"""Speed of moving in: booking the opening position of N open bills against one billing run
of N properties, in the same run, on SQLite.

Two fresh SQLite databases in a temporary folder, each with a district, an approved
ordinance and a roll of N properties for FY 2026-27 (the demo's generator, imported with the
roll's own bulk insert; not timed). Then, timed:

- **billing run**: ``run_billing`` of the year (the formula for every property, the bills,
  their booking in the journal) and its commit;
- **moving in**: ``check_position`` (reading the files, every row checked against the roll
  and the ordinance: the preview a person sees) and ``book_position`` (checked again under
  the district's lock, the billing runs, the N bills, what each brought, N + 2 opening
  entries with their running balances, the files archived, the audit event) and its commit,
  for a bills file of N open bills (one per property, part paid, late charges brought), a
  bank file and a credits file of N / 100 credits.

Prints both times and the ratio; the target is moving in ≤ 2× the billing run.

Run: ``.venv/bin/python benchmarks/aboard.py [N]`` (default 20000), or ``--smoke`` (100
properties: seconds).
"""

from __future__ import annotations

import csv
import io
import sys
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sizes import pick  # the one module that takes --smoke off the command line
from sqlmodel import Session

from benchmarks.billing import ACTOR, FY, setup
from tid.db import make_engine
from tid.demo.roll import roll_csv
from tid.services import aboard, billing

CUT_OVER = date(2027, 1, 1)
TODAY = date(2027, 2, 1)


def position_files(n: int) -> dict[str, tuple[str, bytes]]:
    """A bank file, a bills file of one open bill per property of the roll and a credits
    file of one credit every 100 properties (English headers)."""
    reader = csv.reader(io.StringIO(roll_csv(n, seed=7, bom=False).decode()))
    next(reader)
    numbers = [row[0] for row in reader]
    bills = io.StringIO(newline="")
    out = csv.writer(bills, lineterminator="\n")
    out.writerow(["cadastral_number", "fiscal_year", "billed", "paid", "due_date",
                  "notice_number", "late_charges_accrued"])  # fmt: skip
    for i, number in enumerate(numbers):
        billed = Decimal(100 + i % 900)
        out.writerow([number, FY, billed, billed * Decimal("0.25"), "2026-09-30",
                      f"OLD-{i:06d}", Decimal(i % 50)])  # fmt: skip
    credits = "cadastral_number,amount\n" + "".join(
        f"{number},10.00\n" for number in numbers[::100]
    )
    return {
        "bank": ("bank.csv", b"cut_over_date,balance\n2027-01-01,250000.00\n"),
        "bills": ("bills.csv", bills.getvalue().encode()),
        "credits": ("credits.csv", credits.encode()),
    }


def main() -> None:
    args = sys.argv[1:]
    n = int(next((a for a in args if a.isdigit()), pick("20000", "100")))
    with tempfile.TemporaryDirectory() as folder:
        run_engine = make_engine(f"sqlite:///{Path(folder) / 'run.sqlite'}")
        move_engine = make_engine(f"sqlite:///{Path(folder) / 'move.sqlite'}")
        started = time.perf_counter()
        run_district, _ = setup(run_engine, n, with_roll=True)
        move_district, _ = setup(move_engine, n, with_roll=True)
        files = position_files(n)
        print(f"setup: two rolls of {n:,} properties in {time.perf_counter() - started:.1f} s")

        with Session(run_engine, expire_on_commit=False) as session:
            started = time.perf_counter()
            result = billing.run_billing(
                session=session,
                actor=ACTOR,
                district_id=run_district,
                fiscal_year=FY,
                run_on=date(2026, 7, 1),
            )
            session.commit()
            run_seconds = time.perf_counter() - started
            assert result.run.property_count == n

        limits = {"max_bytes": 50 * 1024 * 1024, "max_rows": max(n, 1000)}
        with Session(move_engine, expire_on_commit=False) as session:
            started = time.perf_counter()
            preview = aboard.check_position(
                session=session, district_id=move_district, files=files, today=TODAY, **limits
            )
            session.rollback()
            check_seconds = time.perf_counter() - started
            assert not preview.findings, preview.findings[:3]
            booked = aboard.book_position(
                session=session,
                actor=ACTOR,
                district_id=move_district,
                files=files,
                confirmed=preview.totals.to_confirm(),
                today=TODAY,
                **limits,
            )
            session.commit()
            move_seconds = time.perf_counter() - started
            assert booked.booked and booked.bills == n
        run_engine.dispose()
        move_engine.dispose()

    ratio = move_seconds / run_seconds
    print(f"billing run:  {n:,} properties in {run_seconds:.2f} s")
    print(
        f"moving in:    {n:,} open bills in {move_seconds:.2f} s (of which the preview "
        f"{check_seconds:.2f} s; {booked.entries:,} opening entries)"
    )
    print(f"ratio moving in / billing run: {ratio:.2f}x (target <= 2x)")
    print("target met" if ratio <= 2 else "target NOT met")


if __name__ == "__main__":
    main()
