"""Who publishes a fiscal year and what follows: the district's association withdraws and
publishes its year, each choice in the history; another district's association may not; and
a booking in a published year shows on the public page at once (the district's public version
moved, so no worker keeps the old figures)."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import login
from tid.demo import ACCOUNT_DISTRICT, ACCOUNT_USER, DEMO_PASSWORD
from tid.models import AuditEvent, District, PublishedDocument, PublishedYear
from tid.services.account import expenditures
from tid.services.audit_trail.audit import Actor
from tid.services.public import district_figures, versions

TODAY = date(2026, 12, 3)


def test_the_association_publishes_and_withdraws_its_years(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    other = session.exec(select(District).where(District.id != condado.id)).first()
    assert other is not None
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    page = client.get(f"/publico/distritos/{condado.id}/publicacion")
    assert page.status_code == 200 and "2025-26" in page.text
    assert client.get(f"/publico/distritos/{other.id}/publicacion").status_code == 403
    url = f"/publico/distritos/{condado.id}/publicacion/2025-26"
    assert client.post(url, data={"published": "0"}).status_code == 302
    client.post("/logout")
    assert client.get(f"/publico/distritos/{condado.id}/2025-26").status_code == 404
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    client.post(url, data={"published": "1"})
    client.post("/logout")
    assert client.get(f"/publico/distritos/{condado.id}/2025-26").status_code == 200
    actions = session.exec(
        select(AuditEvent.action).where(AuditEvent.entity_type == "published_year")
    ).all()
    assert actions[-2:] == ["published_year.withdraw", "published_year.publish"]


def test_a_booking_moves_the_districts_public_version(
    app: Flask, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id or 0
    before = district_figures.district_page(session=session, district_id=d, today=TODAY)
    assert before is not None
    version = versions.version_of(session=session, district_id=d)
    purposes = expenditures.purposes(session=session, district_id=d)
    expenditures.record_expenditure(
        session=session,
        actor=Actor("t"),
        district_id=d,
        spent_on=date(2026, 5, 4),
        amount=Decimal("100.00"),
        payee="Imprenta",
        today=TODAY,
        key="public-version-test",
        purpose_id=purposes[0].id,
    )
    session.commit()
    assert versions.version_of(session=session, district_id=d) == version + 1
    after = district_figures.district_page(session=session, district_id=d, today=TODAY)
    assert after is not None
    assert after.years[0]["program_total"] == before.years[0]["program_total"] + Decimal("100.00")


def test_the_server_publishes_only_the_years_the_form_offers(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    """Hand-made requests: a statement of the open year, years the district never had."""
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    page = client.get(f"/publico/distritos/{d}/publicacion").text
    offered = re.findall(r'<option value="(\d{4}-\d{2})"', page)
    assert offered == ["2025-26"]  # ended and public; 2026-27 is still open
    open_year = client.post(
        f"/publico/distritos/{d}/publicacion/documentos", data={"fiscal_year": "2026-27"}
    )
    assert open_year.status_code == 422 and 'id="e-fiscal_year"' in open_year.text
    assert session.exec(select(PublishedDocument)).all() == []
    for label in ("2031-32", "1999-00"):
        client.post(f"/publico/distritos/{d}/publicacion/{label}", data={"published": "1"})
    chosen = session.exec(select(PublishedYear.fiscal_year)).all()
    assert set(chosen) <= {"2025-26"}
    client.post("/logout")
    assert client.get(f"/publico/distritos/{d}/2031-32").status_code == 404


def test_withdrawing_a_year_withdraws_what_was_published_of_it(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    made = client.post(
        f"/publico/distritos/{d}/publicacion/documentos", data={"fiscal_year": "2025-26"}
    )
    assert made.status_code == 302
    document = session.exec(select(PublishedDocument)).one()
    address = f"/publico/distritos/{d}/documentos/{document.id}"
    client.post("/logout")
    assert client.get(address).status_code == 200
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    client.post(f"/publico/distritos/{d}/publicacion/2025-26", data={"published": "0"})
    client.post("/logout")
    assert client.get(address).status_code == 404
    listed = client.get(f"/api/v1/public/documents?district_id={d}").get_data(as_text=True)
    assert f"/documentos/{document.id}" not in listed
    session.expire_all()
    assert session.exec(select(PublishedDocument)).one().withdrawn_at is not None


def test_a_public_year_does_not_reveal_the_year_before_when_that_one_is_not_public(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    d = condado.id or 0
    expenditures.record_expenditure(  # a second year with figures: FY 2026-27
        session=session,
        actor=Actor("t"),
        district_id=d,
        spent_on=date(2026, 8, 4),
        amount=Decimal("100.00"),
        payee="Imprenta",
        today=TODAY,
        key="second-year",
        purpose_id=expenditures.purposes(session=session, district_id=d)[0].id,
    )
    session.commit()
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    client.post(f"/publico/distritos/{d}/publicacion/2026-27", data={"published": "1"})
    client.post("/logout")
    shown = client.get(f"/publico/distritos/{d}/2026-27").text
    opening = re.search(r"Saldo inicial.*?</tr>", shown, re.S)
    assert opening is not None and "$" in opening.group(0)  # 2025-26 is public
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    client.post(f"/publico/distritos/{d}/publicacion/2025-26", data={"published": "0"})
    client.post("/logout")
    hidden = client.get(f"/publico/distritos/{d}/2026-27").text
    opening = re.search(r"Saldo inicial.*?</tr>", hidden, re.S)
    assert opening is not None and "$" not in opening.group(0)
    assert "cuyas cifras no son públicas" in " ".join(hidden.split())
