"""Whatever a visitor types into the login and account forms, the answer is never a 500."""

from __future__ import annotations

from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import People, examples, login

text = st.text(max_size=300)


@settings(max_examples=examples(60))
@given(email=text, password=text)
def test_login_form_never_fails(client: FlaskClient, email: str, password: str) -> None:
    response = client.post("/login", data={"email": email, "password": password})
    # 422: an empty field, said on the form; 429: the sign-in throttle
    # (tests/web/test_sign_in.py) after many failures
    assert response.status_code in (401, 422, 429)


@settings(max_examples=examples(60))
@given(
    name=text,
    email=text,
    password=text,
    role=st.one_of(text, st.sampled_from(["admin", "clerk", "association", "auditor"])),
    municipality=st.one_of(text, st.sampled_from(["1", "2", "999", "-1", ""])),
    district=st.one_of(text, st.sampled_from(["1", "2", "999", ""])),
    locale=text,
)
def test_account_form_never_fails(
    client: FlaskClient,
    people: People,
    name: str,
    email: str,
    password: str,
    role: str,
    municipality: str,
    district: str,
    locale: str,
) -> None:
    login(client, people.admin)
    response = client.post(
        "/admin/users/new",
        data={
            "name": name,
            "email": email,
            "password": password,
            "role": role,
            "municipality": municipality,
            "district": district,
            "locale": locale,
        },
    )
    assert response.status_code in (302, 422), response.status_code


def test_nul_characters_never_reach_the_database(client: FlaskClient, people: People) -> None:
    """PostgreSQL refuses NUL in text; the request drops it before any form sees it."""
    response = client.post("/login", data={"email": "\x00", "password": "\x00"})
    assert response.status_code == 422  # nothing left to sign in with: the form says so
    login(client, people.admin)
    response = client.post(
        "/admin/users/new",
        data={
            "name": "Ana\x00",
            "email": "ana\x00@example.pr",
            "password": "0123456789ab",
            "role": "auditor",
            "locale": "es",
        },
    )
    assert response.status_code == 302
    assert "ana@example.pr" in client.get("/admin/users").get_data(as_text=True)
