"""The roll and billing pages: upload → preview → commit, scoping by district and role, the
billing run against the expected amount."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People, login
from tests.services.billing.helpers import ROLL, import_roll, make_ordinance
from tid.clock import today_in_puerto_rico
from tid.demo.roll import roll_csv
from tid.jobs import tasks
from tid.models import Bill, BillingRun, PropertyYear, RollImport
from tid.web import roll as roll_views


def _count(session: Session, model: type) -> int:
    return int(session.exec(select(func.count()).select_from(model)).one())


def _upload(client: FlaskClient, district_id: int, data: bytes, fy: str = "2026-27") -> str:
    response = client.post(
        f"/roll/{district_id}/import",
        data={"fiscal_year": fy, "file": (io.BytesIO(data), "roll.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302, response.get_data(as_text=True)[:400]
    match = re.search(r"/import/([0-9a-f]{64})$", response.location)
    assert match
    return match.group(1)


def test_upload_preview_commit(client: FlaskClient, people: People, session: Session) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    data = roll_csv(40)
    token = _upload(client, district_id, data)
    preview = client.get(f"/roll/{district_id}/import/{token}")
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "040-010-000-10" in page  # the first rows are shown
    assert _count(session, PropertyYear) == 0  # nothing written before the commit
    done = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert done.status_code == 302 and "job=" in done.location
    assert "data-job-status" in client.get(done.location).get_data(as_text=True)
    assert tasks.run_pending(client.application) == 1
    assert _count(session, PropertyYear) == 40
    shown = client.get(done.location).get_data(as_text=True)
    assert f"/roll/{district_id}/years/2026-27" in shown  # the link to the result
    # The imported upload is not kept: committing it again says so and starts nothing.
    gone = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert gone.status_code == 302 and "job=" not in gone.location
    assert tasks.run_pending(client.application) == 0
    # The same file uploaded again: nothing changes, and the page says so.
    assert _upload(client, district_id, data) == token
    again = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert tasks.run_pending(client.application) == 1
    assert _count(session, RollImport) == 1
    said = client.get(again.location).get_data(as_text=True)
    assert "Este archivo ya se importó para este año fiscal: no cambió nada." in said
    listing = client.get(f"/roll/{district_id}/years/2026-27")
    assert listing.status_code == 200 and "040-010-000-10" in listing.get_data(as_text=True)


def test_the_import_page_shows_the_job_while_the_worker_has_removed_the_upload(
    client: FlaskClient, people: People, session: Session
) -> None:
    """The worker deletes the imported upload a moment before the job is marked done: the
    page that refreshes in between shows the job under way, never "not found"."""
    login(client, people.association)
    district_id = people.district.id or 0
    token = _upload(client, district_id, roll_csv(5))
    started = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert started.status_code == 302 and "job=" in started.location
    for kept in (Path(client.application.instance_path) / "uploads").glob(f"{token}.*"):
        kept.unlink()  # as the worker does once the roll is in, before the job is done
    between = client.get(started.location)
    assert between.status_code == 200
    assert "data-job-status" in between.get_data(as_text=True)
    # An upload that is gone with no import of it under way is still not found.
    other = _upload(client, district_id, roll_csv(6))
    for kept in (Path(client.application.instance_path) / "uploads").glob(f"{other}.*"):
        kept.unlink()
    assert client.get(f"/roll/{district_id}/import/{other}").status_code == 404


def test_a_large_file_is_checked_by_a_worker_and_its_page_shows_the_kept_preview(
    client: FlaskClient, people: People, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past IN_REQUEST_BYTES (here: any file) the upload's check is a job: the page follows
    it, then shows the preview the worker kept, signed; a kept preview altered on disk is
    not read, and the file is checked again."""
    monkeypatch.setattr(roll_views, "IN_REQUEST_BYTES", 10)
    login(client, people.association)
    district_id = people.district.id or 0
    response = client.post(
        f"/roll/{district_id}/import",
        data={"fiscal_year": "2026-27", "file": (io.BytesIO(roll_csv(40)), "roll.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302 and "job=" in response.location
    token = re.search(r"/import/([0-9a-f]{64})", response.location).group(1)  # type: ignore[union-attr]
    checking = client.get(response.location).get_data(as_text=True)
    assert "data-job-status" in checking and "040-010-000-10" not in checking
    assert tasks.run_pending(client.application) == 1
    assert "/import/" in client.get(response.location).get_data(as_text=True)
    preview = client.get(f"/roll/{district_id}/import/{token}")
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200 and "040-010-000-10" in page
    assert _count(session, PropertyYear) == 0  # the check writes nothing
    kept = next((Path(client.application.instance_path) / "uploads").glob(f"{token}.*.preview"))
    kept.write_bytes(kept.read_bytes()[:-1] + b"x")  # altered: not the app's any more
    again = client.get(f"/roll/{district_id}/import/{token}").get_data(as_text=True)
    assert "040-010-000-10" not in again and f"/import/{token}/check" in again
    recheck = client.post(f"/roll/{district_id}/import/{token}/check")
    assert recheck.status_code == 302 and tasks.run_pending(client.application) == 1
    assert "040-010-000-10" in client.get(f"/roll/{district_id}/import/{token}").get_data(
        as_text=True
    )
    done = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert tasks.run_pending(client.application) == 1
    assert _count(session, PropertyYear) == 40
    assert not list(kept.parent.glob(f"{token}.*"))  # imported: nothing of it is kept
    assert f"/roll/{district_id}/years/2026-27" in client.get(done.location).get_data(as_text=True)


def test_the_preview_lists_every_error_and_the_commit_writes_nothing(
    client: FlaskClient, people: People, session: Session
) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    bad = ROLL.replace("José Rivera", "=HYPERLINK(1)").replace("4000.00", "-4000.00")
    token = _upload(client, district_id, bad.encode())
    preview = client.get(f"/roll/{district_id}/import/{token}", headers={"Accept-Language": "en"})
    page = preview.get_data(as_text=True)
    assert preview.status_code == 422
    assert "=HYPERLINK(1)" in page  # the value, escaped, next to its row and column
    assert '<td class="num" data-label="Fila">2</td><td data-label="Columna">owner</td>' in page
    assert (
        '<td class="num" data-label="Fila">4</td><td data-label="Columna">Valor tasado</td>' in page
    )
    response = client.post(f"/roll/{district_id}/import/{token}/commit")
    assert response.status_code == 302
    assert tasks.run_pending(client.application) == 1
    assert _count(session, RollImport) == 0 and _count(session, PropertyYear) == 0
    failed = client.get(response.location).get_data(as_text=True)
    assert "fila 2:" in failed  # the job says why, with the row


def test_too_large_a_file_is_refused(tmp_path, people: People, database_url: str) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import make_test_app

    app = make_test_app(database_url, tmp_path, ROLL_MAX_BYTES=100)
    client = app.test_client()
    login(client, people.association)
    response = client.post(
        f"/roll/{people.district.id}/import",
        data={"fiscal_year": "2026-27", "file": (io.BytesIO(ROLL.encode()), "roll.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert 'aria-invalid="true"' in response.get_data(as_text=True)
    app.extensions["tid.engine"].dispose()


def test_another_districts_association_is_refused(
    client: FlaskClient, people: People, session: Session
) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    login(client, people.other_association)
    district_id = people.district.id or 0
    for url in (
        f"/roll/{district_id}",
        f"/roll/{district_id}/years/2026-27",
        f"/roll/{district_id}/import",
        f"/roll/{district_id}/billing/new",
    ):
        assert client.get(url).status_code == 403, url
    assert client.post(f"/roll/{district_id}/billing/new", data={}).status_code == 403
    districts = client.get("/roll").get_data(as_text=True)
    assert people.other_district.name in districts and people.district.name not in districts


def test_an_uploaded_file_is_only_its_uploaders(
    app: Flask, client: FlaskClient, people: People
) -> None:
    login(client, people.association)
    token = _upload(client, people.district.id or 0, ROLL.encode())
    other = app.test_client()
    login(other, people.admin)
    assert other.get(f"/roll/{people.district.id}/import/{token}").status_code == 404


def test_billing_run_page(client: FlaskClient, people: People, session: Session) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    login(client, people.association)
    district_id = people.district.id or 0
    form = client.get(f"/roll/{district_id}/billing/new")
    assert form.status_code == 200
    response = client.post(
        f"/roll/{district_id}/billing/new", data={"fiscal_year": "2026-27", "due_date": ""}
    )
    assert response.status_code == 302
    assert tasks.run_pending(client.application) == 1
    run = session.exec(select(BillingRun)).one()
    shown = client.get(response.location).get_data(as_text=True)
    result = shown.split('class="job-result" href="')[1].split('"')[0]
    page = client.get(result, headers={"Accept-Language": "en"})
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "5,768.75" in text and "6,000.00" in text and "231.25" in text
    assert "Facturar de nuevo (corregir)" in text  # the active run, to its association
    listed = client.get("/roll", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert f"/roll/{district_id}/billing/{run.id}" in listed and "5,768.75" in listed
    # Again: nothing changes.
    client.post(f"/roll/{district_id}/billing/new", data={"fiscal_year": "2026-27"})
    assert tasks.run_pending(client.application) == 1
    assert _count(session, BillingRun) == 1 and _count(session, Bill) == 3
    # Too early a due date: the error is next to its field; nothing written.
    early = client.post(
        f"/roll/{district_id}/billing/new",
        data={"fiscal_year": "2026-27", "due_date": "2026-07-02"},
    )
    assert early.status_code == 422
    assert 'id="e-due_date"' in early.get_data(as_text=True)
    assert _count(session, BillingRun) == 1
    assert run.run_on <= today_in_puerto_rico()


def test_read_only_roles_see_but_cannot_run(
    client: FlaskClient, people: People, session: Session
) -> None:
    make_ordinance(session, people)
    import_roll(session, people)
    login(client, people.clerk)
    district_id = people.district.id or 0
    assert client.get(f"/roll/{district_id}").status_code == 200
    assert client.post(f"/roll/{district_id}/billing/new", data={}).status_code == 403
    assert client.get(f"/roll/{people.other_district.id}").status_code == 403  # Ponce's
    client.post("/logout")
    login(client, people.auditor)
    assert client.get(f"/roll/{people.other_district.id}").status_code == 200
    assert client.get(f"/roll/{district_id}/import").status_code == 403


def test_a_file_without_the_required_headers_names_them_and_offers_the_file_field_again(
    client: FlaskClient, people: People
) -> None:
    login(client, people.association)
    district_id = people.district.id or 0
    token = _upload(client, district_id, b"Catastro,Propietario\n040-010-000-10,Ana\n")
    response = client.get(f"/roll/{district_id}/import/{token}")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    # the columns it lacks by their labels, the headers that name them in small print
    assert "Las columnas que le faltan al archivo:" in text
    for label in ("Valor tasado", "Dirección postal", "Código postal"):
        assert label in text, label
    assert "<code>valor_tasado</code>" in page and "<code>codigo_postal</code>" in page
    words = " ".join(re.sub(r"<code>.*?</code>", "", page).split())  # the small print aside
    assert "assessed_value" not in words and "mailing_line1" not in words
    # the two present columns are not listed as missing
    lacking = text.split("Las columnas que le faltan al archivo:")[1].split("Revisar el archivo")[0]
    assert "Número de catastro" not in lacking and "Propietario" not in lacking
    # the form again, to choose another file, sent to the import (not the preview)
    assert re.search(rf'<form[^>]*action="/roll/{district_id}/import"', page)
    assert 'id="f-file"' in page and 'aria-invalid="true"' in page
    assert 'value="2026-27"' in page
