"""The administrator's installation page: the same checks as ``tid setup``, each with its
fix in the reader's language (words, not only colours); the slow ones run as a background
job from a button; the queue's depth and its oldest waiting job on the queue of each
database; refused to everyone but an administrator."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People, login
from tests.smtp_support import Inbox
from tid.jobs import tasks
from tid.models import InstallationCheck, Job

PAGE = "/admin/installation"


def _page(client: FlaskClient, lang: str, query: str = "") -> str:
    """The page in ``lang`` (the language toggle, as a reader uses it)."""
    assert client.post(f"/lang/{lang}").status_code in (302, 303)
    response = client.get(PAGE + query)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def _row(page: str, key: str) -> str:
    found = re.search(rf'<tr id="check-{key}".*?</tr>', page, re.S)
    assert found, key
    return found.group(0)


def test_the_page_shows_every_check_with_its_fix_in_both_languages(
    client: FlaskClient, people: People
) -> None:
    login(client, people.admin)
    spanish = _page(client, "es")
    english = _page(client, "en")

    # the tests' key is one the project shows: it fails, and says what to do
    row = _row(spanish, "secret_key")
    assert "Clave secreta" in row and "✗ Falla" in row and "TID_SECRET_KEY" in row
    assert "Ponga en <code>TID_SECRET_KEY</code> una clave aleatoria nueva" in row
    row = _row(english, "secret_key")
    assert "Secret key" in row and "✗ Fails" in row
    assert "Set <code>TID_SECRET_KEY</code> to a new random key" in row
    # no worker has said it is alive
    assert "Inicie <code>tid worker</code>" in _row(spanish, "worker")
    assert "Start <code>tid worker</code>" in _row(english, "worker")
    # the slow checks were never run
    assert "Aún sin comprobar." in _row(spanish, "mail")
    assert "Not checked yet." in _row(english, "backup")
    for key in ("database", "base_url", "two_factor", "permissions", "scheduler"):
        assert f'id="check-{key}"' in english
    assert "Fallan " in spanish and " checks fail." in english
    # the versions and the disk
    assert "WeasyPrint" in english and "Python" in english and "free of" in english


@pytest.mark.parametrize("role", ["clerk", "association", "auditor"])
def test_only_an_administrator_sees_or_runs_the_checks(
    client: FlaskClient, session: Session, people: People, role: str
) -> None:
    login(client, people.by_role(role))
    assert client.get(PAGE).status_code == 403
    answer = client.post(PAGE + "/checks", data={"mail_to": "a@b.pr", "job_token": "t" * 20})
    assert answer.status_code == 403
    assert session.exec(select(Job)).all() == []


def test_the_slow_checks_run_as_a_background_job_from_the_button(
    app: Flask, client: FlaskClient, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port)
    login(client, people.admin)
    answer = client.post(
        PAGE + "/checks", data={"mail_to": "ops@municipio.pr", "job_token": "x" * 24}
    )
    assert answer.status_code == 302
    job = session.exec(select(Job)).one()
    assert job.kind == tasks.INSTALLATION_CHECKS and job.state == "queued"

    # the page shows the job waiting, in the queue of this database, and nothing sent yet
    waiting = _page(client, "en", f"?job={job.id}")
    assert "1 task(s) waiting in the queue" in waiting
    assert (
        f"1 job(s) waiting; the oldest, Check the mail server and the backups (job {job.id})"
        in waiting
    )
    assert inbox.messages == [] and session.exec(select(InstallationCheck)).all() == []
    assert "No backup in the backups" in waiting

    assert tasks.run_pending(app) == 1

    done = _page(client, "en")
    assert [to for to, _message in inbox.messages] == [["ops@municipio.pr"]]
    mail = _row(done, "mail")
    assert "✓ Passes" in mail and "A test message went to ops@municipio.pr" in mail
    backup = _row(done, "backup")
    assert "✓ Passes" in backup and "restored into a scratch database" in backup
    assert "0 task(s) waiting in the queue" in done and "no job waiting." in done
    assert "0 min ago" in done or "1 min ago" in done  # the backup just written
    spanish = _page(client, "es")
    assert "Se envió un mensaje de prueba a ops@municipio.pr" in _row(spanish, "mail")


def test_the_mail_check_from_the_page_fails_with_its_fix_when_smtp_is_down(
    app: Flask, client: FlaskClient, people: People
) -> None:
    from tests.smtp_support import free_port

    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=free_port())
    login(client, people.admin)
    client.post(PAGE + "/checks", data={"mail_to": "ops@municipio.pr", "job_token": "y" * 24})
    assert tasks.run_pending(app) == 1
    mail = _row(_page(client, "en"), "mail")
    assert "✗ Fails" in mail and "TID_SMTP_HOST" in mail


def test_the_admin_area_links_to_the_page(client: FlaskClient, people: People) -> None:
    login(client, people.admin)
    assert f'href="{PAGE}"' in client.get("/admin/users").get_data(as_text=True)
