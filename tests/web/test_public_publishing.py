"""Who publishes a fiscal year and what follows: the district's association withdraws and
publishes its year, each choice in the history; another district's association may not; and
a booking in a published year shows on the public page at once (the district's public version
moved, so no worker keeps the old figures)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import login
from tid.demo import ACCOUNT_DISTRICT, ACCOUNT_USER, DEMO_PASSWORD
from tid.models import AuditEvent, District
from tid.services import expenditures
from tid.services.audit import Actor
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
