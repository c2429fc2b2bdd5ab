"""Moving in on the web: the association uploads the files, sees every bad row and the
totals, types the totals, and a worker books the position; the dashboard links to it; a
person who may not write the district's account cannot."""

from __future__ import annotations

import io
import re
from datetime import date
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People, login
from tests.services.aboard.support import (
    ACTOR,
    CONFIRMED,
    TODAY,
    district_with_rolls,
    example_files,
    load,
)
from tid.jobs import tasks
from tid.models import BillingRun, JournalEntry, OpeningPosition
from tid.services import aboard

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


def _reversal(client: FlaskClient, district_id: int, position_id: int, reason: str) -> Any:
    return client.post(
        f"/account/{district_id}/aboard/reversal",
        data={"position": str(position_id), "reason": reason},
    )


def test_the_position_is_reversed_on_the_web_and_refused_while_a_payment_depends_on_it(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    from decimal import Decimal

    from tid.services import ledger
    from tid.services.account import payments

    app.config["TODAY"] = "2026-02-15"
    district_id = district_with_rolls(session, people)
    booked = load(session, district_id, example_files("es"))
    session.commit()
    position_id = booked.position.id or 0
    paid = payments.record_payment(
        session=session,
        actor=ACTOR,
        district_id=district_id,
        paid_on=date(2026, 2, 1),
        amount=Decimal("315.00"),
        today=TODAY,
        key="old-notice",
        notice_number="N-2024-0101",
    )
    session.commit()
    login(client, people.association)
    page = client.get(f"/account/{district_id}/aboard").get_data(as_text=True)
    assert "Antes de poder revertirla como una sola:" in page and "revíertalo" not in page
    assert "reviértalo primero" in page
    refused = _reversal(client, district_id, position_id, "el saldo del banco estaba mal")
    assert refused.status_code == 422
    assert "no se puede revertir como una sola" in refused.get_data(as_text=True)
    empty = _reversal(client, district_id, position_id, " ")
    assert empty.status_code == 422 and "Indique" in empty.get_data(as_text=True)
    ledger.reverse_entry(
        session=session,
        actor=ACTOR,
        entry_id=paid.entry_id,
        on=date(2026, 2, 1),
        reason="depósito devuelto",
        today=TODAY,
    )
    session.commit()
    page = client.get(f"/account/{district_id}/aboard").get_data(as_text=True)
    assert 'name="reason"' in page
    done = _reversal(client, district_id, position_id, "el saldo del banco estaba mal")
    assert done.status_code == 302
    after = client.get(f"/account/{district_id}/aboard").get_data(as_text=True)
    assert "Posiciones de apertura revertidas" in after and "el saldo del banco estaba mal" in after
    assert 'name="file_bills"' in after  # the corrected files can be uploaded


def test_a_clerk_cannot_reverse_the_position(
    client: FlaskClient, session: Session, people: People
) -> None:
    district_id = district_with_rolls(session, people)
    booked = load(session, district_id, example_files("es"))
    session.commit()
    login(client, people.clerk)
    assert _reversal(client, district_id, booked.position.id or 0, "x").status_code in (403, 404)
    assert aboard.position_of(session=session, district_id=district_id) is not None


@pytest.mark.both_databases
def test_two_tabs_reversing_the_position_at_once_reverse_it_once(
    app: Flask, session: Session, people: People
) -> None:
    from tests.web.account.test_parallel_forms import TABS, assert_books_verify, at_once, events

    app.config["TODAY"] = "2026-02-15"
    district_id = district_with_rolls(session, people)
    booked = load(session, district_id, example_files("es"))
    session.commit()
    position_id = booked.position.id or 0
    sent = at_once(
        app,
        people.association,
        lambda c, i: _reversal(c, district_id, position_id, f"pestaña {i}"),
    )
    assert sorted(sent.codes) == [302] + [422] * (TABS - 1)
    assert events(session, "opening.reverse") == 1
    reversals = session.exec(select(JournalEntry).where(JournalEntry.kind == "reversal")).all()
    assert len(reversals) == 6
    assert_books_verify(session, district_id)
