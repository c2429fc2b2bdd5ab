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


def test_the_administrator_cannot_deactivate_their_own_account(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.admin)
    refused = client.post(f"/admin/users/{people.admin.id}/active", data={"active": "0"})
    assert refused.status_code == 302 and refused.location.endswith("/admin/users")
    assert "No puede desactivar su propia cuenta." in client.get("/admin/users").get_data(
        as_text=True
    )
    session.expire_all()
    admin = session.get(User, people.admin.id)
    assert admin is not None and admin.active
    assert client.post("/admin/users/999999/two-factor-off").status_code == 404


def test_the_audit_trail_shows_what_each_event_changed(
    client: FlaskClient, session: Session, people: People
) -> None:
    login(client, people.admin)
    client.post(f"/admin/users/{people.clerk.id}/active", data={"active": "0"})
    page = client.get(f"/audit/user_account/{people.clerk.id}").get_data(as_text=True)
    changed = page.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[-1]  # the latest
    # Only the field that changed is shown, before and after; the name stayed the same.
    assert changed.count("<dt>") == 2 and people.clerk.name not in changed
