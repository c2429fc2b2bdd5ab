"""The district's whole record from its dashboard: the association downloads its own, an
administrator any district's; another district's association, the auditor and the clerk are
refused by the server (not only by the page, which shows them no button)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from flask import Flask

from tests.conftest import login
from tid.demo.base import DEMO_PASSWORD
from tid.services import places

CONDADO = "Distrito de Mejoramiento Turístico de Condado"


def _condado(app: Flask) -> int:
    from sqlmodel import Session

    with app.app_context(), Session(app.extensions["tid.engine"]) as session:
        found = [d for d in places.districts(session=session) if d.name == CONDADO]
    return int(found[0].id or 0)


def _client(app: Flask, email: str):  # type: ignore[no-untyped-def]
    client = app.test_client()
    login(client, email, DEMO_PASSWORD)
    return client


def test_the_association_and_an_administrator_download_the_record(
    app: Flask, demo_loaded: str
) -> None:
    district_id = _condado(app)
    for email in ("asociacion.condado@demo.tid.pr", "admin@demo.tid.pr"):
        client = _client(app, email)
        page = client.get(f"/account/{district_id}").get_data(as_text=True)
        assert f"/account/{district_id}/record.zip" in page
        got = client.post(f"/account/{district_id}/record.zip")
        assert got.status_code == 200 and got.mimetype == "application/zip"
        with zipfile.ZipFile(io.BytesIO(got.data)) as package:
            descriptor = json.loads(package.read("datapackage.json"))
            assert descriptor["tid:district"]["name"] == CONDADO
            assert "data/journal_entry.csv" in package.namelist()


def test_others_are_refused_the_record(app: Flask, demo_loaded: str) -> None:
    district_id = _condado(app)
    for email in ("asociacion@demo.tid.pr", "auditor@demo.tid.pr", "secretaria@demo.tid.pr"):
        client = _client(app, email)
        page = client.get(f"/account/{district_id}")
        assert f"/account/{district_id}/record.zip" not in page.get_data(as_text=True)
        assert client.post(f"/account/{district_id}/record.zip").status_code == 403
    assert app.test_client().post(f"/account/{district_id}/record.zip").status_code == 302


def test_a_large_districts_record_is_made_by_a_job_with_its_progress(
    app: Flask, demo_loaded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tid.jobs import tasks
    from tid.services.district_record import export

    monkeypatch.setattr(export, "IN_REQUEST_ROWS", 10)  # Condado's 40 bills are many now
    district_id = _condado(app)
    client = _client(app, "asociacion.condado@demo.tid.pr")
    started = client.post(f"/account/{district_id}/record.zip", data={"job_token": "t" * 20})
    assert started.status_code == 302 and "job=" in started.location
    waiting = client.get(started.location).get_data(as_text=True)
    assert "data-job-status" in waiting
    assert tasks.run_pending(app) == 1
    done = client.get(started.location).get_data(as_text=True)
    link = done.split('class="job-result" href="')[1].split('"')[0]
    assert link.startswith(f"/account/{district_id}/record/")
    got = client.get(link)
    assert got.status_code == 200 and got.mimetype == "application/zip"
    with zipfile.ZipFile(io.BytesIO(got.data)) as package:
        assert json.loads(package.read("datapackage.json"))["tid:district"]["name"] == CONDADO
    # Another district's association cannot fetch it, nor a job that is not an export.
    other = _client(app, "asociacion@demo.tid.pr")
    assert other.get(link).status_code == 403
    job_id = int(link.rsplit("/", 1)[1].removesuffix(".zip"))
    assert client.get(f"/account/{district_id}/record/{job_id + 1}.zip").status_code == 404
