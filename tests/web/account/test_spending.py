"""Expenditures: the cap refusal with its figures in Spanish, one fiscal year per page."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.web.account.support import paid_account
from tid.models import AuthorizedPurpose


def test_cap_refusal_shows_the_figures_in_spanish(
    client: FlaskClient, session: Session, people: People
) -> None:
    s, _bill_id = paid_account(session, people, "1000.00")
    login(client, people.association)
    form = {
        "date": "2025-08-02",
        "amount": "50.01",
        "payee": "Oficina",
        "category": "admin",
        "token": "x",
    }
    response = client.post(f"/account/{s.district_id}/expenditures", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    # 5% × 1,000.00 = 50.00; nothing spent yet: headroom 50.00.
    assert "excedería el 5% de los recaudos" in page
    assert "1,000.00" in page and "margen disponible $50.00" in page
    ok = client.post(f"/account/{s.district_id}/expenditures", data={**form, "amount": "50.00"})
    assert ok.status_code == 302
    # Spending on an authorized purpose: the journal names its account by the purpose.
    purpose = session.exec(select(AuthorizedPurpose)).one()
    on_purpose = {**form, "amount": "20.00", "category": str(purpose.id), "token": "y"}
    assert client.post(f"/account/{s.district_id}/expenditures", data=on_purpose).status_code == 302
    journal = client.get(f"/account/{s.district_id}/journal?fy=2025-26").get_data(as_text=True)
    assert "Gastos: Ornato" in journal and "Gastos administrativos" in journal


def test_the_expenditures_page_is_one_fiscal_year_and_says_when_it_has_no_collections(
    database_url: str, tmp_path: Path, session: Session, people: People
) -> None:
    from tests.conftest import make_test_app

    s, _bill_id = paid_account(session, people, "1000.00")
    # Today is in FY 2026-27, which has nothing booked yet.
    client = make_test_app(database_url, tmp_path, TODAY="2026-07-15").test_client()
    login(client, people.association)
    d = s.district_id
    page = client.get(f"/account/{d}/expenditures").get_data(as_text=True)
    # By default the latest fiscal year with activity, 2025-26: cap panel, list and form.
    assert "Tope administrativo, AF 2025-26" in page and "Gastos del AF 2025-26" in page
    assert "$1,000.00" in page  # the revenue of 2025-26 in the cap panel
    assert 'value="2026-06-30"' in page  # a new expenditure is dated in the year shown
    # An administrative expense dated today (FY 2026-27) is refused, saying why.
    form = {
        "date": "2026-07-15",
        "amount": "10.00",
        "payee": "Oficina",
        "category": "admin",
        "token": "y",
    }
    refused = client.post(f"/account/{d}/expenditures", data=form)
    assert refused.status_code == 422
    text = refused.get_data(as_text=True)
    assert "El AF 2026-27 aún no tiene ingresos de la derrama cobrados" in text
    assert "5%" in text and "21 LPRA § 6653(6)" in text
    # The whole page is then FY 2026-27: the panel (no revenue) and the list.
    assert "Tope administrativo, AF 2026-27" in text and "Gastos del AF 2026-27" in text
    assert "Gastos del AF 2025-26" not in text
    # The same expense dated in 2025-26 is booked, and the page shows that year.
    ok = client.post(f"/account/{d}/expenditures", data={**form, "date": "2026-06-30"})
    assert ok.status_code == 302 and ok.location.endswith("fy=2025-26")
    # Chosen with the selector: ?fy= shows that year throughout.
    chosen = client.get(f"/account/{d}/expenditures?fy=2026-27").get_data(as_text=True)
    assert "Tope administrativo, AF 2026-27" in chosen and "Gastos del AF 2026-27" in chosen
    assert 'value="2026-07-15"' in chosen
