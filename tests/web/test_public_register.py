"""The public register of petitions: each petition's steps with their dates and deadlines,
whether each came in time, its ordinance; the municipality's Atom feed and its iCalendar of
deadlines, cacheable by anyone."""

from __future__ import annotations

import csv
import html
import io
import zipfile
from datetime import date, timedelta
from xml.etree import ElementTree as ET

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlmodel import Session, col, select

from tid.models import Municipality, Petition, PetitionDocument, PetitionState
from tid.render.formats import day
from tid.rules import calendar
from tid.services.audit_trail import audit
from tid.services.petitions import attachments
from tid.services.public import register


def format_day(value: date, language: str) -> str:
    return day(value, language, "medium")


def test_the_register_shows_each_step_and_whether_it_came_in_time(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    municipality = session.exec(select(Municipality)).first()
    assert municipality is not None
    register = client.get(f"/publico/municipios/{municipality.id}")
    assert register.status_code == 200
    published = session.exec(
        select(Petition).where(Petition.state == PetitionState.PUBLISHED.value)
    ).first()
    assert published is not None
    assert f"/publico/peticiones/{published.id}" in register.text
    client.post("/lang/en", data={"next": "/publico"})
    page = client.get(f"/publico/peticiones/{published.id}")
    assert page.status_code == 200
    for step in ("Petition received by the legislature", "Ordinance issued", "Ordinance published"):
        assert step in page.text
    assert "On time" in page.text and "Yes" in page.text
    assert client.get("/publico/peticiones/999999").status_code == 404
    assert client.get("/publico/municipios/999999").status_code == 404


def test_the_feeds_are_atom_and_icalendar_and_may_be_cached(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    municipality = session.exec(select(Municipality)).first()
    assert municipality is not None
    atom = client.get(f"/publico/municipios/{municipality.id}/novedades.atom")
    assert atom.status_code == 200 and atom.mimetype == "application/atom+xml"
    assert atom.headers["Cache-Control"].startswith("public")
    feed = ET.fromstring(atom.data)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = feed.findall("a:entry", ns)
    assert entries and all(e.find("a:id", ns) is not None for e in entries)
    assert len({e.findtext("a:id", namespaces=ns) for e in entries}) == len(entries)
    ics = client.get(f"/publico/municipios/{municipality.id}/plazos.ics")
    assert ics.status_code == 200 and ics.mimetype == "text/calendar"
    text = ics.text
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    assert text.count("BEGIN:VEVENT") >= 3
    assert client.get("/publico/municipios/999999/novedades.atom").status_code == 404


def test_a_petition_page_is_made_once_per_version_of_its_file(
    app: Flask,
    client: FlaskClient,
    session: Session,
    demo_loaded: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crowd reading a petition costs a read of its version each: the page is made once,
    and made again when what it shows changes (a document of its file made public, then
    withdrawn)."""
    document = session.exec(
        select(PetitionDocument).where(col(PetitionDocument.public).is_(False))
    ).first()
    assert document is not None
    url = f"/publico/peticiones/{document.petition_id}"
    title = str(escape(document.title))
    made: list[int] = []
    real = register.petition
    monkeypatch.setattr(
        register, "petition", lambda **kw: made.append(kw["petition_id"]) or real(**kw)
    )
    first = client.get(url)
    assert first.status_code == 200 and title not in first.text
    assert client.get(url).text == first.text
    assert made == [document.petition_id]
    actor = audit.Actor("secretaria@demo.tid.pr")
    attachments.set_public(session=session, actor=actor, document=document, public=True)
    session.commit()
    shown = client.get(url)
    assert title in shown.text and len(made) == 2
    attachments.withdraw(session=session, actor=actor, document=document, reason="Duplicado")
    session.commit()
    gone = client.get(url)
    assert title not in gone.text and len(made) == 3
    assert client.get("/publico/peticiones/999999").status_code == 404


def _condado(session: Session) -> Petition:
    """The demo's petition under study (received 2026-03-03: its ordinance due 2026-06-01)."""
    found = session.exec(
        select(Petition).where(Petition.state == PetitionState.UNDER_STUDY.value)
    ).first()
    assert found is not None
    return found


def test_an_overdue_petition_says_since_when_in_the_register_the_api_and_the_csv(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    petition = _condado(session)
    due = calendar.ordinance_due(petition.received_on).date
    register = f"/publico/municipios/{petition.municipality_id}"
    page = f"/publico/peticiones/{petition.id}"
    app.config["TODAY"] = due  # the last day: pending, not overdue
    assert "vencida" not in client.get(register).text
    assert "vencida" not in client.get(page).text
    api = client.get("/api/v1/public/petitions").get_json()["data"]
    row = next(r for r in api if r["id"] == petition.id)
    assert row["pending_due"] == due.isoformat() and row["overdue_since"] is None

    app.config["TODAY"] = due + timedelta(days=30)
    since = due + timedelta(days=1)
    spanish = f"vencida desde el {format_day(since, 'es')}"
    assert spanish in html.unescape(client.get(register).text)
    assert spanish in html.unescape(client.get(page).text)
    api = client.get("/api/v1/public/petitions").get_json()["data"]
    row = next(r for r in api if r["id"] == petition.id)
    assert row["pending_due"] == due.isoformat() and row["overdue_since"] == since.isoformat()
    archive = zipfile.ZipFile(io.BytesIO(client.get("/publico/datos/todo.zip").data))
    name = next(n for n in archive.namelist() if n.endswith("petitions.csv"))
    rows = list(csv.DictReader(io.StringIO(archive.read(name).decode("utf-8-sig"))))
    row = next(r for r in rows if r["id"] == str(petition.id))
    assert row["pending_due"] == due.isoformat() and row["overdue_since"] == since.isoformat()
    client.post("/lang/en", data={"next": "/publico"})
    english = f"overdue since {format_day(since, 'en')}"
    assert english in html.unescape(client.get(register).text)
    assert english in html.unescape(client.get(page).text)
