"""Passwords: the rules a new one meets, changing one's own, the "forgot password" link
mailed over real SMTP (single use, expiring), and an administrator's forced reset."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import timedelta
from email.message import Message
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import PASSWORD, People, login
from tests.smtp_support import Inbox, smtp  # noqa: F401  (the fixture)
from tid.jobs import tasks
from tid.models import AuditEvent, Job, PasswordReset, User
from tid.rules.errors import InputError
from tid.services.audit_trail import audit
from tid.services.auth import passwords, users

NEW = "un faro en la bahía de noche"


@pytest.fixture
def mail_app(app: Flask, smtp: tuple[Inbox, int]) -> Iterator[tuple[Flask, Inbox]]:  # noqa: F811
    inbox, port = smtp
    app.config.update(
        SMTP_HOST="127.0.0.1",
        SMTP_PORT=port,
        MAIL_FROM="tid@municipio.example.pr",
        BASE_URL="https://tid.example.pr",
    )
    yield app, inbox


def _wait_for(app: Flask, inbox: Inbox, count: int) -> list[tuple[list[str], Message]]:
    """The messages mailed once a worker has run the queued jobs (a reset link's mail is one)."""
    tasks.run_pending(app)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with inbox.lock:
            if len(inbox.messages) >= count:
                return list(inbox.messages)
        time.sleep(0.05)
    raise AssertionError(f"expected {count} messages, got {len(inbox.messages)}")


def _link(message: Message) -> str:
    """The token of the mailed reset link: after its "#", where no request carries it."""
    body = message.get_payload(decode=True)
    assert isinstance(body, bytes)
    found = re.search(r"https://tid\.example\.pr/password/reset#([\w-]+)\s", body.decode())
    assert found, body
    assert body.decode().count(found.group(1)) == 2  # the link, and the code to paste
    return found.group(1)


def _mailed_link(message: Message) -> str:
    body = message.get_payload(decode=True)
    assert isinstance(body, bytes)
    return next(line for line in body.decode().splitlines() if line.startswith("https://"))


def _reset(client: FlaskClient, token: str, password: str, confirm: str | None = None) -> Any:
    """The link's page sends its token with the new password."""
    data = {
        "token": token,
        "password": password,
        "confirm": password if confirm is None else confirm,
    }
    return client.post("/password/reset", data=data)


@pytest.mark.parametrize(
    "password",
    ["short9", "password123", "Contraseña2026!", "puertorico", "clerk@example.pr", "x" * 257],
)
def test_weak_passwords_are_refused(session: Session, people: People, password: str) -> None:
    with pytest.raises(InputError) as error:
        users.create_user(
            session=session,
            actor=audit.Actor("tests"),
            email="nueva@example.pr",
            name="Nueva",
            password=password if password != "clerk@example.pr" else "nueva@example.pr",
            role="auditor",
        )
    assert error.value.field == "password"


def test_the_common_list_ships_with_the_package() -> None:
    common = passwords.common_passwords()
    assert len(common) > 200 and "qwerty123" in common and "contraseña" in common
    assert passwords.is_common("Bienvenido2026!") and not passwords.is_common(NEW)


def test_a_user_changes_their_own_password(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    elsewhere = app.test_client()
    login(elsewhere, people.clerk)
    login(client, people.clerk)
    wrong = client.post(
        "/me/password", data={"current": "not it at all", "new": NEW, "confirm": NEW}
    )
    assert wrong.status_code == 422 and 'id="e-current"' in wrong.get_data(as_text=True)
    common = client.post(
        "/me/password",
        data={"current": PASSWORD, "new": "qwerty123456", "confirm": "qwerty123456"},
    )
    assert common.status_code == 422 and 'id="e-new"' in common.get_data(as_text=True)
    differ = client.post(
        "/me/password", data={"current": PASSWORD, "new": NEW, "confirm": NEW + "!"}
    )
    assert differ.status_code == 422 and 'id="e-confirm"' in differ.get_data(as_text=True)
    done = client.post("/me/password", data={"current": PASSWORD, "new": NEW, "confirm": NEW})
    assert done.status_code == 302
    # This session goes on; the other one has ended; the old password no longer works.
    assert client.get("/me").status_code == 200
    assert elsewhere.get("/me").status_code == 302
    assert (
        app.test_client()
        .post("/login", data={"email": people.clerk.email, "password": PASSWORD})
        .status_code
        == 401
    )
    login(app.test_client(), people.clerk, NEW)
    actions = [e.action for e in session.exec(select(AuditEvent))]
    assert "user.password_change" in actions


def test_forgot_password_mails_a_single_use_link(
    mail_app: tuple[Flask, Inbox], session: Session, people: People
) -> None:
    app, inbox = mail_app
    client = app.test_client()
    signed_in = app.test_client()
    login(signed_in, people.association)
    response = client.post("/password/forgot", data={"email": people.association.email.upper()})
    assert response.status_code == 200
    ((to, message),) = _wait_for(app, inbox, 1)
    assert to == [people.association.email]
    from email.header import decode_header, make_header

    subject = str(make_header(decode_header(str(message["Subject"]))))
    assert subject == "Establezca una contraseña nueva para tid"  # the account's language
    link = _link(message)
    # Only the token's hash is stored.
    stored = session.exec(select(PasswordReset)).one()
    assert link not in stored.token_hash
    assert client.get("/password/reset").status_code == 200
    mismatch = _reset(client, link, NEW, "something else!")
    assert mismatch.status_code == 422
    assert _reset(client, link, NEW).status_code == 302
    assert client.get("/me").status_code == 200  # the link signed the person in
    # Used once: the link no longer works, and neither does the old password or session.
    assert _reset(app.test_client(), link, NEW + "2").status_code == 404
    assert signed_in.get("/me").status_code == 302
    login(app.test_client(), people.association, NEW)


def test_the_reset_mail_is_queued_and_no_row_holds_its_link(
    mail_app: tuple[Flask, Inbox], session: Session, people: People
) -> None:
    """The request queues the mail (no thread of the web sends it); the worker makes the
    link's token, so the job's row and the queue never hold it."""
    app, inbox = mail_app
    client = app.test_client()
    assert client.post("/password/forgot", data={"email": people.auditor.email}).status_code == 200
    (job,) = session.exec(select(Job).where(Job.kind == tasks.PASSWORD_RESET_MAIL)).all()
    assert job.state == "queued" and job.user_id == people.auditor.id
    assert session.exec(select(PasswordReset)).all() == []  # no link made yet
    ((to, message),) = _wait_for(app, inbox, 1)
    assert to == [people.auditor.email]
    link = _link(message)
    session.refresh(job)
    assert job.state == "done"
    assert link not in f"{job.token} {job.params} {job.target}"
    assert _reset(client, link, NEW).status_code == 302


def test_an_unknown_email_gets_the_same_page_and_no_mail(
    mail_app: tuple[Flask, Inbox], people: People
) -> None:
    app, inbox = mail_app
    client = app.test_client()
    known = client.post("/password/forgot", data={"email": people.auditor.email})
    unknown = client.post("/password/forgot", data={"email": "nadie@example.pr"})
    assert known.status_code == unknown.status_code == 200
    csrf = re.compile(r'name="csrf_token" value="[^"]*"')
    assert csrf.sub("", known.get_data(as_text=True)) == csrf.sub(
        "", unknown.get_data(as_text=True)
    )
    messages = _wait_for(app, inbox, 1)
    time.sleep(0.5)
    assert [to for to, _m in inbox.messages] == [[people.auditor.email]]
    del messages


def test_a_reset_link_expires(
    mail_app: tuple[Flask, Inbox], people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, inbox = mail_app
    app.config["PASSWORD_RESET_MINUTES"] = 15
    client = app.test_client()
    client.post("/password/forgot", data={"email": people.auditor.email})
    ((_to, message),) = _wait_for(app, inbox, 1)
    body = message.get_payload(decode=True)
    assert isinstance(body, bytes) and "15" in body.decode()
    link = _link(message)
    later = passwords.utcnow() + timedelta(minutes=16)
    monkeypatch.setattr(passwords, "utcnow", lambda: later)
    assert _reset(client, link, NEW).status_code == 404


def test_reset_requests_are_limited(mail_app: tuple[Flask, Inbox], people: People) -> None:
    app, inbox = mail_app
    client = app.test_client()
    statuses = [
        client.post("/password/forgot", data={"email": people.auditor.email}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]
    _wait_for(app, inbox, 3)
    time.sleep(0.3)
    assert len(inbox.messages) == 3


def test_an_administrator_forces_a_new_password(
    mail_app: tuple[Flask, Inbox], session: Session, people: People
) -> None:
    app, inbox = mail_app
    clerk = app.test_client()
    login(clerk, people.clerk)
    admin = app.test_client()
    login(admin, people.admin)
    assert admin.post(f"/admin/users/{people.clerk.id}/reset-password").status_code == 302
    # The clerk's session ended and the old password no longer works.
    assert clerk.get("/me").status_code == 302
    again = app.test_client().post(
        "/login", data={"email": people.clerk.email, "password": PASSWORD}
    )
    assert again.status_code == 401
    ((to, message),) = _wait_for(app, inbox, 1)
    assert to == [people.clerk.email]
    link = _link(message)
    assert _reset(clerk, link, NEW).status_code == 302
    login(app.test_client(), people.clerk, NEW)
    # An administrator cannot lock themselves out this way.
    admin.post(f"/admin/users/{people.admin.id}/reset-password")
    refreshed = session.get(User, people.admin.id)
    session.refresh(refreshed)
    assert refreshed is not None and refreshed.password_hash.startswith("$argon2")


def test_changing_the_password_spends_every_open_reset_link(
    mail_app: tuple[Flask, Inbox], session: Session, people: People
) -> None:
    """A link asked for before the person changed their password no longer works after."""
    app, inbox = mail_app
    client = app.test_client()
    client.post("/password/forgot", data={"email": people.clerk.email})
    ((_to, message),) = _wait_for(app, inbox, 1)
    link = _link(message)
    signed_in = app.test_client()
    login(signed_in, people.clerk)
    changed = signed_in.post("/me/password", data={"current": PASSWORD, "new": NEW, "confirm": NEW})
    assert changed.status_code == 302
    other = "otra contraseña que nadie sabe"
    assert _reset(client, link, other).status_code == 404
    login(app.test_client(), people.clerk, NEW)
    assert all(row.used_at is not None for row in session.exec(select(PasswordReset)))


def test_no_access_log_keeps_a_reset_token(
    mail_app: tuple[Flask, Inbox], people: People, caplog: pytest.LogCaptureFixture
) -> None:
    """The dev server's access log (gunicorn's logs the same request line) sees the link's
    page and the form sent from it, never the token: it rides in the link's fragment, which
    browsers do not send, and in the form's body."""
    import threading
    import urllib.parse
    import urllib.request

    from werkzeug.serving import make_server

    app, inbox = mail_app
    app.test_client().post("/password/forgot", data={"email": people.auditor.email})
    ((_to, message),) = _wait_for(app, inbox, 1)
    token = _link(message)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        with caplog.at_level("INFO", logger="werkzeug"):
            # What a browser requests for the mailed link: the link without its fragment.
            link = urllib.parse.urlsplit(_mailed_link(message))
            page = urllib.request.urlopen(base + link.path)
            assert page.status == 200
            form = urllib.parse.urlencode({"token": token, "password": NEW, "confirm": NEW})
            done = urllib.request.urlopen(base + "/password/reset", data=form.encode())
            assert done.status == 200 and done.url == base + "/"  # signed in, at home
    finally:
        server.shutdown()
        thread.join()
    logged = [r.getMessage() for r in caplog.records if r.name == "werkzeug"]
    assert any("GET /password/reset " in m for m in logged)
    assert any("POST /password/reset " in m for m in logged)
    assert not any(token in m for m in logged)
