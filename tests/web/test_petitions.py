"""The clerk's petition pages: Spanish first, English second; errors next to their fields,
nothing written; scope by municipality; the PDF report and the calendar feed; fuzzing."""

from __future__ import annotations

import html
import re
from datetime import date
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from tests.conftest import People, examples, login
from tests.pdf_checks import assert_archival, pdf_text
from tid.clock import today_in_puerto_rico
from tid.models import AuditEvent, Ordinance, Petition
from tid.services import petitions as svc
from tid.services.audit_trail import audit

TODAY = date(2026, 3, 10)
ACTOR = audit.Actor("tests")


def _text(response: Any) -> str:
    """The page's visible text, tags removed and spaces collapsed."""
    body = response.get_data(as_text=True)
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _record(client: FlaskClient, people: People, **overrides: str) -> Any:
    data = {
        "municipality_id": str(people.municipality.id),
        "district_name": "DMT de Condado",
        "petitioner": "Hon. Alcalde de San Juan",
        "received_on": "2026-03-02",
        "documents": "Petición, plano y lista de propiedades.",
        **overrides,
    }
    return client.post("/petitions/new", data=data)


def _engine_session(app: Flask) -> Session:
    return Session(app.extensions["tid.engine"], expire_on_commit=False)


def test_recording_shows_the_ordinance_deadline_in_spanish_and_english(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    response = _record(client, people)
    assert response.status_code == 302
    petition_url = response.location
    page = _text(client.get(petition_url))
    assert "Vence la ordenanza 1 jun 2026" in page
    assert (
        "90 días a partir del 2 mar 2026 es el 31 may 2026, domingo; se traslada al 1 jun 2026"
        in page
    )
    # 2026-03-10 → 2026-06-01: 21 + 30 + 31 + 1 = 83 days.
    assert "Quedan 83 días." in page
    client.post("/lang/en", data={"next": petition_url})
    page = _text(client.get(petition_url))
    assert "Ordinance due Jun 1, 2026" in page
    assert "90 days from Mar 2, 2026 is May 31, 2026, a Sunday; moved to Jun 1, 2026" in page
    assert "83 days left." in page
    # the history, in words: the action's label, never its code nor a field's name
    assert "Petition recorded" in page and "petition.record" not in page
    assert "Received on" in page and "received_on" not in page


def test_a_future_receipt_is_refused_next_to_its_field_in_the_users_language(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    response = _record(client, people, received_on="2026-03-11", district_name="")
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert (
        'id="f-received_on" name="received_on" type="date" value="2026-03-11" aria-invalid="true"'
        in body
    )
    assert "El 11 mar 2026 es una fecha futura (hoy es 10 mar 2026)." in _text(response)
    assert 'id="e-district_name"' in body and "Este campo es obligatorio." in _text(response)
    client.post("/lang/en", data={"next": "/"})
    response = _record(client, people, received_on="2026-03-11")
    assert "Mar 11, 2026 is in the future (today is Mar 10, 2026)." in _text(response)
    with _engine_session(app) as session:
        assert session.exec(select(Petition)).all() == []


def test_a_clerk_cannot_record_or_see_another_municipalitys_petitions(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    response = _record(client, people, municipality_id=str(people.other_municipality.id))
    assert response.status_code == 422 and 'id="e-municipality_id"' in response.get_data(
        as_text=True
    )
    other = app.test_client()
    login(other, people.other_clerk)
    created = _record(other, people, municipality_id=str(people.other_municipality.id))
    assert created.status_code == 302
    assert client.get(created.location).status_code == 403
    assert (
        client.post(created.location + "/step/study", data={"on": "2026-03-03"}).status_code == 403
    )
    assert "DMT de Condado" not in _text(client.get("/petitions/"))
    assert "DMT de Condado" in _text(other.get("/petitions/"))
    auditor = app.test_client()
    login(auditor, people.auditor)
    assert auditor.get(created.location).status_code == 200
    assert (
        auditor.post(created.location + "/step/study", data={"on": "2026-03-03"}).status_code == 403
    )


def test_walking_a_petition_to_publication_through_the_pages(app: Flask, people: People) -> None:
    app.config["TODAY"] = date(2026, 4, 30)
    client = app.test_client()
    login(client, people.clerk)
    url = _record(client, people).location
    # An illegal transition: a clear message, not a 500, nothing written.
    response = client.post(url + "/step/approve", data={"on": "2026-03-05"})
    assert response.status_code == 422
    assert (
        "No se puede registrar la aprobación del alcalde mientras la petición está en "
        "estado «recibida»." in _text(response)
    )
    assert client.post(url + "/step/nonsense", data={}).status_code == 404
    assert client.post(url + "/step/study", data={"on": "2026-03-03"}).status_code == 302
    # The ordinance form refuses until all five findings exist.
    response = client.post(
        url + "/ordinance",
        data={
            "district_name": "DMT de Condado",
            "expected_amount": "1000",
            "term_years": "5",
            "formula": "0.01 * assessed_value",
            "association_name": "Asociación",
            "issued_on": "2026-03-20",
        },
    )
    assert response.status_code == 422 and "faltan: (a), (b), (c), (d), (e)" in _text(response)
    for letter in "abcde":
        response = client.post(
            url + "/findings",
            data={
                "factor": letter,
                "favourable": "no" if letter == "e" else "yes",
                "grounds": f"Fundamento {letter}",
                "on": "2026-03-10",
            },
        )
        assert response.status_code == 302
    # A non-numeric amount and a term of 0: each next to its field, nothing written.
    response = client.post(
        url + "/ordinance",
        data={
            "district_name": "DMT de Condado",
            "expected_amount": "mucho",
            "term_years": "0",
            "formula": "0.01 * assessed_value",
            "association_name": "Asociación",
            "issued_on": "2026-03-20",
        },
    )
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert 'id="e-expected_amount"' in body and 'id="e-term_years"' in body
    assert "La vigencia debe ser de al menos un año." in _text(response)
    with _engine_session(app) as session:
        assert session.exec(select(Ordinance)).all() == []
    response = client.post(
        url + "/ordinance",
        data={
            "number": "Ord. 14",
            "district_name": "DMT de Condado",
            "expected_amount": "1,250,000.00",
            "term_years": "10",
            "formula": "max(250.00, 0.0035 * assessed_value)",
            "association_name": "Asociación de Condado",
            "issued_on": "2026-03-20",
        },
    )
    assert response.status_code == 302
    page = _text(client.get(url))
    assert "determinación desfavorable sobre el factor e" in page  # one factor: the singular
    assert "$1,250,000.00" in page
    assert client.post(url + "/step/to_mayor", data={"on": "2026-03-23"}).status_code == 302
    page = _text(client.get(url))
    # 2026-03-23 + 30 = 2026-04-22, a Wednesday; from 2026-04-30: 8 days overdue.
    assert "Vence la decisión del alcalde 22 abr 2026" in page and "Vencido hace 8 días." in page
    # An approval before the mayor received the ordinance: refused next to the date.
    response = client.post(url + "/step/approve", data={"on": "2026-03-21"})
    assert response.status_code == 422
    assert 'id="e-approve-on"' in response.get_data(as_text=True)
    assert client.post(url + "/step/approve", data={"on": "2026-04-20"}).status_code == 302
    # Publication week: 2026-04-21 … 2026-04-27. The 29th is outside it.
    response = client.post(
        url + "/step/publish", data={"on": "2026-04-29", "newspaper": "El Vocero"}
    )
    assert response.status_code == 422
    assert "del 21 abr 2026 al 27 abr 2026" in _text(response)
    response = client.post(
        url + "/step/publish", data={"on": "2026-04-24", "newspaper": "El Vocero"}
    )
    assert response.status_code == 302
    assert client.post(url + "/step/crim", data={"on": "2026-04-27"}).status_code == 302
    assert client.post(url + "/step/association", data={"on": "2026-04-28"}).status_code == 302
    page = _text(client.get(url))
    assert "publicada" in page and "El Vocero" in page
    assert "Vence la notificación a los dueños" in page
    with _engine_session(app) as session:
        petition = session.exec(select(Petition)).one()
        assert petition.state == "published"
        actions = [e.action for e in svc.history(session=session, petition=petition)]
    assert actions[-3:] == [
        "petition.publish",
        "ordinance.crim_copy",
        "ordinance.association_receipt",
    ]


def _seed(app: Flask, people: People) -> None:
    with _engine_session(app) as session:
        for name, received, municipality in (
            ("DMT Tarde", "2026-01-02", people.municipality.id),  # due 2026-04-02: overdue
            ("DMT Pronto", "2026-03-05", people.municipality.id),  # due 2026-06-03
            ("DMT Ponce", "2026-03-01", people.other_municipality.id),
        ):
            svc.record_petition(
                session=session,
                actor=ACTOR,
                municipality_id=municipality,
                district_name=name,
                petitioner="Alcalde",
                received_on=received,
                documents="",
                today=date(2026, 5, 28),
            )
        session.commit()


def test_the_dashboard_filters_sorts_and_marks_overdue(app: Flask, people: People) -> None:
    app.config["TODAY"] = date(2026, 5, 28)
    _seed(app, people)
    client = app.test_client()
    login(client, people.admin)
    body = client.get("/petitions/").get_data(as_text=True)
    # Most urgent first: Tarde (overdue), Ponce (2026-05-30 → due 2026-06-01, 4 days), Pronto.
    order = [body.index(n) for n in ("DMT Tarde", "DMT Ponce", "DMT Pronto")]
    assert order == sorted(order)
    assert '<tr class="overdue">' in body
    filtered = client.get(f"/petitions/?municipality={people.other_municipality.id}")
    assert "DMT Ponce" in filtered.get_data(as_text=True)
    assert "DMT Tarde" not in filtered.get_data(as_text=True)
    assert "DMT Tarde" not in client.get("/petitions/?state=with_mayor").get_data(as_text=True)
    assert client.get("/petitions/?municipality=x&state=nope").status_code == 200
    pdf = client.get("/petitions/deadlines.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.data.startswith(b"%PDF")
    assert_archival(pdf.data, lang="es", tagged=True)
    report = pdf_text(pdf.data)
    assert "Al 28 may 2026" in report  # every day as the reader's language writes it
    assert not re.search(r"\d{4}-\d{2}-\d{2}", report)


def _unfold(text: str) -> str:
    return text.replace("\r\n ", "")


def test_the_calendar_feed_is_valid_scoped_and_revocable(app: Flask, people: People) -> None:
    app.config["TODAY"] = date(2026, 5, 28)
    _seed(app, people)
    client = app.test_client()
    login(client, people.clerk)
    page = client.post("/petitions/calendar/token").get_data(as_text=True)
    match = re.search(r'value="(http://[^"]+\.ics)"', page)
    assert match, page
    feed_url = match.group(1).replace("http://localhost", "")
    anonymous = app.test_client()
    feed = anonymous.get(feed_url)
    assert feed.status_code == 200
    assert feed.headers["Content-Type"].startswith("text/calendar")
    text = feed.get_data(as_text=True)
    assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") and text.endswith(
        "END:VCALENDAR\r\n"
    )
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    assert "\n" not in text.replace("\r\n", "")
    unfolded = _unfold(text)
    assert unfolded.count("BEGIN:VEVENT") == 2  # San Juan's two, not Ponce's
    assert "DMT Ponce" not in unfolded
    # the UIDs are the installation's (its BASE_URL's host and port)
    domain = re.escape(svc.uid_domain(app.config["BASE_URL"]))
    assert domain == r"127\.0\.0\.1:5000"
    assert re.search(rf"UID:tid-petition-\d+-ordinance@{domain}\r\n", unfolded)
    assert re.search(r"DTSTAMP:\d{8}T\d{6}Z\r\n", unfolded)
    # DMT Tarde: 2026-01-02 + 90 = 2026-04-02, a Thursday.
    assert "DTSTART;VALUE=DATE:20260402\r\nDTEND;VALUE=DATE:20260403\r\n" in unfolded
    assert "SUMMARY:Vence la ordenanza: DMT Tarde (San Juan)" in unfolded
    # A new link stops the old one; switching off stops every link.
    page = client.post("/petitions/calendar/token").get_data(as_text=True)
    second = re.search(r'value="(http://[^"]+\.ics)"', page)
    assert second and second.group(1) != match.group(1)
    assert anonymous.get(feed_url).status_code == 404
    second_url = second.group(1).replace("http://localhost", "")
    assert anonymous.get(second_url).status_code == 200
    assert client.post("/petitions/calendar/revoke").status_code == 302
    assert anonymous.get(second_url).status_code == 404
    assert anonymous.get("/petitions/calendar/guess.ics").status_code == 404


# --------------------------------------------------------------------------- fuzzing

TEXT = st.text(max_size=300)


def test_fuzz_the_petition_form(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)

    @settings(max_examples=examples(100))
    @given(TEXT, TEXT, TEXT, TEXT, TEXT)
    def post(municipality: str, name: str, petitioner: str, received: str, docs: str) -> None:
        response = client.post(
            "/petitions/new",
            data={
                "municipality_id": municipality,
                "district_name": name,
                "petitioner": petitioner,
                "received_on": received,
                "documents": docs,
            },
        )
        assert response.status_code in (302, 422), response.status_code

    post()


def test_fuzz_the_findings_ordinance_and_steps(app: Flask, people: People) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    url = _record(client, people).location
    assert client.post(url + "/step/study", data={"on": "2026-03-03"}).status_code == 302

    @settings(max_examples=examples(100))
    @given(TEXT, TEXT, TEXT, TEXT)
    def finding(factor: str, favourable: str, grounds: str, on: str) -> None:
        response = client.post(
            url + "/findings",
            data={
                "factor": factor,
                "favourable": favourable,
                "grounds": grounds,
                "on": on,
            },
        )
        assert response.status_code in (302, 422), response.status_code

    @settings(max_examples=examples(100))
    @given(st.tuples(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT))
    def ordinance(fields: tuple[str, ...]) -> None:
        names = (
            "number",
            "district_name",
            "expected_amount",
            "term_years",
            "formula",
            "association_name",
            "issued_on",
        )
        data = dict(zip(names, fields, strict=True))
        response = client.post(url + "/ordinance", data=data)
        assert response.status_code in (302, 422), response.status_code

    @settings(max_examples=examples(100))
    @given(st.sampled_from(svc_steps()), TEXT, TEXT, TEXT, TEXT)
    def step(action: str, on: str, notes: str, newspaper: str, confirm: str) -> None:
        response = client.post(
            url + f"/step/{action}",
            data={
                "on": on,
                "notes": notes,
                "newspaper": newspaper,
                "confirm": confirm,
            },
        )
        assert response.status_code in (302, 422), response.status_code

    finding()
    # With the five findings on record, the ordinance's own fields are what gets checked.
    for letter in "abcde":
        valid = {"factor": letter, "favourable": "yes", "grounds": "ok", "on": "2026-03-04"}
        assert client.post(url + "/findings", data=valid).status_code == 302
    ordinance()
    step()
    with _engine_session(app) as session:
        assert session.exec(select(AuditEvent)).first() is not None


def svc_steps() -> list[str]:
    from tid.web.petitions import STEP_ACTIONS

    return list(STEP_ACTIONS)


def test_a_clerk_corrects_a_recorded_date_with_a_reason_and_the_auditor_cannot(
    app: Flask, people: People
) -> None:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    petition_url = _record(client, people).location
    page = _text(client.get(petition_url))
    assert "Vence la ordenanza 1 jun 2026" in page and "Corregir un dato registrado" in page
    correct_url = petition_url.rstrip("/") + "/correct"
    # No reason and a bad date: both named, nothing written.
    bad = client.post(correct_url, data={"field": "received_on", "value": "2026-02-30"})
    assert bad.status_code == 422
    body = bad.get_data(as_text=True)
    assert 'id="e-correct-value"' in body and 'id="e-correct-reason"' in body
    assert "Vence la ordenanza 1 jun 2026" in _text(client.get(petition_url))
    # A reload of the refused form's address shows the form again, never 405.
    assert client.get(correct_url).status_code == 200
    good = client.post(
        correct_url,
        data={
            "field": "received_on",
            "value": "2026-02-27",
            "reason": "El sello de recibo dice 27 de febrero.",
        },
    )
    assert good.status_code == 302
    page = _text(client.get(petition_url))
    # The clock follows the corrected date; the history shows before, after and why.
    assert "Vence la ordenanza 28 may 2026" in page
    history = page.split("Historial")[-1]
    assert "Dato registrado corregido" in history
    assert "2 mar 2026" in history and "27 feb 2026" in history
    assert "El sello de recibo dice 27 de febrero." in history
    client.post("/logout")
    login(client, people.auditor)
    assert "Corregir un dato registrado" not in _text(client.get(petition_url))
    denied = client.post(
        correct_url, data={"field": "received_on", "value": "2026-02-26", "reason": "x"}
    )
    assert denied.status_code == 403


def test_the_dashboard_shows_a_new_petition_and_finding_at_the_next_request(
    client: FlaskClient, session: Session, people: People
) -> None:
    """The dashboard is kept per version of the register: a petition recorded and a factor
    found unfavorable show at the very next request; a clerk of another municipality, reading
    the same version, never sees them (the reader's scope is part of what is kept)."""
    login(client, people.clerk)
    other = client.application.test_client()
    login(other, people.other_clerk)
    day = today_in_puerto_rico()  # a petition received today: its clock is running
    before, elsewhere = _text(client.get("/petitions/")), _text(other.get("/petitions/"))
    assert "DMT Playa Kept" not in before
    petition = svc.record_petition(
        session=session,
        actor=audit.Actor("tests"),
        municipality_id=str(people.municipality.id),
        district_name="DMT Playa Kept",
        petitioner="Alcalde",
        received_on=day.isoformat(),
        documents="",
        today=day,
    )
    session.commit()
    shown = _text(client.get("/petitions/"))
    assert "DMT Playa Kept" in shown and "desfavorable" not in shown
    assert _text(other.get("/petitions/")) == elsewhere
    svc.record_finding(
        session=session,
        actor=audit.Actor("tests"),
        petition=petition,
        factor="b",
        favourable="no",
        grounds="No conviene.",
        on=day.isoformat(),
        today=day,
    )
    session.commit()
    assert "desfavorable" in _text(client.get("/petitions/"))
    assert "DMT Playa Kept" not in _text(other.get("/petitions/"))
