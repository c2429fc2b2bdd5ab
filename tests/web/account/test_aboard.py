"""Moving in on the web: the association uploads the files, sees every bad row and the
totals, types the totals, and a worker books the position; the dashboard links to it; a
person who may not write the district's account cannot."""

from __future__ import annotations

import io
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People, login
from tests.services.aboard.support import CONFIRMED, district_with_rolls, example_files
from tid import tasks
from tid.models import BillingRun, JournalEntry, OpeningPosition

BAD_BILLS = (
    "numero_de_catastro,ano_fiscal,facturado,pagado,fecha_de_vencimiento\n"
    "040-010-001-01,2024-25,315.00,400.00,2024-09-30\n"
)


def upload(client: FlaskClient, district_id: int, files: dict[str, tuple[str, bytes]]) -> str:
    data = {f"file_{kind}": (io.BytesIO(body), name) for kind, (name, body) in files.items()}
    sent = client.post(
        f"/account/{district_id}/aboard", data=data, content_type="multipart/form-data"
    )
    assert sent.status_code == 302, sent.get_data(as_text=True)[:800]
    return sent.headers["Location"]


def entries(session: Session) -> int:
    return int(session.exec(select(func.count()).select_from(JournalEntry)).one())


def test_upload_preview_confirm_and_book(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    app.config["TODAY"] = "2026-02-15"
    district_id = district_with_rolls(session, people)
    login(client, people.association)
    dashboard = client.get(f"/account/{district_id}").get_data(as_text=True)
    assert f"/account/{district_id}/aboard" in dashboard
    page = client.get(f"/account/{district_id}/aboard")
    assert page.status_code == 200
    assert "/static/aboard/es/facturas.csv" in page.get_data(as_text=True)
    missing = client.post(
        f"/account/{district_id}/aboard", data={}, content_type="multipart/form-data"
    )
    assert missing.status_code == 422
    # A bad row is named at its row, and nothing can be booked.
    bad = client.get(upload(client, district_id, example_files("es", bills=BAD_BILLS)))
    assert bad.status_code == 422
    text = bad.get_data(as_text=True)
    assert "El monto pagado es mayor que el monto facturado." in text
    assert 'name="total:bank"' not in text
    # The good files: their totals, typed.
    preview_url = upload(client, district_id, example_files("es"))
    preview = client.get(preview_url)
    assert preview.status_code == 200
    assert 'name="total:receivable:2024-25"' in preview.get_data(as_text=True)
    typed = {f"total:{k}": str(v) for k, v in CONFIRMED.items()}
    job_token = re.search(r'name="job_token" value="([^"]+)"', preview.get_data(as_text=True))
    assert job_token is not None
    wrong = client.post(
        preview_url, data={**typed, "total:bank": "12000.00", "job_token": job_token.group(1)}
    )
    assert wrong.status_code == 422
    assert entries(session) == 0
    booking = client.post(preview_url, data={**typed, "job_token": job_token.group(1)})
    assert booking.status_code == 302
    assert tasks.run_pending(client.application) == 1
    assert entries(session) == 6
    assert session.exec(select(OpeningPosition)).one().district_id == district_id
    done = client.get(f"/account/{district_id}/aboard")
    assert done.status_code == 200
    assert "2026" in done.get_data(as_text=True)
    # The statement of the cut-over year opens with the balance brought forward and says
    # so; the earlier years show on it and on the public page.
    statement = client.get(f"/account/{district_id}/statement?fy=2025-26").get_data(as_text=True)
    assert "Saldo inicial traído de los libros anteriores" in statement
    assert "98,750.00" in statement or "98.750,00" in statement
    public = client.get(f"/publico/distritos/{district_id}").get_data(as_text=True)
    assert "2023-24" in public and ("101,300.00" in public or "101.300,00" in public)
    # The years brought show as billing runs of the roll's page, each with its bills.
    for run in session.exec(select(BillingRun)):
        assert client.get(f"/roll/{district_id}/billing/{run.id}").status_code == 200
    assert client.get(f"/roll/{district_id}").status_code == 200
    # The booked files' upload is gone: their preview page says nothing can be booked again.
    after = client.get(preview_url, follow_redirects=False)
    assert after.status_code in (302, 404)


def test_only_who_writes_the_account_moves_in(
    client: FlaskClient, session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    for person in (people.auditor, people.clerk, people.other_association):
        login(client, person)
        assert client.get(f"/account/{district_id}/aboard").status_code in (403, 404)
        client.post("/logout")


def test_large_files_are_checked_by_a_worker(
    app: Flask,
    client: FlaskClient,
    session: Session,
    people: People,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files past the in-request size are checked in the background, then shown and
    booked as any."""
    monkeypatch.setattr("tid.web.account.aboard.IN_REQUEST_BYTES", 100)
    app.config["TODAY"] = "2026-02-15"
    district_id = district_with_rolls(session, people)
    login(client, people.association)
    preview_url = upload(client, district_id, example_files("en"))
    assert "job=" in preview_url
    waiting = client.get(preview_url).get_data(as_text=True)
    assert 'name="total:bank"' not in waiting
    assert tasks.run_pending(client.application) == 1
    shown = client.get(preview_url.split("?")[0])
    assert shown.status_code == 200
    page = shown.get_data(as_text=True)
    assert 'name="total:receivable:2025-26"' in page
    job_token = re.search(r'name="job_token" value="([^"]+)"', page)
    assert job_token is not None
    typed = {f"total:{k}": str(v) for k, v in CONFIRMED.items()}
    booking = client.post(
        preview_url.split("?")[0], data={**typed, "job_token": job_token.group(1)}
    )
    assert booking.status_code == 302
    assert tasks.run_pending(client.application) == 1
    assert entries(session) == 6
