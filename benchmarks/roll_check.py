"""Speed of the roll's yearly check (21 LPRA § 6653(3)(b), (3)(d)) against the import's own
check of the same file.

On a fresh SQLite database in a temporary folder: a district, an approved ordinance, and last
year's roll of N properties (the demo's generator; imported and billed, not timed). This
year's file is last year's with changes: one property in 50 assessed 40% higher, one in 97
with another owner, one in 61 with another use class, one in 200 gone and N/100 new ones.
Then, measured in the same run:

- the import's own check: :func:`tid.services.roll.preview_roll` of this year's file (read,
  every cell checked, compared with the year's roll);
- the comparison: :func:`tid.services.roll_check.changes.of_preview` of that preview (last
  year's roll read, every change found, both years' imposts under the ordinance's formula,
  what gone properties owe).

Prints both figures and the ratio comparison / check; the target at N = 20,000 is at most
2 times.

Run: ``.venv/bin/python benchmarks/roll_check.py [N]`` (default 20000)
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

from billing import approved_district
from sizes import pick
from sqlmodel import Session, SQLModel

from tid.db import make_engine
from tid.demo.roll import HEADERS, roll_rows
from tid.services import billing, roll
from tid.services.audit_trail import audit
from tid.services.roll_check import changes

ACTOR = audit.Actor("benchmark")
LAST, THIS = "2026-27", "2027-28"
VALUE, OWNER, USE = (
    HEADERS.index("Valor Tasado"),
    HEADERS.index("Propietario"),
    HEADERS.index("Uso"),
)


def as_csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(HEADERS)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def this_year(rows: list[list[str]], n: int) -> list[list[str]]:
    """Last year's rows with the year's changes."""
    out = []
    for i, row in enumerate(rows):
        if i % 200 == 199:
            continue  # gone
        row = list(row)
        if i % 50 == 0:
            row[VALUE] = str((Decimal(row[VALUE]) * Decimal("1.4")).quantize(Decimal("0.01")))
        if i % 97 == 0:
            row[OWNER] = f"Nuevo Dueño {i}"
        if i % 61 == 0:
            row[USE] = "comercial" if row[USE] != "comercial" else "residencial"
        out.append(row)
    for j, row in enumerate(roll_rows(max(1, n // 100), seed=99)):
        row = list(row)
        row[0] = f"041-{j // 90:03d}-{j % 90:03d}-{10 + j % 80:02d}"
        out.append(row)
    return out


def setup(session: Session, n: int) -> tuple[int, bytes]:
    """A district with an approved ordinance and last year's roll, billed; this year's file."""
    _municipality, district_id, _ordinance = approved_district(session)
    session.commit()
    rows = roll_rows(n, seed=7)
    data = as_csv(rows)
    roll.import_roll(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=LAST,
        data=data,
        file_name="last.csv",
        max_bytes=len(data),
        max_rows=n,
    )
    session.commit()
    billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        fiscal_year=LAST,
        run_on=date(2026, 7, 1),
    )
    session.commit()
    return district_id, as_csv(this_year(rows, n))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else pick(20_000, 300)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'check.sqlite'}")
        SQLModel.metadata.create_all(engine)
        with Session(engine, expire_on_commit=False) as session:
            started = time.perf_counter()
            district_id, data = setup(session, n)
            took = time.perf_counter() - started
            print(f"setup: last year's roll of {n:,} imported and billed in {took:.1f} s")
            started = time.perf_counter()
            preview = roll.preview_roll(
                session=session,
                district_id=district_id,
                fiscal_year=THIS,
                data=data,
                file_name="this.csv",
                max_bytes=len(data),
                max_rows=2 * n,
            )
            check_seconds = time.perf_counter() - started
            assert preview.ok
            started = time.perf_counter()
            found = changes.of_preview(session=session, preview=preview)
            compare_seconds = time.perf_counter() - started
            assert found is not None and found.total_after is not None
        engine.dispose()
    rows = len(preview.parsed.rows)
    print(f"the import's own check: {rows:,} rows in {check_seconds:.2f} s")
    print(f"the comparison:         {len(found.changes):,} changes in {compare_seconds:.2f} s")
    counts = ", ".join(f"{k} {v}" for k, v in found.counts.items() if v)
    print(f"changes by kind: {counts}")
    ratio = compare_seconds / check_seconds
    print(f"ratio comparison / check: {ratio:.2f}x (target <= 2x)")
    print("target met" if ratio <= 2 else "target NOT met")


if __name__ == "__main__":
    main()
