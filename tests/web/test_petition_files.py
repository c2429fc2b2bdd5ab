"""A petition's file: documents attached through the page, versions never overwritten,
every bad file refused at its field with nothing written (no row, no file), downloads that
never run script, the search over the documents' text, and the proofs the law asks for."""

from __future__ import annotations

import html
import io
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests import legislature_files as files
from tests.conftest import People, login
from tests.pdf_checks import structure, structure_problems
from tid.config import archive_dir
from tid.jobs import tasks
from tid.models import (
    DocumentVersion,
    Municipality,
    Ordinance,
    Petition,
    PetitionDocument,
    StoredFile,
)
from tid.rules.errors import InputError
from tid.services import petitions as svc
from tid.services.audit_trail import audit
from tid.services.files import file_store

TODAY = date(2026, 3, 10)
ACTOR = audit.Actor("tests")


def _petition(app: Flask, people: People) -> int:
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        petition = svc.record_petition(
            session=session,
            actor=ACTOR,
            today=TODAY,
            allowed_municipalities=None,
            municipality_id=str(people.municipality.id),
            district_name="DMT de Condado",
            petitioner="Hon. Alcalde",
            received_on="2026-03-02",
            documents="",
        )
        session.commit()
        return petition.id or 0


@pytest.fixture
def clerk(app: Flask, people: People) -> FlaskClient:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    return client


