"""The owner's email in the portal: the page says the certified notice stays the legal one,
a bad address is said beside its field, a good one gets its confirmation message, whose link
confirms it with a button and whose removal link deletes it — pages that show no address,
name or notice number to whoever holds a link."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import People
from tests.pdf_checks import pdf_text
from tests.services.owners.test_owner_email import mailed_notices
from tests.smtp_support import Inbox, body_of
from tid.models import OwnerEmail
from tid.services import notices


def _link(inbox: Inbox, which: str) -> str:
    found = re.search(
        rf"https://tid\.example\.pr(/portal/email/{which}/\S+)", body_of(inbox.messages[-1][1])
    )
    assert found
    return found.group(1)


def test_an_owner_leaves_confirms_and_removes_an_address(
    app: Flask, client: FlaskClient, session: Session, people: People, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=port, BASE_URL="https://tid.example.pr")
    notice = mailed_notices(session, people)[0]
    code = re.search(
        r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}",
        pdf_text(notices.notice_pdf_bytes(session=session, notice=notice)),
    )
    assert code
    url = f"/portal/email/{notice.public_id}"
    assert client.get(url).status_code == 404  # only the codes open it
    assert (
        client.post("/portal", data={"number": notice.number, "code": code.group(0)}).status_code
        == 302
    )
    assert url in client.get("/portal/notices").get_data(as_text=True)
    page = client.get(url).get_data(as_text=True)
    assert "correo certificado sigue siendo la notificación legal" in page
    bad = client.post(url, data={"email": "ana@ejemplo"})
    assert bad.status_code == 422
    assert 'id="e-email"' in bad.get_data(as_text=True) and inbox.messages == []
    sent = client.post(url, data={"email": "ana@ejemplo.com"})
    assert sent.status_code == 302 and len(inbox.messages) == 1
    assert "ana@ejemplo.com" in client.get(url).get_data(as_text=True)
    confirm, stop = _link(inbox, "confirm"), _link(inbox, "stop")
    stranger = Flask.test_client(app)  # the link's holder: no portal session
    asked = stranger.get(confirm)
    shown = asked.get_data(as_text=True)
    assert asked.status_code == 200 and asked.headers["Referrer-Policy"] == "no-referrer"
    assert "ana@" not in shown and notice.number not in shown and notice.owner_name not in shown
    assert session.exec(select(OwnerEmail)).one().status == "pending"
    assert stranger.post(confirm).status_code == 200
    session.expire_all()
    assert session.exec(select(OwnerEmail)).one().status == "confirmed"
    assert stranger.post(confirm).status_code == 404  # once
    assert "confirmada" in client.get(url).get_data(as_text=True)
    # One click from the mail program (no form of ours) deletes it.
    assert "ana@" not in stranger.get(stop).get_data(as_text=True)
    assert stranger.post(stop, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    assert session.exec(select(OwnerEmail)).all() == []
    assert stranger.get(stop).status_code == 404
    assert stranger.get("/portal/email/confirm/not-a-token").status_code == 404
