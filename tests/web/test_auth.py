"""Logging in and out, server-side session revocation, CSRF, cookies and languages."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient

from tests.conftest import PASSWORD, People, login, make_test_app


def test_login_with_wrong_password_is_refused(client: FlaskClient, people: People) -> None:
    response = client.post("/login", data={"email": people.clerk.email, "password": "nope"})
    assert response.status_code == 401
    assert "incorrectos" in response.get_data(as_text=True)


def test_unknown_email_gets_the_same_answer(client: FlaskClient, people: People) -> None:
    wrong = client.post("/login", data={"email": people.clerk.email, "password": "nope"})
    unknown = client.post("/login", data={"email": "nobody@example.pr", "password": "nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert "incorrectos" in unknown.get_data(as_text=True)


def test_logout_invalidates_the_session_on_the_server(client: FlaskClient, people: People) -> None:
    login(client, people.admin)
    assert client.get("/audit/petition/1").status_code == 200
    # Keep a copy of the session cookie as an attacker would.
    stolen = client.get_cookie("session")
    assert stolen is not None
    client.post("/logout")
    assert client.get("/audit/petition/1").status_code == 302
    # Replaying the old cookie does not log anyone back in.
    client.set_cookie("session", stolen.value)
    response = client.get("/audit/petition/1")
    assert response.status_code == 302 and "/login" in response.location


def test_open_redirect_after_login_is_refused(client: FlaskClient, people: People) -> None:
    response = client.post(
        "/login?next=https://evil.example/x",
        data={"email": people.admin.email, "password": PASSWORD},
    )
    assert response.status_code == 302
    assert response.location == "/"


def test_csrf_is_enforced_when_enabled(database_url: str, tmp_path: Path, people: People) -> None:
    app = make_test_app(database_url, tmp_path, WTF_CSRF_ENABLED=True)
    try:
        client = app.test_client()
        response = client.post("/login", data={"email": people.admin.email, "password": PASSWORD})
        assert response.status_code == 400
        assert "expiró" in response.get_data(as_text=True)
    finally:
        app.extensions["tid.engine"].dispose()


def test_session_cookie_flags(client: FlaskClient, people: People) -> None:
    response = client.post("/login", data={"email": people.admin.email, "password": PASSWORD})
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie


def test_language_toggle(client: FlaskClient) -> None:
    assert "Iniciar sesión" in client.get("/login").get_data(as_text=True)
    client.post("/lang/en", data={"next": "/login"})
    page = client.get("/login").get_data(as_text=True)
    assert "Log in" in page and "Iniciar sesión" not in page
    assert '<html lang="en">' in page
