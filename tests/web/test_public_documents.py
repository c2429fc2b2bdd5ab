"""A district's documents of record in the open: its association publishes the year's
statement (made as PDF/A, archived), and anyone downloads it from the district's page, the
API and the data package with its archived SHA-256 — a PDF holding the year's figures and
nothing of an owner. Withdrawn, or published by another district, a document appears
nowhere and its address answers 404; publishing and withdrawing are in the history."""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile

from flask import Flask
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlmodel import Session, select

from tests.conftest import login
from tests.pdf_checks import structure_problems
from tests.web.test_public_privacy import _secrets
from tid.demo import ACCOUNT_DISTRICT, ACCOUNT_USER, DEMO_PASSWORD
from tid.models import ArchivedDocument, AuditEvent, District, PublishedDocument
from tid.render import formats
from tid.rules.periods import parse_fiscal_year
from tid.services.account import audit_statement


def _everywhere(client: FlaskClient, district_id: int) -> tuple[str, list[dict], list[dict]]:
    """The district's page, the API's documents and the data package's documents.csv."""
    page = client.get(f"/publico/distritos/{district_id}").text
    api = client.get(f"/api/v1/public/documents?district_id={district_id}").get_json()["data"]
    data = client.get(f"/publico/datos/{district_id}.zip").data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        rows = list(csv.DictReader(io.StringIO(archive.read("documents.csv").decode())))
    return page, api, rows


def test_a_published_statement_downloads_as_archived_and_a_withdrawn_one_nowhere(
    app: Flask, client: FlaskClient, session: Session, demo_loaded: str
) -> None:
    condado = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).one()
    other = session.exec(select(District).where(District.id != condado.id)).first()
    assert other is not None
    d = condado.id or 0
    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    publishing = f"/publico/distritos/{d}/publicacion"
    refused = client.post(f"{publishing}/documentos", data={"fiscal_year": "1999-00"})
    assert refused.status_code == 422 and 'id="e-fiscal_year"' in refused.text
    answer = client.post(f"{publishing}/documentos", data={"fiscal_year": "2025-26"})
    assert answer.status_code == 302
    client.post("/logout")

    record = session.exec(select(PublishedDocument)).one()
    archived = session.get(ArchivedDocument, record.sha256)
    assert archived is not None and record.fiscal_year == "2025-26"
    page, api, rows = _everywhere(client, d)
    address = f"/publico/distritos/{d}/documentos/{record.id}"
    assert address in page and record.sha256 in page
    assert [(r["key"], r["sha256"], r["path"]) for r in api] == [
        (str(record.id), record.sha256, address)
    ]
    assert [(r["id"], r["sha256"]) for r in rows] == [(str(record.id), record.sha256)]
    download = client.get(address)
    assert download.status_code == 200 and download.mimetype == "application/pdf"
    assert hashlib.sha256(download.data).hexdigest() == record.sha256
    assert download.data == bytes(archived.content)
    assert download.headers["X-Content-SHA256"] == record.sha256
    assert structure_problems(download.data) == []  # headings, each table's header cells
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(download.data)).pages)
    st = audit_statement.statement(session=session, district_id=d, fy=parse_fiscal_year("2025-26"))
    assert formats.money(st.closing_balance, "es") in text
    assert [s for s in _secrets(session, app.instance_path) if s in text] == []
    # the same document under another district's address is not there
    assert client.get(f"/publico/distritos/{other.id}/documentos/{record.id}").status_code == 404

    login(client, ACCOUNT_USER, DEMO_PASSWORD)
    client.post(f"{publishing}/documentos/{record.id}/retirar")
    client.post("/logout")
    assert client.get(address).status_code == 404
    page, api, rows = _everywhere(client, d)
    assert record.sha256 not in page and api == [] and rows == []
    assert session.get(ArchivedDocument, record.sha256) is not None  # the archive keeps it
    actions = session.exec(
        select(AuditEvent.action).where(AuditEvent.entity_type == "published_document")
    ).all()
    assert actions == ["published_document.publish", "published_document.withdraw"]
