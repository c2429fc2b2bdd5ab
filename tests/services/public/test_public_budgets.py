"""The public side of the budgets: an approved budget with its lines as first approved and as
amended, what was spent once the year is public; a draft never, on the page nor in the data
package; every change of a budget moves the district's public version."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import date
from decimal import Decimal

from sqlmodel import Session

from tests.services.budget.support import BEFORE, FY, District
from tests.services.ledger_support import ACTOR, pay_bill
from tid.rules.periods import FiscalYear
from tid.services.account import expenditures, year_locks
from tid.services.budget import planning
from tid.services.public import district_figures, open_data, versions

AFTER = date(2026, 7, 10)


def _budgets_csv(session: Session, district_id: int) -> list[dict[str, str]]:
    package = open_data.data_package(session=session, today=AFTER, district_id=district_id)
    assert package is not None
    with zipfile.ZipFile(io.BytesIO(package)) as files:
        descriptor = json.loads(files.read("datapackage.json"))
        measures = descriptor["model"]["measures"]
        assert {measures[m]["phase"] for m in ("budget_proposed", "budget_approved")} == {
            "proposed",
            "approved",
        }
        return list(csv.DictReader(io.StringIO(files.read("budgets.csv").decode("utf-8"))))


def test_only_an_approved_budget_is_public_and_spending_once_the_year_is(
    session: Session,
) -> None:
    d = District(session)
    common = dict(session=session, actor=ACTOR, district_id=d.id, fy=FY)
    before = versions.version_of(session=session, district_id=d.id)
    planning.draft_budget(plan=d.plan(), today=BEFORE, **common)  # type: ignore[arg-type]
    planning.draft_budget(  # a draft of the next year stays a draft
        session=session,
        actor=ACTOR,
        district_id=d.id,
        fy=FiscalYear(2026),
        plan=d.plan(),
        today=BEFORE,
    )
    session.commit()
    page = district_figures.district_page(session=session, district_id=d.id, today=AFTER)
    assert page is not None and page.budgets == []
    assert _budgets_csv(session, d.id) == []
    planning.approve_budget(
        approved_on=BEFORE,
        minutes="Minutes 6/15",
        today=BEFORE,
        **common,  # type: ignore[arg-type]
    )
    planning.amend_budget(
        plan=d.plan(cleaning="850.00"),
        reason="Festival",
        today=BEFORE,
        **common,  # type: ignore[arg-type]
    )
    session.commit()
    assert versions.version_of(session=session, district_id=d.id) > before
    bill = d.s.bill(d.s.property(), "1000.00")
    pay_bill(session, d.s, "1000.00", date(2025, 8, 1), "p1", bill.id)
    expenditures.record_expenditure(
        session=session,
        actor=ACTOR,
        district_id=d.id,
        spent_on=date(2025, 9, 1),
        amount=Decimal("300.00"),
        payee="Vendor",
        today=AFTER,
        key="e1",
        purpose_id=d.cleaning,
    )
    session.commit()
    page = district_figures.district_page(session=session, district_id=d.id, today=AFTER)
    assert page is not None
    assert [b["fiscal_year"] for b in page.budgets] == ["2025-26"]
    cleaning = next(x for x in page.budgets[0]["lines"] if x["purpose"] == "Street cleaning")
    # the year is not public yet: nothing spent is shown
    assert (cleaning["proposed"], cleaning["approved"], cleaning["executed"]) == (
        Decimal("800.00"),
        Decimal("850.00"),
        None,
    )
    year_locks.lock_year(session=session, actor=ACTOR, district_id=d.id, fy=FY, today=AFTER)
    session.commit()
    rows = _budgets_csv(session, d.id)
    assert {(r["fiscal_year"], r["kind"], r["purpose"]) for r in rows} == {
        ("2025-26", "administrative", "administrative"),
        ("2025-26", "purpose", "Security"),
        ("2025-26", "purpose", "Street cleaning"),
    }
    spent = next(r for r in rows if r["purpose"] == "Street cleaning")
    assert (spent["proposed"], spent["approved"], spent["executed"]) == (
        "800.00",
        "850.00",
        "300.00",
    )
