"""The roll's check pages: the year's changes filtered and in pages, answered by the
association, the CSV and the correction file, the statement signed and read by the clerk,
billing refused with the count and a link, and the public page saying the roll was verified."""

from __future__ import annotations

import io
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import date

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.pdf_checks import assert_archival, pdf_text
from tests.services.billing.helpers import ACTOR, make_ordinance
from tests.services.roll_check.test_year_check import LAST, ROLL_LAST, ROLL_THIS, THIS, _import
from tid.jobs import tasks
from tid.models import RollChange, RollStatement
from tid.services import billing
from tid.services.roll_check import answers


def _two_years(session: Session, people: People) -> None:
    make_ordinance(session, people)
    _import(session, people, ROLL_LAST, LAST)
    billing.run_billing(
        session=session,
        actor=ACTOR,
        district_id=people.district.id or 0,
        fiscal_year=LAST,
        run_on=date(2026, 7, 1),
    )
    session.commit()
    _import(session, people, ROLL_THIS, THIS)


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_the_association_answers_signs_and_the_clerk_reads(
    client: FlaskClient, session: Session, people: People
) -> None:
    _two_years(session, people)
    d = people.district.id
    login(client, people.association)
    page = client.get(f"/roll/{d}/check/{THIS}")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "040-010-001-05-001" in text and "10 " in text
    only_split = client.get(f"/roll/{d}/check/{THIS}?kind=split").get_data(as_text=True)
    assert "040-010-001-05-001" in only_split and "040-010-001-12" not in only_split
    csv_text = client.get(f"/roll/{d}/check/{THIS}/changes.csv").get_data(as_text=True)
    assert len(csv_text.strip().splitlines()) == 11  # the header and the 10 changes
    refused = client.get(f"/roll/{d}/billing/new?fiscal_year={THIS}").get_data(as_text=True)
    assert f"/roll/{d}/check/{THIS}?status=open" in refused
    token = _csrf(text)
    for change in session.exec(select(RollChange).where(RollChange.fiscal_year == THIS)):
        data = {"csrf_token": token, "answer": "accept"}
        if change.kind == "new":
            data = {
                "csrf_token": token,
                "answer": "send_back",
                "reason": "No existe",
                "treatment": "exclude",
            }
        answered = client.post(f"/roll/{d}/check/{THIS}/changes/{change.id}", data=data)
        assert answered.status_code == 302
    session.expire_all()
    assert not session.exec(select(RollChange).where(RollChange.status == "open")).all()
    crim = client.get(f"/roll/{d}/check/{THIS}/corrections.csv").get_data(as_text=True)
    assert "040-010-001-12" in crim and "No existe" in crim
    signed = client.post(
        f"/roll/{d}/check/{THIS}/statement", data={"csrf_token": token, "signed_by": "Ana Torres"}
    )
    assert signed.status_code == 302
    statement = session.exec(select(RollStatement)).one()
    pdf = client.get(f"/roll/{d}/statements/{statement.id}.pdf")
    assert pdf.status_code == 200
    assert_archival(pdf.data, lang="es", author="Asociación del Viejo San Juan", tagged=True)
    said = pdf_text(pdf.data)
    assert statement.reference in said and "Ana Torres" in said
    assert statement.code[:4] in said  # the verification code, as printed
    client.get("/logout")
    verify = client.get(f"/verificar/{statement.code}")
    assert verify.status_code == 200 and statement.reference in verify.get_data(as_text=True)
    assert "040-010-001-12" not in verify.get_data(as_text=True)
    checked = client.post(
        f"/verificar/{statement.code}",
        data={
            "csrf_token": _csrf(verify.get_data(as_text=True)),
            "pdf": (io.BytesIO(pdf.data), "v.pdf"),
        },
        content_type="multipart/form-data",
    )
    assert "es, byte a byte, el documento archivado" in checked.get_data(as_text=True)
    forged = client.post(
        f"/verificar/{statement.code}",
        data={
            "csrf_token": _csrf(verify.get_data(as_text=True)),
            "pdf": (io.BytesIO(pdf.data + b"%"), "v.pdf"),
        },
        content_type="multipart/form-data",
    )
    assert "es, byte a byte, el documento archivado" not in forged.get_data(as_text=True)
    login(client, people.clerk)
    district_page = client.get(f"/roll/{d}").get_data(as_text=True)
    assert statement.reference in district_page
    assert client.get(f"/roll/{d}/statements/{statement.id}.pdf").status_code == 200
    assert (
        client.post(
            f"/roll/{d}/check/{THIS}/statement", data={"csrf_token": token, "signed_by": "X"}
        ).status_code
        == 403
    )
    public = client.get(f"/publico/distritos/{d}").get_data(as_text=True)
    assert "Roll verified on" in public or "Registro verificado el" in public
    assert "040-010-001-12" not in public


