"""Speed of the formula studio on a district's roll, against a billing run of the same roll
measured in the same run.

On a fresh SQLite database in a temporary folder: a district, an approved ordinance (the
demo's formula) and a roll of N properties (the demo's generator, imported with the roll's
own bulk insert; not timed). Then, timed, each the median of a few runs:

- a variant: ``studio.try_study`` with one formula (the roll read with one query of the
  columns the formula uses, every property evaluated, the split by class and value, the
  median and the largest payers);
- a comparison: two formulas and one against the other (who pays more, less, by how much);
- the same two as the page does them: the signed-in clerk's POST of the studio's form,
  answered with the whole result page (charts and all);
- the baseline: one billing run of the same roll (``billing.run_billing``, its bills written
  and booked), once.

Targets at N = 20,000: a variant ≤ 1 s and a comparison ≤ 2 s, in the request. When
``benchmarks/studio_fund.py`` exists, its ``measure()`` lines are printed after these.

Run: ``.venv/bin/python benchmarks/studio.py [N]`` (default 20000)
"""

from __future__ import annotations

import importlib
import importlib.util
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from billing import approved_district  # noqa: E402
from sizes import pick  # noqa: E402
from sqlmodel import Session, SQLModel  # noqa: E402

from tid import create_app  # noqa: E402
from tid.db import make_engine  # noqa: E402
from tid.demo.roll import DEMO_FORMULA, roll_csv  # noqa: E402
from tid.services import billing, roll, studio  # noqa: E402
from tid.services.audit_trail import audit  # noqa: E402
from tid.services.auth import users  # noqa: E402

ACTOR = audit.Actor("benchmark")
FY = "2026-27"
PASSWORD = "benchmark password 2026"
PROPOSED = "max(100.00, 0.015 * assessed_value)"
RUNS = pick(5, 1)


def setup(url: str, n: int) -> tuple[int, int]:
    """A district with an approved ordinance, its roll of ``n`` properties and a clerk;
    returns the district's and the petition's ids."""
    engine = make_engine(url)
    SQLModel.metadata.create_all(engine)
    with Session(engine, expire_on_commit=False) as session:
        municipality_id, district_id, ordinance = approved_district(session)
        users.create_user(
            session=session,
            actor=ACTOR,
            email="clerk@bench.pr",
            name="Clerk",
            password=PASSWORD,
            role="clerk",
            municipality_id=municipality_id,
        )
        session.commit()
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
        ids = district_id, ordinance.petition_id
    engine.dispose()
    return ids


def median_time(work: Callable[[], Any], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def form(district_id: int, *formulas: str) -> dict[str, str]:
    values = {
        "source": f"{district_id}:{FY}",
        "expected_amount": "1,000,000.00",
        "baseline": "1",
        "action": "try",
    }
    for number, text in enumerate(formulas, start=1):
        values[f"v{number}_formula"] = text
    return values


def fund_lines() -> list[str]:
    """The Equalization Fund's figures, when its benchmark is here."""
    for name in ("benchmarks.studio_fund", "studio_fund"):
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is not None:
            lines: list[str] = importlib.import_module(name).measure()
            return lines
    return []


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else pick(20_000, 200)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'studio.sqlite'}"
        started = time.perf_counter()
        district_id, petition_id = setup(url, n)
        print(f"setup: roll of {n:,} properties imported in {time.perf_counter() - started:.1f} s")
        app = create_app(
            {
                "DATABASE_URL": url,
                "SECRET_KEY": "benchmark",
                "WTF_CSRF_ENABLED": False,
                "INSTANCE_PATH": str(Path(folder) / "instance"),
                "SCHEDULER_IN_PROCESS": False,
                "TWO_FACTOR_ROLES": "",
                "PDF_WARM_UP": False,  # the benchmark's own work alone
                "PAGE_WARM_UP": False,
            }
        )
        engine = app.extensions["tid.engine"]
        one = studio.read_study(form(district_id, PROPOSED))
        two = studio.read_study(form(district_id, DEMO_FORMULA, PROPOSED))
        with Session(engine) as session:
            variant = median_time(lambda: studio.try_study(session=session, study=one))
            comparison = median_time(lambda: studio.try_study(session=session, study=two))
            outcome = studio.try_study(session=session, study=two)
        client = app.test_client()
        signed_in = client.post("/login", data={"email": "clerk@bench.pr", "password": PASSWORD})
        assert signed_in.status_code == 302, signed_in.status_code
        page = f"/petitions/{petition_id}/studio"

        def post(values: dict[str, str]) -> None:
            answer = client.post(page, data=values)
            assert answer.status_code == 200, answer.get_data(as_text=True)[:500]

        page_variant = median_time(lambda: post(form(district_id, PROPOSED)))
        page_comparison = median_time(lambda: post(form(district_id, DEMO_FORMULA, PROPOSED)))
        with Session(engine) as session:
            started = time.perf_counter()
            billed = billing.run_billing(
                session=session,
                actor=ACTOR,
                district_id=district_id,
                fiscal_year=FY,
                run_on=date(2026, 7, 1),
            )
            session.commit()
            run_seconds = time.perf_counter() - started
        engine.dispose()
    assert outcome.summaries[0].total == int(billed.total * 100), "the study bills as billing"
    print(f"billing run (baseline):      {run_seconds:.2f} s for {n:,} properties")
    rows = (
        ("a variant (service)", variant, 1.0),
        ("a comparison of two (service)", comparison, 2.0),
        ("a variant (the page's request)", page_variant, 1.0),
        ("a comparison (the page's request)", page_comparison, 2.0),
    )
    for label, seconds, target in rows:
        mark = "ok" if seconds <= target else "OVER"
        print(
            f"{label + ':':<36} {seconds:.2f} s = {seconds / run_seconds:.2f}× the billing run "
            f"(target ≤ {target:.0f} s: {mark})"
        )
    print(f"same total as the billing run: ${billed.total:,} (to the cent)")
    for line in fund_lines():
        print(line)


if __name__ == "__main__":
    main()
