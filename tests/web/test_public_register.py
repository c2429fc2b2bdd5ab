"""The public register of petitions: each petition's steps with their dates and deadlines,
whether each came in time, its ordinance; the municipality's Atom feed and its iCalendar of
deadlines, cacheable by anyone."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlmodel import Session, col, select

from tid.models import Municipality, Petition, PetitionDocument, PetitionState
from tid.services import audit
from tid.services.petitions import attachments
from tid.services.public import register


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
