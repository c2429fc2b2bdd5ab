"""The budget's pages: drafted with its errors at their fields, approved, amended, read by the
auditor who writes nothing; an expenditure over its line warned; the budget against the
actual as a page and a CSV file."""

from __future__ import annotations

import html
import io
import re
import zipfile
from datetime import date
from decimal import Decimal
from pathlib import Path

from sqlmodel import Session

from tests.conftest import People, login, make_test_app
from tests.services.ledger_support import ACTOR
from tests.web.account.support import paid_account
from tid.rules.periods import FiscalYear
from tid.services.account import expenditures, year_locks
from tid.services.budget import planning


def test_a_budget_is_drafted_approved_and_amended_on_its_page(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    s, _bill = paid_account(session, people, "1000.00")
    s.run.total = Decimal("1000.00")
    session.add(s.run)
    session.commit()
    purpose = expenditures.purposes(session=session, district_id=s.district_id)[0]
    client = make_test_app(database_url, tmp_path, TODAY="2025-09-01").test_client()
    login(client, people.association)
    d = s.district_id
    url = f"/account/{d}/budget?fy=2025-26"
    page = client.get(url).get_data(as_text=True)
    assert "Presupuesto del AF 2025-26" in page and "sin presupuesto" in page
    form = {
        "billed": "1000.00",
        "collection_rate": "100",
        "other_income": "0",
        "carry_over": "0",
        "line_admin": "50.01",
        f"line_{purpose.id}": "900.00",
        "line_777777": "10.00",
    }
    refused = client.post(url, data=form)
    assert refused.status_code == 422
    text = refused.get_data(as_text=True)
    assert 'id="e-line_admin"' in text and 'id="e-line_777777"' in text
    assert "La administración de $50.01 excede el tope" in text
    assert "Este no es un propósito que la ordenanza autorice." in text
    assert planning.budget_of(session=session, district_id=d, fy=FiscalYear(2025)) is None
    del form["line_777777"]
    assert client.post(url, data={**form, "line_admin": "50.00"}).status_code == 302
    approve = client.post(
        f"/account/{d}/budget/approve?fy=2025-26",
        data={"approved_on": "2025-08-30", "minutes": "Acta 2025-08"},
    )
    assert approve.status_code == 302
    no_reason = client.post(url, data={**form, "line_admin": "40.00"})
    assert no_reason.status_code == 422 and 'id="e-reason"' in no_reason.get_data(as_text=True)
    amended = client.post(url, data={**form, "line_admin": "40.00", "reason": "Menos oficina"})
    assert amended.status_code == 302
    page = client.get(url).get_data(as_text=True)
    assert "aprobado por la junta" in page and "Menos oficina" in page and "Acta 2025-08" in page
    # The auditor reads it and writes nothing.
    auditor = make_test_app(database_url, tmp_path, TODAY="2025-09-01").test_client()
    login(auditor, people.auditor)
    assert auditor.get(url).status_code == 200
    assert auditor.post(url, data={**form, "reason": "x"}).status_code == 403
    assert auditor.post(f"/account/{d}/budget/approve?fy=2025-26", data={}).status_code == 403
    # An expenditure over its line is booked and warned; the actual shows it over.
    spent = client.post(
        f"/account/{d}/expenditures",
        data={
            "date": "2025-08-20",
            "amount": "950.00",
            "payee": "Jardines",
            "category": str(purpose.id),
            "token": "t1",
        },
        follow_redirects=True,
    )
    assert 'class="flash warning"' in spent.get_data(as_text=True)
    actual = client.get(f"/account/{d}/budget/actual?fy=2025-26").get_data(as_text=True)
    assert "$950.00" in actual and "-$50.00" in actual
    chart = actual[actual.index('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') :]
    chart = chart[: chart.index("</svg>")]
    # each line's name is written whole (wrapped into lines, never cut) above its bars
    words = " ".join(re.findall(r"<tspan[^>]*>([^<]*)</tspan>", chart))
    assert "…" not in chart and html.escape(purpose.name, quote=False) in words
    csv = client.get(f"/account/{d}/budget/actual.csv?fy=2025-26")
    assert csv.status_code == 200 and "950.00" in csv.get_data(as_text=True)


def test_a_closed_year_is_carried_over_and_reported_and_a_draft_stays_private(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    s, _bill = paid_account(session, people, "1000.00")
    s.run.total = Decimal("1000.00")
    session.add(s.run)
    purpose = expenditures.purposes(session=session, district_id=s.district_id)[0]
    d, fy = s.district_id, FiscalYear(2025)
    plan = planning.Plan(
        billed=Decimal("1000.00"),
        collection_rate=Decimal("1"),
        lines={"admin": Decimal("50.00"), str(purpose.id): Decimal("900.00")},
    )
    common = dict(session=session, actor=ACTOR, district_id=d, fy=fy)
    planning.draft_budget(plan=plan, today=date(2025, 6, 1), **common)  # type: ignore[arg-type]
    planning.approve_budget(
        approved_on=date(2025, 6, 2),
        minutes="Acta 2025-06",
        today=date(2025, 6, 2),
        **common,  # type: ignore[arg-type]
    )
    year_locks.lock_year(
        session=session, actor=ACTOR, district_id=d, fy=fy, today=date(2026, 7, 10)
    )
    session.commit()
    client = make_test_app(database_url, tmp_path, TODAY="2026-07-10").test_client()
    login(client, people.association)
    page = client.get(f"/account/{d}/budget?fy=2026-27").get_data(as_text=True)
    assert "El AF 2025-26 cerró con $1,000.00 en la cuenta" in page
    carried = client.post(f"/account/{d}/budget/carry-over?fy=2026-27")
    assert carried.status_code == 302
    following = planning.budget_of(session=session, district_id=d, fy=FiscalYear(2026))
    assert following is not None and following.status == "draft"
    assert following.carry_over == Decimal("1000.00")
    # a closed year's budget no longer changes
    closed = client.post(
        f"/account/{d}/budget?fy=2025-26",
        data={"billed": "1000", "collection_rate": "100", "line_admin": "10", "reason": "x"},
    )
    assert closed.status_code == 422
    assert "su presupuesto ya no cambia" in closed.get_data(as_text=True)
    auditor = make_test_app(database_url, tmp_path, TODAY="2026-07-10").test_client()
    login(auditor, people.auditor)
    assert auditor.post(f"/account/{d}/budget/report?fy=2025-26").status_code == 403
    reported = client.post(f"/account/{d}/budget/report?fy=2025-26")
    assert reported.status_code == 302
    public = client.get(f"/publico/distritos/{d}").get_data(as_text=True)
    assert "Informe anual del distrito, AF 2025-26" in public
    assert "Presupuesto del AF 2025-26" in public and "$900.00" in public
    assert "Presupuesto del AF 2026-27" not in public  # a draft is not public
    package = client.get(f"/publico/datos/{d}.zip")
    assert package.status_code == 200
    with zipfile.ZipFile(io.BytesIO(package.data)) as files:
        budgets = files.read("budgets.csv").decode("utf-8")
    assert "2025-26" in budgets and "2026-27" not in budgets
