"""The district's whole record from its dashboard: the association downloads its own, an
administrator any district's; another district's association, the auditor and the clerk are
refused by the server (not only by the page, which shows them no button)."""

from __future__ import annotations

import io
import json
import zipfile

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