def _attach(client: FlaskClient, petition_id: int, data: bytes, name: str, **form: str) -> Any:
    fields = {"title": "Informe", "kind": "report", "step": "", "dated_on": "2026-03-05"}
    fields.update(form)
    return client.post(
        f"/petitions/{petition_id}/file",
        data={**fields, "file": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def _counts(app: Flask) -> tuple[int, int, int, int]:
    folder = archive_dir(app.config)
    on_disk = len(list(folder.glob("??/*"))) if folder.is_dir() else 0
    with Session(app.extensions["tid.engine"]) as session:
        return (
            len(session.exec(select(PetitionDocument)).all()),
            len(session.exec(select(DocumentVersion)).all()),
            len(session.exec(select(StoredFile)).all()),
            on_disk,
        )


def test_a_document_is_attached_read_and_found(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.pdf("Información del distrito"), "informe.pdf")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    assert _counts(app) == (1, 1, 1, 1)
    assert tasks.run_pending(app) >= 1
    page = clerk.get(f"/petitions/{petition_id}/file").get_data(as_text=True)
    assert "informe.pdf" in page
    found = clerk.get("/petitions/search?q=informacion").get_data(as_text=True)
    assert "<mark>Información</mark>" in found
    assert clerk.get("/petitions/search?q=<script>").status_code == 200
    with Session(app.extensions["tid.engine"]) as session:
        version = session.exec(select(DocumentVersion)).one()
        assert version.text_state == "indexed" and version.pages == 1
    download = clerk.get(f"/petitions/file/version/{version.id}")
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert download.headers["X-Content-Type-Options"] == "nosniff"
    view = clerk.get(f"/petitions/file/version/{version.id}?view=1")
    assert view.headers["Content-Disposition"].startswith("inline;")
    assert "sandbox" in view.headers["Content-Security-Policy"]
    assert view.data.startswith(b"%PDF")


def test_a_docx_is_found_by_a_word_inside_it(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.docx("Plano de las aceras"), "plano.docx")
    assert response.status_code == 302
    tasks.run_pending(app)
    found = clerk.get("/petitions/search?q=aceras").get_data(as_text=True)
    assert "<mark>aceras</mark>" in found
    other = app.test_client()
    login(other, people.other_clerk)
    assert "<mark>" not in other.get("/petitions/search?q=aceras").get_data(as_text=True)


BAD = [
    ("scan.exe", b"MZ\x90\x00" + b"\x00" * 100, "Este tipo de archivo no se acepta"),
    ("a.pdf", files.pdf_with_javascript(), "JavaScript"),
    ("b.pdf", files.pdf_with_launch(), "una acción de ejecución"),
    ("c.pdf", files.pdf_with_embedded_file(), "archivos incrustados"),
    ("d.pdf", files.encrypted_pdf(), "cifrado"),
    ("e.pdf", files.broken_pdf(), "dañado"),
    ("../../etc/passwd.pdf", files.pdf(), "incluye carpetas"),
    ("mal\u202efdp.exe", files.pdf(), "caracteres de control"),
    ("acta\x07\x1b[2J.pdf", files.pdf(), "caracteres de control"),
    ("acta\tfinal.pdf", files.pdf(), "caracteres de control"),
    ("empty.pdf", b"", "vacío"),
    ("page.html", b"<html><script>alert(1)</script></html>", "Este tipo de archivo no se acepta"),
]


@pytest.mark.parametrize(("name", "data", "said"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_at_its_field_and_nothing_is_written(
    app: Flask, people: People, clerk: FlaskClient, name: str, data: bytes, said: str
) -> None:
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, data, name)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert re.search(r'id="e-file">[^<]*' + re.escape(said), page), page[:3000]
    assert _counts(app) == (0, 0, 0, 0)


def test_a_file_the_archive_cannot_finish_writing_is_said_at_the_field_and_leaves_nothing(
    app: Flask, people: People, clerk: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from tid.services.files import file_store as store_module

    def full(_handle: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    fsync = os.fsync
    monkeypatch.setattr(store_module.os, "fsync", full)
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.pdf("Sin espacio"), "informe.pdf")
    assert response.status_code == 422
    assert re.search(r'id="e-file">[^<]*no se pudo guardar', response.get_data(as_text=True))
    assert _counts(app) == (0, 0, 0, 0)
    folder = archive_dir(app.config)
    assert not [p for p in folder.rglob("*") if p.is_file()]  # no half-written file either
    monkeypatch.setattr(store_module.os, "fsync", fsync)
    assert _attach(clerk, petition_id, files.pdf("Con espacio"), "informe.pdf").status_code == 302


@pytest.mark.both_databases
def test_two_clerks_sending_a_new_version_at_the_same_moment_keep_one_and_tell_the_other(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    import threading

    from tid.services.petitions import attachments

    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.pdf("primera"), "v1.pdf")
    _url, seen = _document_url(app)
    ready = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def send(who: str) -> None:
        with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
            document = session.exec(select(PetitionDocument)).one()
            ready.wait(timeout=30)
            try:
                attachments.replace(
                    session=session,
                    actor=audit.Actor(who),
                    document=document,
                    replaces=seen,
                    store=attachments.store_for(app.config),
                    upload=attachments.Upload(files.pdf(f"de {who}"), f"{who}.pdf"),
                    reason=f"Enviada por {who}",
                )
                session.commit()
                outcomes[who] = "saved"
            except InputError as exc:
                session.rollback()
                outcomes[who] = str(exc.message)

    threads = [threading.Thread(target=send, args=(who,)) for who in ("ana", "luis")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes.values())[1] == "saved", outcomes
    assert "Another clerk replaced this document" in sorted(outcomes.values())[0]
    winner = next(who for who, said in outcomes.items() if said == "saved")
    assert [v.filename for v in _version_rows(app)] == ["v1.pdf", f"{winner}.pdf"]
    assert _counts(app) == (1, 2, 2, 2)  # the other's file was never kept


def test_a_zip_bomb_in_a_docx_is_refused(app: Flask, people: People, clerk: FlaskClient) -> None:
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.docx_bomb(), "bomba.docx")
    assert response.status_code == 422
    assert "se descomprime a más de" in response.get_data(as_text=True)
    assert _counts(app) == (0, 0, 0, 0)


def test_an_oversize_file_is_refused_at_its_field(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    app.config["DOCUMENT_MAX_MB"] = 1
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.pdf() + b" " * 2**21, "big.pdf")
    assert response.status_code == 422
    assert "pasa de 1 MB" in response.get_data(as_text=True)
    assert _counts(app) == (0, 0, 0, 0)


def test_a_refused_field_beside_a_good_file_leaves_no_file(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    response = _attach(clerk, petition_id, files.pdf(), "ok.pdf", kind="nonsense", title="")
    assert response.status_code == 422
    assert _counts(app) == (0, 0, 0, 0)


def _document_url(app: Flask) -> tuple[str, int]:
    with Session(app.extensions["tid.engine"]) as session:
        document = session.exec(select(PetitionDocument)).one()
        return f"/petitions/{document.petition_id}/file/{document.id}", document.version


def test_a_new_version_keeps_the_old_and_a_stale_one_is_refused(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.pdf("primera"), "v1.pdf")
    url, seen = _document_url(app)

    def send(text: str, replaces: int) -> Any:
        return clerk.post(
            url,
            data={
                "replaces": str(replaces),
                "reason": "Firmado",
                "file": (io.BytesIO(files.pdf(text)), "v2.pdf"),
            },
            content_type="multipart/form-data",
        )

    assert send("segunda", seen).status_code == 302
    stale = send("tercera", seen)  # the other clerk saw version 1 too
    assert stale.status_code == 422
    assert "Otra persona reemplazó este documento" in stale.get_data(as_text=True)
    assert _counts(app) == (1, 2, 2, 2)
    page = clerk.get(url).get_data(as_text=True)
    assert "v1.pdf" in page and "v2.pdf" in page and "Firmado" in page
    empty = clerk.post(url, data={"action": "withdraw", "withdraw_reason": ""})
    assert empty.status_code == 422 and 'id="e-withdraw_reason"' in empty.get_data(as_text=True)
    withdrawn = clerk.post(url, data={"action": "withdraw", "withdraw_reason": "Duplicado"})
    assert withdrawn.status_code == 302
    assert "Duplicado" in clerk.get(url).get_data(as_text=True)
    assert _counts(app) == (1, 2, 2, 2)  # withdrawn: still in the history and the archive


def test_a_rolled_back_upload_leaves_no_file(app: Flask, people: People) -> None:
    from tid.services.petitions import attachments

    petition_id = _petition(app, people)
    folder = archive_dir(app.config)
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        petition = session.get(Petition, petition_id)
        assert petition is not None
        attachments.attach(
            session=session,
            actor=ACTOR,
            petition=petition,
            store=attachments.Store(folder, 2**20),
            upload=attachments.Upload(files.pdf("interrumpida"), "x.pdf"),
            title="Interrumpida",
            kind="other",
            step="",
            dated_on="2026-03-05",
            public=False,
            today=TODAY,
        )
        assert len(list(folder.glob("??/*"))) == 1
        session.rollback()  # the request died before its commit
    assert _counts(app) == (0, 0, 0, 0)


def test_the_archive_verify_and_backup_carry_the_files(
    app: Flask, people: People, clerk: FlaskClient, tmp_path: Path
) -> None:
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.odt("Carta"), "carta.odt")
    runner = app.test_cli_runner()
    result = runner.invoke(args=["archive", "verify", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "1 file(s) of the legislature" in result.output
    stored = next(archive_dir(app.config).glob("??/*"))
    stored.write_bytes(b"altered")
    result = runner.invoke(args=["archive", "verify"])
    assert result.exit_code == 1 and stored.name in result.output


def test_a_backup_carries_the_files_and_a_restore_puts_them_back(
    app: Flask, people: People, clerk: FlaskClient, tmp_path: Path
) -> None:
    import shutil

    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.docx("Respaldo"), "respaldo.docx")
    runner = app.test_cli_runner()
    target = tmp_path / "backup.tar.gz"
    result = runner.invoke(args=["backup", str(target)])
    assert result.exit_code == 0, result.output
    folder = archive_dir(app.config)
    before = {p.name: p.read_bytes() for p in folder.glob("??/*")}
    shutil.rmtree(folder)
    result = runner.invoke(args=["restore", str(target), "--replace"])
    assert result.exit_code == 0, result.output
    assert {p.name: p.read_bytes() for p in folder.glob("??/*")} == before


def test_only_public_documents_reach_the_public_side(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    from tid.services.public.public_documents import public_documents

    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.pdf("Ordenanza firmada"), "ord.pdf", public="yes")
    _attach(clerk, petition_id, files.pdf("Carta privada"), "privada.pdf", title="Privada")
    with Session(app.extensions["tid.engine"]) as session:
        shown = public_documents(session=session, petition_id=petition_id)
        versions = {v.filename: v.id for v in session.exec(select(DocumentVersion))}
    assert [d["title"] for d in shown] == ["Informe"]
    assert [v["filename"] for v in shown[0]["versions"]] == ["ord.pdf"]
    assert "created_by" not in shown[0] and "uploaded_by" not in shown[0]["versions"][0]
    anonymous = app.test_client()
    assert anonymous.get(f"/petitions/public/file/version/{versions['ord.pdf']}").status_code == 200
    assert (
        anonymous.get(f"/petitions/public/file/version/{versions['privada.pdf']}").status_code
        == 404
    )
    assert anonymous.get(f"/petitions/file/version/{versions['privada.pdf']}").status_code in (
        302,
        401,
        403,
    )
    # The public register's page of the petition lists the public one, never the other.
    page = anonymous.get(f"/publico/peticiones/{petition_id}").get_data(as_text=True)
    assert f"/petitions/public/file/version/{versions['ord.pdf']}" in page
    assert "Privada" not in page and "privada.pdf" not in page
    assert f'/petitions/public/file/version/{versions["privada.pdf"]}"' not in page


def _approved(app: Flask, people: People) -> int:
    """A petition whose ordinance the mayor approved on 2026-04-20."""
    petition_id = _petition(app, people)
    day = date(2026, 4, 30)
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        petition = session.get(Petition, petition_id)
        assert petition is not None
        common: dict[str, Any] = {"session": session, "actor": ACTOR, "petition": petition}
        svc.start_study(**common, on="2026-03-03", today=day)
        for factor in "abcde":
            svc.record_finding(
                **common, today=day, factor=factor, favourable="yes", grounds="Sí", on="2026-03-10"
            )
        svc.issue_ordinance(
            **common,
            today=day,
            number="Ord. 14",
            district_name="DMT de Condado",
            expected_amount="1,250,000.00",
            term_years="10",
            formula="max(250.00, 0.0035 * assessed_value)",
            association_name="Asociación de Condado",
            issued_on="2026-03-20",
        )
        svc.send_to_mayor(**common, on="2026-03-23", today=day)
        svc.mayor_approves(**common, on="2026-04-20", today=day)
        session.commit()
    app.config["TODAY"] = day
    return petition_id


def test_the_publication_asks_for_its_proof_and_says_when_it_is_missing(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _approved(app, people)
    url = f"/petitions/{petition_id}"
    bad = clerk.post(
        f"{url}/publication",
        data={
            "on": "2026-04-24",
            "newspaper": "El Vocero",
            "proof": (io.BytesIO(b"MZ\x90\x00"), "x.exe"),
        },
        content_type="multipart/form-data",
    )
    assert bad.status_code == 422 and 'id="e-publish-proof"' in bad.get_data(as_text=True)
    with Session(app.extensions["tid.engine"]) as session:
        assert session.get(Petition, petition_id).published_on is None  # type: ignore[union-attr]
    done = clerk.post(f"{url}/publication", data={"on": "2026-04-24", "newspaper": "El Vocero"})
    assert done.status_code == 302
    assert "no tiene prueba en el expediente" in clerk.get(url).get_data(as_text=True)
    _attach(clerk, petition_id, files.png(), "pagina.png", kind="publication_proof")
    assert "no tiene prueba en el expediente" not in clerk.get(url).get_data(as_text=True)


def _text(page: str) -> str:
    """The words of a page, as a reader reads them."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_crim_letter_is_written_sent_and_acknowledged(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    from pypdf import PdfReader

    petition_id = _approved(app, people)
    _attach(clerk, petition_id, files.pdf("Ordenanza firmada"), "ord.pdf", kind="ordinance_signed")
    url = f"/petitions/{petition_id}/crim"
    page = clerk.get(url).get_data(as_text=True)
    assert page.count("badge good") == 6  # the required content, the signed ordinance too
    assert clerk.post(url, data={"action": "letter"}).status_code == 302
    with Session(app.extensions["tid.engine"]) as session:
        letter = session.exec(
            select(PetitionDocument).where(PetitionDocument.kind == "crim_transmittal")
        ).one()
        version = session.exec(
            select(DocumentVersion).where(DocumentVersion.document_id == letter.id)
        ).one()
    data = clerk.get(f"/petitions/file/version/{version.id}").data
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 2  # the letter, then the ordinance as signed
    assert "San Juan" in str(reader.metadata.get("/Author"))
    assert "Ordenanza firmada" in reader.pages[1].extract_text()
    # Joined, the letter keeps its structure; the signed ordinance's page is a figure.
    read = structure(data)
    assert {"/H1", "/P"} <= {e.kind for e in read} and structure_problems(data) == []
    assert [e.alt for e in read if e.kind == "/Figure"] == [
        "La ordenanza según se firmó, página 1 de 1"
    ]
    letter_text = reader.pages[0].extract_text()
    assert not re.search(r"\d{4}-\d{2}-\d{2}", letter_text)  # days as Spanish writes them
    missing = clerk.post(url, data={"action": "sent", "on": "2026-04-27", "sent_by": ""})
    assert missing.status_code == 422
    sent = clerk.post(
        url,
        data={
            "action": "sent",
            "on": "2026-04-27",
            "sent_by": "certified_mail",
            "reference": "9407",
        },
    )
    assert sent.status_code == 302
    ack = clerk.post(
        url,
        data={
            "action": "acknowledgement",
            "on": "2026-04-29",
            "file": (io.BytesIO(files.pdf("Recibido")), "acuse.pdf"),
        },
        content_type="multipart/form-data",
    )
    assert ack.status_code == 302
    page = clerk.get(url).get_data(as_text=True)
    # the days as the reader writes them
    assert "27 abr 2026" in page and "9407" in page and "29 abr 2026" in page
    # the history and the file in words: how it was sent, when, the municipality's name, the
    # letter's and the acknowledgement's titles in the reader's language
    with Session(app.extensions["tid.engine"]) as session:
        petition = session.get(Petition, petition_id)
        assert petition is not None
        municipality = session.get(Municipality, petition.municipality_id)
        assert municipality is not None
        ordinance = session.exec(select(Ordinance)).one()
    for language, words in (
        ("es", ("Correo certificado", "Enviado el", "Acuse de recibo del CRIM")),
        ("en", ("Certified mail", "Sent on", "Acknowledgement of receipt from the CRIM")),
    ):
        clerk.post(f"/lang/{language}", data={"next": "/"})
        history = _text(clerk.get(f"/petitions/{petition_id}").get_data(as_text=True))
        listing = _text(clerk.get(f"/petitions/{petition_id}/file").get_data(as_text=True))
        for said in (history, listing):
            assert "certified_mail" not in said and "sent_on" not in said
            assert f"Municipio {municipality.id}" not in said
        assert all(word in history for word in words), (language, words)
        assert municipality.name in history
        title = (
            "Envío de la ordenanza %s al CRIM"
            if language == "es"
            else ("Transmittal of ordinance %s to the CRIM")
        )
        assert title % ordinance.number in listing, language
        assert words[2] in listing


def test_an_upload_cut_off_half_way_is_said_at_the_field(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    boundary = "tidboundary"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nInforme\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        'filename="informe.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    ).encode() + files.pdf()[:200]
    response = clerk.post(
        f"/petitions/{petition_id}/file",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
        environ_overrides={"CONTENT_LENGTH": str(len(body) + 50_000)},
    )
    assert response.status_code == 422
    assert 'id="e-file">La carga se interrumpió' in response.get_data(as_text=True)
    assert _counts(app) == (0, 0, 0, 0)


def test_a_pdf_the_app_made_joins_the_file_and_the_search(app: Flask, people: People) -> None:
    from tests.legislature_files import pdf
    from tid.services.petitions import attachments, file_search

    petition_id = _petition(app, people)
    with Session(app.extensions["tid.engine"], expire_on_commit=False) as session:
        document = attachments.attach_generated(
            session=session,
            actor=ACTOR,
            petition_id=petition_id,
            store=attachments.store_for(app.config),
            pdf=pdf("Estudio de la fórmula"),
            title="Estudio de la fórmula",
            dated_on=TODAY,
        )
        session.commit()
        assert document.kind == "study" and document.generated
        hits = file_search.search(session=session, words="formula", scope=None)
    assert [h.title for h in hits if h.kind == "document"] == ["Estudio de la fórmula"]


# --------------------------------------------------------------------------- scans made searchable


def _version_rows(app: Flask) -> list[DocumentVersion]:
    with Session(app.extensions["tid.engine"]) as session:
        return list(session.exec(select(DocumentVersion).order_by(DocumentVersion.number)))


def _job_state(app: Flask) -> tuple[str, str]:
    from tid.models import Job

    with Session(app.extensions["tid.engine"]) as session:
        job = session.exec(select(Job).where(Job.kind == "documents.recognize")).all()[-1]
        return job.state, job.error


@pytest.mark.one_database
def test_a_scanned_pdf_is_made_searchable_by_a_background_job(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    """The one test that runs ocrmypdf and tesseract (a few seconds): a PDF of a picture of
    words, flagged, recognized by the job into a new version the search finds."""
    petition_id = _petition(app, people)
    scan = files.scanned_pdf(("Acta del alcantarillado", "Condado"))
    assert _attach(clerk, petition_id, scan, "acta.pdf", title="Acta").status_code == 302
    tasks.run_pending(app)
    url, _seen = _document_url(app)
    page = clerk.get(url).get_data(as_text=True)
    assert "sin capa de texto" in page and 'id="f-recognize"' in page
    assert "<mark>" not in clerk.get("/petitions/search?q=alcantarillado").get_data(as_text=True)
    started = clerk.post(f"{url}/recognize", data={"job_token": "t" * 20})
    assert started.status_code == 302 and "?job=" in started.headers["Location"]
    waiting = clerk.get(started.headers["Location"]).get_data(as_text=True)
    assert 'id="f-recognize"' not in waiting and "Esperando" in waiting
    tasks.run_pending(app)
    assert _job_state(app) == ("done", "")
    first, second = _version_rows(app)
    assert first.sha256 == file_store.sha256_of(scan) and first.text_state == "no_text"
    assert second.filename == "acta-ocr.pdf" and second.text_state == "indexed"
    assert second.reason == "Texto reconocido (OCR) de la versión 1"
    assert second.uploaded_by == people.clerk.email
    found = clerk.get("/petitions/search?q=alcantarillado").get_data(as_text=True)
    assert "<mark>alcantarillado</mark>" in found
    page = clerk.get(url).get_data(as_text=True)
    assert "sin capa de texto" not in page and "acta-ocr.pdf" in page and "acta.pdf" in page


@pytest.fixture
def fake_ocr(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """ocrmypdf stood in for: its answer a PDF whose text says "Acta de la vista pública"
    (or what the test puts first in the list: "timeout", "fail")."""
    from tid.render import recognize

    plan: list[str] = []

    def searchable(data: bytes, media_type: str, *, timeout: float, **_bounds: int) -> bytes:
        what = plan.pop(0) if plan else "ok"
        if what == "timeout":
            raise recognize.RecognitionTimeoutError(f"stopped after {timeout} s")
        if what == "fail":
            raise recognize.RecognitionError("exit 2")
        if what == "blank":
            return files.scanned_pdf(())
        return files.pdf("Acta de la vista publica")

    monkeypatch.setattr(recognize, "missing", lambda: None)
    monkeypatch.setattr(recognize, "searchable_pdf", searchable)
    return plan


def test_a_scan_flagged_in_the_list_with_its_picture_is_recognized_into_a_new_version(
    app: Flask, people: People, clerk: FlaskClient, fake_ocr: list[str]
) -> None:
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.png(), "firmas.png", title="Firmas", kind="signatures")
    _attach(clerk, petition_id, files.docx("Plano"), "plano.docx", title="Plano", kind="plan")
    tasks.run_pending(app)
    listing = clerk.get(f"/petitions/{petition_id}/file").get_data(as_text=True)
    thumbs = re.findall(r"<img class=\"thumbnail\"[^>]*>", listing)
    assert len(thumbs) == 1 and 'loading="lazy"' in thumbs[0]
    assert 'width="60" height="78"' in thumbs[0] and 'alt="Primera página de Firmas"' in thumbs[0]
    assert 'class="thumbnail file-tile" aria-hidden="true">DOCX<' in listing
    assert "escaneo sin texto" in listing
    with Session(app.extensions["tid.engine"]) as session:
        scan = session.exec(select(PetitionDocument).where(PetitionDocument.kind == "signatures"))
        document = scan.one()
    url = f"/petitions/{petition_id}/file/{document.id}"
    picture = clerk.get(re.search(r'src="([^"]+)"', thumbs[0]).group(1))  # type: ignore[union-attr]
    assert picture.status_code == 200 and picture.data.startswith(b"\x89PNG")
    before = _counts(app)
    # A runaway reading is stopped: the job fails saying so, nothing is saved.
    fake_ocr.extend(["timeout", "blank"])
    for said in ("tardó más de lo permitido", "No se pudo reconocer ninguna palabra"):
        clerk.post(f"{url}/recognize")
        tasks.run_pending(app)
        assert _job_state(app)[0] == "failed" and _counts(app) == before
        page = clerk.get(url + "?job=" + _latest_job_id(app)).get_data(as_text=True)
        assert said in page, page[:3000]
    first = clerk.post(f"{url}/recognize")
    second = clerk.post(f"{url}/recognize")  # from another page, while the first waits
    assert first.status_code == second.status_code == 302
    assert first.headers["Location"] == second.headers["Location"]  # the one job, shown
    tasks.run_pending(app)
    assert _job_state(app) == ("done", "")
    versions = [v for v in _version_rows(app) if v.document_id == document.id]
    assert [v.filename for v in versions] == ["firmas.png", "firmas-ocr.pdf"]
    assert versions[1].media_type == "application/pdf" and versions[1].text_state == "indexed"
    found = clerk.get("/petitions/search?q=vista publica").get_data(as_text=True)
    assert "<mark>vista</mark>" in found and "Firmas" in found
    # Nothing left to recognize: the button is gone and a second try is refused.
    again = clerk.post(f"{url}/recognize")
    assert again.status_code == 422 and "ya tiene texto" in again.get_data(as_text=True)


def _latest_job_id(app: Flask) -> str:
    from tid.models import Job

    with Session(app.extensions["tid.engine"]) as session:
        return str(session.exec(select(Job.id).order_by(col(Job.id).desc())).first())


def test_a_version_sent_while_the_scan_is_read_wins_and_the_reading_saves_nothing(
    app: Flask, people: People, clerk: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tid.render import recognize
    from tid.services.petitions import attachments

    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.png(), "firmas.png", title="Firmas")
    tasks.run_pending(app)
    url, seen = _document_url(app)

    def searchable(data: bytes, media_type: str, *, timeout: float, **_bounds: int) -> bytes:
        # Another clerk sends a version with text while the words are being read.
        with Session(app.extensions["tid.engine"], expire_on_commit=False) as other:
            document = other.exec(select(PetitionDocument)).one()
            attachments.replace(
                session=other,
                actor=audit.Actor("otra@example.pr"),
                document=document,
                replaces=seen,
                store=attachments.store_for(app.config),
                upload=attachments.Upload(files.pdf("Firmas"), "firmas-texto.pdf"),
                reason="El original con texto",
            )
            other.commit()
        return files.pdf("Leidas")

    monkeypatch.setattr(recognize, "missing", lambda: None)
    monkeypatch.setattr(recognize, "searchable_pdf", searchable)
    assert clerk.post(f"{url}/recognize").status_code == 302
    tasks.run_pending(app)
    state, error = _job_state(app)
    assert state == "failed" and "Another version of this document was sent" in error
    assert [v.filename for v in _version_rows(app)] == ["firmas.png", "firmas-texto.pdf"]
    assert _counts(app) == (1, 2, 2, 2)  # the reading's PDF left no file behind


@pytest.mark.one_database
def test_without_the_programs_the_page_says_why_and_offers_no_button(
    app: Flask, people: People, clerk: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tid.render import recognize

    monkeypatch.setattr(recognize, "missing", lambda: "ocrmypdf is not installed")
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.png(), "firmas.png", title="Firmas")
    tasks.run_pending(app)
    url, _seen = _document_url(app)
    page = clerk.get(url).get_data(as_text=True)
    assert "no están instalados" in page and 'id="f-recognize"' not in page
    refused = clerk.post(f"{url}/recognize")
    assert refused.status_code == 422 and "no están instalados" in refused.get_data(as_text=True)
    assert len(_version_rows(app)) == 1
