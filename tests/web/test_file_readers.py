"""The readers of the legislature's files, bounded: a page's picture is drawn once by the
upload's background job (never in a request), within a time and a pixel bound, a failure kept
and said ("no picture"); a text over its reader's memory is kept unread and said so; a busy
queue never turns a saved version into an error page; a file's name follows its content; a
public document's earlier versions stay public, said so on its page; the queue's files, the
configuration and the demo's access code are the app's user's alone."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests import legislature_files as files
from tests.conftest import People, login
from tests.web.test_petition_files import TODAY, _attach, _petition
from tid.config import archive_dir
from tid.jobs import tasks
from tid.models import DocumentVersion, Job, PetitionDocument
from tid.render import thumbnails


@pytest.fixture
def clerk(app: Flask, people: People) -> FlaskClient:
    app.config["TODAY"] = TODAY
    client = app.test_client()
    login(client, people.clerk)
    return client


def _versions(app: Flask) -> list[DocumentVersion]:
    with Session(app.extensions["tid.engine"]) as session:
        return list(session.exec(select(DocumentVersion).order_by(DocumentVersion.id)))


def _page(client: FlaskClient, url: str, lang: str = "") -> str:
    if lang:
        client.post(f"/lang/{lang}")
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


@pytest.fixture
def no_drawing_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every drawing of a page in this process (the web's): none is allowed."""
    drawn: list[str] = []

    def first_page_png(data: bytes, media_type: str, **_bounds: Any) -> bytes | None:
        drawn.append(media_type)
        return None

    monkeypatch.setattr(thumbnails, "first_page_png", first_page_png)
    return drawn


def test_a_picture_is_drawn_by_the_job_within_its_time_and_a_failure_is_kept(
    app: Flask, people: People, clerk: FlaskClient, no_drawing_here: list[str]
) -> None:
    """A PDF whose page takes long to draw: the page and its picture's address answer at
    once (the request draws nothing); the job stops the drawing at its bound, keeps that,
    and the page says "no picture" in both languages; nothing draws it again."""
    app.config["PICTURE_SECONDS"] = 1
    petition_id = _petition(app, people)
    slow = files.pdf_of_many_lines(300_000)
    assert _attach(clerk, petition_id, slow, "plano.pdf", title="Plano").status_code == 302
    (version,) = _versions(app)
    listing = _page(clerk, f"/petitions/{petition_id}/file")
    assert "imagen en preparación" in listing and 'class="thumbnail"' not in listing
    picture = f"/petitions/file/version/{version.id}/thumbnail.png"
    assert clerk.get(picture).status_code == 404  # not drawn yet, and not drawn here
    assert no_drawing_here == []
    tasks.run_pending(app)
    kept = archive_dir(app.config) / "thumbnails" / f"{version.sha256}.none"
    assert kept.read_text() == "time"
    for _ in range(3):
        assert clerk.get(picture).status_code == 404
    assert no_drawing_here == []
    assert "sin imagen" in _page(clerk, f"/petitions/{petition_id}/file")
    assert "no picture" in _page(clerk, f"/petitions/{petition_id}/file", "en")
    from tid.services.petitions import file_search

    assert file_search.draw_picture(folder=archive_dir(app.config), version=version) == "none"


def test_a_scan_over_the_pixel_bound_has_no_picture_and_a_plain_one_has_its_own(
    app: Flask, people: People, clerk: FlaskClient, no_drawing_here: list[str]
) -> None:
    app.config["PICTURE_MAX_PIXELS"] = 2_000  # the test's scan is 60 × 80 = 4,800 pixels
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.png(), "firmas.png", title="Firmas", kind="signatures")
    tasks.run_pending(app)
    (version,) = _versions(app)
    folder = archive_dir(app.config) / "thumbnails"
    assert (folder / f"{version.sha256}.none").read_text() == "pixels"
    assert "sin imagen" in _page(clerk, f"/petitions/{petition_id}/file")
    app.config["PICTURE_MAX_PIXELS"] = 60_000_000
    _attach(clerk, petition_id, files.pdf("Acta"), "acta.pdf", title="Acta")
    tasks.run_pending(app)
    drawn = _versions(app)[1]
    png = clerk.get(f"/petitions/file/version/{drawn.id}/thumbnail.png")
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    assert no_drawing_here == []


