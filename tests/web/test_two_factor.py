"""Two-factor sign-in (TOTP): required by default for administrators and associations,
enrolled with a QR code at the first sign-in, codes accepted once, recovery codes that work
once and are stored hashed, a setting that names the roles, and the demo that turns it off."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pyotp
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from tests.conftest import PASSWORD, People, make_test_app
from tid import config as tid_config
from tid import demo
from tid.clock import utcnow
from tid.models import RecoveryCode, User
from tid.services.auth import two_factor


@pytest.fixture
def app2fa(database_url: str, tmp_path: Path) -> Iterator[Flask]:
    """The default setting: administrators and associations need the second factor."""
    app = make_test_app(database_url, tmp_path, TWO_FACTOR_ROLES=None)
    yield app
    app.extensions["tid.engine"].dispose()


class Clock:
    def __init__(self) -> None:
        self.now = utcnow().replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    value = Clock()
    monkeypatch.setattr(two_factor, "utcnow", value)
    return value


def _password(client: FlaskClient, user: User) -> str:
    response = client.post("/login", data={"email": user.email, "password": PASSWORD})
    assert response.status_code == 302
    return str(response.location)


def _secret_on(page: str) -> str:
    """The TOTP secret an enrolment page shows (in groups of four)."""
    found = re.search(r'<code id="totp-secret">([A-Z2-7 ]+)</code>', page)
    assert found, page
    return found.group(1).replace(" ", "")


def _turn_on(client: FlaskClient, user: User, clock: Clock) -> pyotp.TOTP:
    """Sign in with the password and turn the optional second factor on from the account."""
    _password(client, user)
    totp = pyotp.TOTP(_secret_on(client.get("/me/two-factor").get_data(as_text=True)))
    assert client.post("/me/two-factor", data={"code": totp.at(clock.now)}).status_code == 200
    return totp


def _enrol(client: FlaskClient, user: User, clock: Clock) -> tuple[str, list[str]]:
    assert _password(client, user).endswith("/login/enrol")
    secret = _secret_on(client.get("/login/enrol").get_data(as_text=True))
    code = pyotp.TOTP(secret).at(clock.now)
    done = client.post("/login/enrol", data={"code": code})
    assert done.status_code == 200
    codes = re.findall(r"<code>([a-z2-9]{5}-[a-z2-9]{5})</code>", done.get_data(as_text=True))
    return secret, codes


def test_the_default_requires_it_for_administrators_and_associations() -> None:
    assert two_factor.parse_roles(None) == {"admin", "association"}
    loaded = tid_config.load(Path("/nonexistent-instance"), {"SECRET_KEY": "x"})
    assert loaded["TWO_FACTOR_ROLES"] == {"admin", "association"}


def test_the_setting_names_the_roles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert two_factor.parse_roles("admin, clerk") == {"admin", "clerk"}
    assert two_factor.parse_roles(["auditor"]) == {"auditor"}
    assert two_factor.parse_roles("") == frozenset() == two_factor.parse_roles("none")
    with pytest.raises(ValueError, match="unknown role"):
        two_factor.parse_roles("admin,boss")
    (tmp_path / "config.toml").write_text('two_factor_roles = ["clerk"]\n')
    assert tid_config.load(tmp_path)["TWO_FACTOR_ROLES"] == {"clerk"}
    monkeypatch.setenv("TID_TWO_FACTOR_ROLES", "auditor admin")
    assert tid_config.load(tmp_path)["TWO_FACTOR_ROLES"] == {"auditor", "admin"}


def test_enrolment_at_the_first_sign_in_with_a_qr_code(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    client = app2fa.test_client()
    assert _password(client, people.admin).endswith("/login/enrol")
    # The right password alone opens nothing yet.
    assert client.get("/admin/users").status_code == 302
    page = client.get("/login/enrol")
    html = page.get_data(as_text=True)
    assert 'src="data:image/svg+xml' in html
    assert "img-src 'self' data:" in page.headers["Content-Security-Policy"]
    wrong = client.post("/login/enrol", data={"code": "000000"})
    assert wrong.status_code == 422
    assert client.get("/admin/users").status_code == 302
    secret = re.search(r'<code id="totp-secret">([A-Z2-7 ]+)</code>', html)
    assert secret
    code = pyotp.TOTP(secret.group(1).replace(" ", "")).at(clock.now)
    done = client.post("/login/enrol", data={"code": code})
    codes = re.findall(r"<code>([a-z2-9]{5}-[a-z2-9]{5})</code>", done.get_data(as_text=True))
    assert len(set(codes)) == 10
    assert client.get("/admin/users").status_code == 200
    # Recovery codes are stored hashed.
    stored = {r.code_hash for r in session.exec(select(RecoveryCode))}
    assert len(stored) == 10 and not any(c.replace("-", "") in h for c in codes for h in stored)


def test_signing_in_with_the_app_and_no_code_twice(
    app2fa: Flask, people: People, clock: Clock
) -> None:
    secret, _codes = _enrol(app2fa.test_client(), people.association, clock)
    totp = pyotp.TOTP(secret)
    client = app2fa.test_client()
    assert _password(client, people.association).endswith("/login/code")
    assert client.get("/me").status_code == 302
    assert client.post("/login/code", data={"code": "123456"}).status_code == 401
    # The code used to enrol is not accepted again (same 30-second step).
    assert client.post("/login/code", data={"code": totp.at(clock.now)}).status_code == 401
    clock.now += timedelta(seconds=30)
    assert client.post("/login/code", data={"code": totp.at(clock.now)}).status_code == 302
    assert client.get("/me").status_code == 200
    # Someone who watched that code cannot use it in another sign-in.
    other = app2fa.test_client()
    _password(other, people.association)
    assert other.post("/login/code", data={"code": totp.at(clock.now)}).status_code == 401


def test_a_recovery_code_works_once(app2fa: Flask, people: People, clock: Clock) -> None:
    _secret, codes = _enrol(app2fa.test_client(), people.admin, clock)
    client = app2fa.test_client()
    _password(client, people.admin)
    assert client.post("/login/code", data={"code": codes[0].upper()}).status_code == 302
    again = app2fa.test_client()
    _password(again, people.admin)
    assert again.post("/login/code", data={"code": codes[0]}).status_code == 401
    assert again.post("/login/code", data={"code": codes[1]}).status_code == 302


def test_wrong_codes_are_throttled(app2fa: Flask, people: People, clock: Clock) -> None:
    _enrol(app2fa.test_client(), people.admin, clock)
    client = app2fa.test_client()
    _password(client, people.admin)
    statuses = [client.post("/login/code", data={"code": "000000"}).status_code for _ in range(6)]
    assert 429 in statuses and statuses[0] == 401


def test_roles_not_named_sign_in_with_the_password(app2fa: Flask, people: People) -> None:
    client = app2fa.test_client()
    assert _password(client, people.clerk) == "/"
    assert client.get("/me").status_code == 200


def test_an_unconfirmed_pending_sign_in_expires(
    app2fa: Flask, people: People, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tid.web import auth

    client = app2fa.test_client()
    _password(client, people.admin)
    later = utcnow() + timedelta(minutes=6)
    monkeypatch.setattr(auth, "utcnow", lambda: later)
    response = client.get("/login/enrol")
    assert "Start again" in response.get_data(as_text=True) or "Comience" in response.get_data(
        as_text=True
    )
    assert client.post("/login/enrol", data={"code": "123456"}).status_code == 200
    assert client.get("/me").status_code == 302


def test_an_administrator_resets_a_lost_phone(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    _enrol(app2fa.test_client(), people.association, clock)
    clock.now += timedelta(seconds=60)
    admin_secret, _ = _enrol(app2fa.test_client(), people.admin, clock)
    admin = app2fa.test_client()
    _password(admin, people.admin)
    clock.now += timedelta(seconds=30)
    admin.post("/login/code", data={"code": pyotp.TOTP(admin_secret).at(clock.now)})
    assert "Restablecer" in admin.get("/admin/users").get_data(as_text=True)
    response = admin.post(f"/admin/users/{people.association.id}/two-factor-off")
    assert response.status_code == 302
    client = app2fa.test_client()
    assert _password(client, people.association).endswith("/login/enrol")


def test_two_factor_is_optional_for_others_and_they_may_turn_it_on(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    client = app2fa.test_client()
    _turn_on(client, people.auditor, clock)
    session.expire_all()
    auditor = session.get(User, people.auditor.id)
    assert auditor is not None and two_factor.is_enabled(auditor)
    assert client.post("/me/two-factor/off", data={"current": PASSWORD}).status_code == 302
    session.expire_all()
    auditor = session.get(User, people.auditor.id)
    assert auditor is not None and not two_factor.is_enabled(auditor)


def test_the_demo_turns_it_off_and_keeps_a_choice_already_made(tmp_path: Path) -> None:
    assert demo.turn_off_two_factor(str(tmp_path))
    assert tid_config.load(tmp_path)["TWO_FACTOR_ROLES"] == frozenset()
    assert demo.turn_off_two_factor(str(tmp_path))  # a second run adds nothing
    assert (tmp_path / "config.toml").read_text().count("two_factor_roles") == 1
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    (chosen / "config.toml").write_text('two_factor_roles = "admin"')
    assert not demo.turn_off_two_factor(str(chosen))
    assert tid_config.load(chosen)["TWO_FACTOR_ROLES"] == {"admin"}


def test_the_command_line_resets_a_lost_phone(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    _enrol(app2fa.test_client(), people.admin, clock)
    result = app2fa.test_cli_runner().invoke(args=["users", "reset-two-factor", "ADMIN@example.pr"])
    assert result.exit_code == 0, result.output
    assert _password(app2fa.test_client(), people.admin).endswith("/login/enrol")
    assert session.exec(select(RecoveryCode)).all() == []
    unknown = app2fa.test_cli_runner().invoke(args=["users", "reset-two-factor", "x@y.pr"])
    assert unknown.exit_code == 2


def test_many_sign_ins_with_a_second_factor_do_not_wear_down_the_address(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    """An office behind one address signs in all day: only failures count against it."""
    from tid.models import Throttle

    secret, _codes = _enrol(app2fa.test_client(), people.admin, clock)
    for _ in range(25):
        clock.now += timedelta(seconds=30)
        client = app2fa.test_client()
        assert _password(client, people.admin).endswith("/login/code")
        code = pyotp.TOTP(secret).at(clock.now)
        assert client.post("/login/code", data={"code": code}).status_code == 302
    rows = session.exec(select(Throttle)).all()
    assert rows and all(row.failures == 0 and row.blocked_until is None for row in rows)


def test_turning_it_off_asks_for_the_password_or_a_code(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    """An open session alone (a borrowed browser, a stolen cookie) cannot turn it off."""
    client = app2fa.test_client()
    totp = _turn_on(client, people.auditor, clock)

    def is_on() -> bool:
        session.expire_all()
        auditor = session.get(User, people.auditor.id)
        return auditor is not None and two_factor.is_enabled(auditor)

    bare = client.post("/me/two-factor/off")
    assert bare.status_code == 422 and 'id="e-off-current"' in bare.get_data(as_text=True)
    assert client.post("/me/two-factor/off", data={"current": "not my password"}).status_code == 422
    assert is_on()
    clock.now += timedelta(seconds=30)
    done = client.post("/me/two-factor/off", data={"current": totp.at(clock.now)})
    assert done.status_code == 302 and not is_on()


def test_new_recovery_codes_ask_for_the_password_or_a_code(
    app2fa: Flask, session: Session, people: People, clock: Clock
) -> None:
    secret, codes = _enrol(app2fa.test_client(), people.admin, clock)
    client = app2fa.test_client()
    _password(client, people.admin)
    clock.now += timedelta(seconds=30)
    assert (
        client.post("/login/code", data={"code": pyotp.TOTP(secret).at(clock.now)}).status_code
        == 302
    )
    before = {r.code_hash for r in session.exec(select(RecoveryCode))}
    bare = client.post("/me/two-factor/recovery-codes")
    assert bare.status_code == 422 and 'id="e-codes-current"' in bare.get_data(as_text=True)
    wrong = client.post("/me/two-factor/recovery-codes", data={"current": codes[0]})
    assert wrong.status_code == 422
    session.expire_all()
    assert {r.code_hash for r in session.exec(select(RecoveryCode))} == before
    shown = client.post("/me/two-factor/recovery-codes", data={"current": PASSWORD})
    fresh = re.findall(r"<code>([a-z2-9]{5}-[a-z2-9]{5})</code>", shown.get_data(as_text=True))
    assert shown.status_code == 200 and len(set(fresh)) == 10
    session.expire_all()
    assert not {r.code_hash for r in session.exec(select(RecoveryCode))} & before