def test_another_district_cannot_answer(
    client: FlaskClient, session: Session, people: People
) -> None:
    _two_years(session, people)
    change = session.exec(select(RollChange)).first()
    assert change is not None
    login(client, people.other_association)
    page = client.get(f"/roll/{people.district.id}/check/{THIS}")
    assert page.status_code == 403
    own = client.get(f"/roll/{people.other_district.id}/check/{THIS}").get_data(as_text=True)
    answered = client.post(
        f"/roll/{people.district.id}/check/{THIS}/changes/{change.id}",
        data={"csrf_token": _csrf(own), "answer": "accept"},
    )
    assert answered.status_code == 403
    session.refresh(change)
    assert change.status == "open"


def test_the_preview_shows_the_years_changes_and_the_import_job_records_them(
    client: FlaskClient, session: Session, people: People
) -> None:
    make_ordinance(session, people)
    _import(session, people, ROLL_LAST, LAST)
    d = people.district.id or 0
    login(client, people.association)
    response = client.post(
        f"/roll/{d}/import",
        data={"fiscal_year": THIS, "file": (io.BytesIO(ROLL_THIS.encode()), "roll.csv")},
        content_type="multipart/form-data",
    )
    token = response.location.rsplit("/", 1)[1]
    preview = client.get(f"/roll/{d}/import/{token}").get_data(as_text=True)
    assert "Los cambios del año frente a 2026-27" in preview
    assert "Segregación" in preview and "$1,000.00" in preview  # the gone one's impost last year
    assert not session.exec(select(RollChange)).all()  # the preview writes nothing
    client.post(f"/roll/{d}/import/{token}/commit")
    assert tasks.run_pending(client.application) == 1
    assert len(session.exec(select(RollChange)).all()) == 10


@pytest.mark.both_databases
def test_the_statement_signed_from_parallel_tabs_is_signed_once(
    app: Flask, session: Session, people: People
) -> None:
    """Every tab signs the answered year's statement at once: one statement; the others are
    refused, the year's statement being signed with these figures already."""
    _two_years(session, people)
    d = people.district.id
    for change in session.exec(select(RollChange).where(RollChange.fiscal_year == THIS)):
        new = change.kind == "new"  # a new property can only be kept out
        answers.answer(
            session=session,
            actor=ACTOR,
            district_id=d or 0,
            fiscal_year=THIS,
            change_id=change.id or 0,
            accept=not new,
            reason="No existe" if new else "",
        )
    session.commit()
    tabs = 4
    clients = []
    for i in range(tabs):
        client = app.test_client()
        login(client, people.association, ip=f"127.0.0.{20 + i}")
        clients.append(client)
    barrier = threading.Barrier(tabs)
    url = f"/roll/{d}/check/{THIS}/statement"

    def sign(i: int) -> int:
        token = _csrf(clients[i].get(f"/roll/{d}/check/{THIS}").get_data(as_text=True))
        barrier.wait(timeout=120)
        return clients[i].post(url, data={"csrf_token": token, "signed_by": "Ana"}).status_code

    with ThreadPoolExecutor(tabs) as pool:
        codes = list(pool.map(sign, range(tabs)))
    session.expire_all()
    assert len(session.exec(select(RollStatement)).all()) == 1
    assert codes == [302] * tabs  # each back to the check page, which says what happened