def test_a_file_whose_text_needs_more_memory_than_its_reader_is_kept_unread_and_said_so(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    app.config["READER_MEMORY_MB"] = 160
    petition_id = _petition(app, people)
    heavy = files.docx_of_words(20)  # some tens of KB holding 20 MB of XML
    assert _attach(clerk, petition_id, heavy, "plano.docx", title="Plano").status_code == 302
    tasks.run_pending(app)
    (version,) = _versions(app)
    assert version.text_state == "over_memory"
    with Session(app.extensions["tid.engine"]) as session:
        document = session.exec(select(PetitionDocument)).one()
    url = f"/petitions/{petition_id}/file/{document.id}"
    assert "no se leyó" in _page(clerk, url) and "texto no leído" in _page(clerk, url)
    english = _page(clerk, url, "en")
    assert "its text was not read" in english and "more memory" in english
    assert clerk.get(f"/petitions/file/version/{version.id}").data == heavy  # kept whole


def _new_version(client: FlaskClient, url: str, data: bytes, name: str, replaces: int) -> Any:
    import io

    return client.post(
        url,
        data={
            "reason": "Corrige la firma",
            "replaces": str(replaces),
            "file": (io.BytesIO(data), name),
        },
        content_type="multipart/form-data",
    )


def _first_document(app: Flask, clerk: FlaskClient, petition_id: int, public: str = "") -> str:
    _attach(clerk, petition_id, files.pdf("Acta uno"), "acta.pdf", title="Acta", public=public)
    tasks.run_pending(app)
    with Session(app.extensions["tid.engine"]) as session:
        document = session.exec(select(PetitionDocument)).one()
    return f"/petitions/{petition_id}/file/{document.id}"


def test_a_queue_that_is_locked_never_turns_a_saved_version_into_an_error(
    app: Flask, people: People, clerk: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version is saved before its reading is queued: a queue locked once is tried
    again; one that stays locked leaves the job for the sweep and the page says so."""
    petition_id = _petition(app, people)
    url = _first_document(app, clerk, petition_id)
    storage = tasks.queue_of(app).huey.storage
    real = storage.enqueue
    refusals = [1]

    def locked(data: bytes, priority: float | None = None) -> None:
        if refusals[0] > 0:
            refusals[0] -= 1
            raise sqlite3.OperationalError("database is locked")
        real(data, priority)

    monkeypatch.setattr(storage, "enqueue", locked)
    monkeypatch.setattr(tasks, "ENQUEUE_PAUSE", 0.0, raising=False)
    sent = _new_version(clerk, url, files.pdf("Acta dos"), "acta.pdf", 1)
    assert sent.status_code == 302
    assert refusals == [0] and storage.queue_size() == 1  # tried again, queued
    tasks.run_pending(app)
    refusals[0] = 99  # locked for good
    sent = _new_version(clerk, url, files.pdf("Acta tres"), "acta.pdf", 2)
    assert sent.status_code == 302
    assert [v.number for v in _versions(app)] == [1, 2, 3]
    page = clerk.get(sent.headers["Location"]).get_data(as_text=True)
    assert "La cola de tareas estaba ocupada" in page
    with Session(app.extensions["tid.engine"]) as session:
        waiting = session.exec(select(Job).where(Job.state == "queued")).all()
    assert [job.target for job in waiting] == [f"document_version:{_versions(app)[2].id}"]


def test_a_text_file_named_pdf_is_kept_with_its_own_extension(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    form = _page(clerk, f"/petitions/{petition_id}/file")
    assert "falso.pdf se guarda como falso.csv" in form
    text = b"municipio,importe\nCondado,1250.00\n"
    assert _attach(clerk, petition_id, text, "falso.pdf").status_code == 302
    assert _attach(clerk, petition_id, files.pdf(), "acta").status_code == 302
    assert _attach(clerk, petition_id, files.png(), "firmas.JPEG.png").status_code == 302
    kept = [(v.filename, v.media_type) for v in _versions(app)]
    assert kept == [
        ("falso.csv", "text/csv"),
        ("acta.pdf", "application/pdf"),
        ("firmas.JPEG.png", "image/png"),
    ]
    download = clerk.get(f"/petitions/file/version/{_versions(app)[0].id}")
    assert 'filename="falso.csv"' in download.headers["Content-Disposition"]


def test_a_public_documents_earlier_versions_stay_public_with_their_dates_and_reasons(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    url = _first_document(app, clerk, petition_id, public="yes")
    assert _new_version(clerk, url, files.pdf("Acta dos"), "acta.pdf", 1).status_code == 302
    first, second = _versions(app)
    anonymous = app.test_client()
    page = _page(anonymous, f"/publico/peticiones/{petition_id}")
    assert "Versiones anteriores" in page and "Corrige la firma" in page
    assert page.index(f"/version/{second.id}") < page.index("Versiones anteriores")
    assert page.index("Versiones anteriores") < page.index(f"/version/{first.id}")
    earlier = anonymous.get(f"/petitions/public/file/version/{first.id}")
    assert earlier.status_code == 200 and earlier.data.startswith(b"%PDF")
    # made not public: no version of it is served
    clerk.post(url, data={"action": "public", "public": ""})
    assert anonymous.get(f"/petitions/public/file/version/{first.id}").status_code == 404
    assert anonymous.get(f"/petitions/public/file/version/{second.id}").status_code == 404


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.one_database
def test_the_queue_the_configuration_and_the_demo_access_code_are_the_apps_user_alone(
    app: Flask, tmp_path: Path
) -> None:
    from tid.demo import turn_off_two_factor

    tasks.enqueue(app, 0)  # the queue written: its journal files exist
    instance = Path(app.instance_path)
    queue_files = sorted(instance.glob("queue.sqlite*"))
    assert queue_files and all(_mode(f) == 0o600 for f in queue_files), queue_files
    assert turn_off_two_factor(str(instance))
    assert _mode(instance / "config.toml") == 0o600
    from tid.demo.notices import write_portal_sample

    sample = write_portal_sample(app.config, "RV-1 ABCD-EFGH-JKLM\n")
    assert sample == instance / "demo" / "portal-sample.txt"
    assert _mode(sample) == 0o600 and _mode(sample.parent) == 0o700


def test_a_version_kept_before_pictures_were_drawn_shows_its_type_until_drawn(
    app: Flask, people: People, clerk: FlaskClient
) -> None:
    petition_id = _petition(app, people)
    _attach(clerk, petition_id, files.pdf("Acta"), "acta.pdf", title="Acta")
    tasks.run_pending(app)
    (version,) = _versions(app)
    drawn = archive_dir(app.config) / "thumbnails" / f"{version.sha256}.png"
    drawn.unlink()  # as a version read before its job drew pictures
    listing = _page(clerk, f"/petitions/{petition_id}/file")
    assert 'aria-hidden="true">PDF<' in listing and "imagen en preparación" not in listing
    result = app.test_cli_runner().invoke(args=["archive", "pictures"])
    assert result.exit_code == 0 and "1 picture(s)" in result.output, result.output
    assert drawn.read_bytes().startswith(b"\x89PNG")
    assert 'class="thumbnail"' in _page(clerk, f"/petitions/{petition_id}/file")


def test_a_workers_sweep_ends_what_a_dead_worker_left_running(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep (as a worker starts, then every few seconds) asks tid/proc.py to end the
    programs of dead workers (tests/test_proc.py kills one and sees them ended)."""
    asked: list[bool] = []
    monkeypatch.setattr(tasks, "reap_orphans", lambda: asked.append(True) or 0, raising=False)
    tasks.sweep(app)
    assert asked == [True]
