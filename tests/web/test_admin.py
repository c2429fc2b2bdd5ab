"""Administrators manage accounts; bad input is shown next to its field, nothing written."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import PASSWORD, People, login
from tid.models import AuditEvent, User


def test_admin_creates_a_clerk(client: FlaskClient, session: Session, people: People) -> None:
    login(client, people.admin)
    response = client.post(
        "/admin/users/new",
        data={
            "name": "Nueva Secretaria",
            "email": "Nueva@Example.pr",
            "password": "una contraseña larga",
            "role": "clerk",
            "municipality": str(people.municipality.id),
            "locale": "es",
        },
    )
    assert response.status_code == 302
    created = session.exec(select(User).where(User.email == "nueva@example.pr")).one()
    assert created.role == "clerk" and created.municipality_id == people.municipality.id
    assert created.password_hash.startswith("$argon2")
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "user.create")).all()
    assert any(e.entity_id == str(created.id) and e.actor == people.admin.email for e in events)
    assert "password_hash" not in (events[-1].after or "")


def test_clerk_without_municipality_is_refused(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.admin)
    before = len(session.exec(select(User)).all())
    response = client.post(
        "/admin/users/new",
        data={"name": "X", "email": "x@example.pr", "password": "0123456789", "role": "clerk"},
    )
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'id="e-municipality"' in page
    assert len(session.exec(select(User)).all()) == before


def test_deactivation_ends_the_accounts_logins(
    app, client: FlaskClient, session: Session, people: People
) -> None:  # type: ignore[no-untyped-def]
    clerk_client = app.test_client()
    login(clerk_client, people.clerk)
    login(client, people.admin)
    response = client.post(f"/admin/users/{people.clerk.id}/active", data={"active": "0"})
    assert response.status_code == 302
    # The clerk's open session no longer works, and logging in again is refused.
    assert clerk_client.get("/admin/users").status_code in (302, 403)
    page = clerk_client.get("/").get_data(as_text=True)
    assert people.clerk.name not in page
    again = clerk_client.post("/login", data={"email": people.clerk.email, "password": PASSWORD})
    assert again.status_code == 401
