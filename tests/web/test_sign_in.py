"""Staff sign-in under attack: a growing delay and a lock-out per account and per address,
kept in the database (so every worker sees them, and parallel guesses cannot slip past),
an administrator lifts a lock-out, and an unknown email is treated exactly like a known one.
Sessions end after an idle time and an absolute lifetime; a person sees their own sessions
and can sign out everywhere."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select
from werkzeug.test import TestResponse

from tests.conftest import PASSWORD, People, login, make_test_app
from tid.clock import utcnow
from tid.models import AuditEvent, KnownDevice, LoginSession, Throttle, User
from tid.services.auth import passwords, sign_in, users
from tid.services.limits import throttle


class Clock:
    """The throttle's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    value = Clock()
    monkeypatch.setattr(throttle, "utcnow", value)
    return value


def _try(client: FlaskClient, email: str, password: str, ip: str = "192.0.2.1") -> object:
    return client.post(
        "/login", data={"email": email, "password": password}, environ_base={"REMOTE_ADDR": ip}
    )


def _reset(client: FlaskClient, token: str, password: str) -> TestResponse:
    """Set a new password with a reset link's token."""
    data = {"token": token, "password": password, "confirm": password}
    return client.post("/password/reset", data=data)


def _status(response: object) -> int:
    return int(response.status_code)  # type: ignore[attr-defined]


def _text(response: object) -> str:
    return str(response.get_data(as_text=True))  # type: ignore[attr-defined]


def test_fifty_wrong_passwords_then_the_right_one_does_not_log_in(
    client: FlaskClient, people: People, clock: Clock
) -> None:
    statuses = []
    for _ in range(50):
        statuses.append(_status(_try(client, people.admin.email, "wrong password!")))
        clock.advance(seconds=0.5)
    # Three free failures, then a growing delay: attempts in the delay are not evaluated.
    assert statuses[:4] == [401] * 4
    assert 429 in statuses
    right = _try(client, people.admin.email, PASSWORD)
    assert _status(right) == 429
    assert "Retry-After" in right.headers  # type: ignore[attr-defined]


def test_strangers_slow_the_account_down_by_minutes_at_most(
    client: FlaskClient, session: Session, people: People, clock: Clock
) -> None:
    """From browsers that never signed in to it, failures delay the account more and more,
    up to five minutes, and never lock it."""
    key = f"login-account:{people.clerk.email}"
    waits = []
    for _ in range(14):
        assert _status(_try(client, people.clerk.email, "wrong password!")) == 401
        row = session.exec(
            select(Throttle).where(Throttle.key == key).execution_options(populate_existing=True)
        ).one()
        waits.append((row.blocked_until - clock.now).total_seconds() if row.blocked_until else 0)
        # Within the wait, even the right password is refused without being checked.
        if row.blocked_until:
            refused = _try(client, people.clerk.email, PASSWORD)
            assert _status(refused) == 429 and "bloqueado" not in _text(refused)
        clock.advance(minutes=10)  # past any delay
    assert waits == [0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]
    assert _status(_try(client, people.clerk.email, PASSWORD)) == 302


def _known_device(app: Flask, user: User, ip: str = "192.0.2.10") -> FlaskClient:
    """A browser that signed in to the account once (it keeps its device cookie)."""
    browser = app.test_client()
    login(browser, user, ip=ip)
    assert browser.get_cookie("tid_device") is not None
    browser.post("/logout")
    return browser


def _lock_the_device(browser: FlaskClient, email: str, clock: Clock) -> None:
    for _ in range(10):
        assert _status(_try(browser, email, "wrong password!", ip="192.0.2.10")) == 401
        clock.advance(minutes=10)
    locked = _try(browser, email, PASSWORD, ip="192.0.2.10")
    assert _status(locked) == 429 and "bloqueado" in _text(locked)


def test_strangers_cannot_lock_the_person_out(
    app: Flask, client: FlaskClient, people: People, clock: Clock
) -> None:
    """Ten wrong passwords for a staff email from ten addresses within 71 seconds: the person
    signs in at once from a browser they used before, and from any other after the delay."""
    mine = _known_device(app, people.clerk)
    gaps = [1, 1, 1, 1.5, 2.5, 4.5, 8.5, 16.5, 32.5, 0]  # each try after the delay before it
    for i, gap in enumerate(gaps):
        assert _status(_try(client, people.clerk.email, "wrong password!", ip=f"10.{i}.0.7")) == 401
        clock.advance(seconds=gap)
    assert sum(gaps) <= 71
    # The person's own browser, from an address of its own: in at once.
    assert _status(_try(mine, people.clerk.email, PASSWORD, ip="198.51.100.70")) == 302
    # A browser that never signed in to the account waits out the delay, no more.
    other = app.test_client()
    waiting = _try(other, people.clerk.email, PASSWORD, ip="198.51.100.71")
    assert _status(waiting) == 429
    wait = int(waiting.headers["Retry-After"])  # type: ignore[attr-defined]
    assert 0 < wait <= sign_in.UNKNOWN_MAX_DELAY.total_seconds()
    clock.advance(seconds=wait)
    assert _status(_try(other, people.clerk.email, PASSWORD, ip="198.51.100.71")) == 302


def test_a_known_device_counts_only_its_own_failures(
    app: Flask, client: FlaskClient, people: People, clock: Clock
) -> None:
    """Wrong passwords from the person's own browser lock that browser, not the account."""
    mine = _known_device(app, people.clerk)
    _lock_the_device(mine, people.clerk.email, clock)
    assert _status(_try(client, people.clerk.email, PASSWORD, ip="192.0.2.10")) == 302
    # A device cookie is the account's: for another account that browser is a stranger.
    for _ in range(4):
        _try(mine, people.auditor.email, "wrong password!", ip="192.0.2.10")
    assert _status(_try(client, people.auditor.email, PASSWORD, ip="192.0.2.11")) == 429


def test_the_device_cookie(app: Flask, session: Session, people: People) -> None:
    browser = app.test_client()
    response = browser.post("/login", data={"email": people.clerk.email, "password": PASSWORD})
    header = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("tid_device="))
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Secure" not in header
    assert "Max-Age=31536000" in header
    value = header.split(";")[0].split("=", 1)[1]
    device = session.exec(select(KnownDevice)).one()
    assert device.user_id == people.clerk.id and len(device.token_hash) == 64
    assert device.token_hash not in value
    # Signing in again from it keeps the one device; a forged cookie counts for nothing.
    browser.post("/logout")
    login(browser, people.clerk)
    assert len(session.exec(select(KnownDevice)).all()) == 1
    forged = app.test_client()
    forged.set_cookie("tid_device", value.rsplit(".", 1)[0] + ".forged")
    login(forged, people.clerk)
    assert len(session.exec(select(KnownDevice)).all()) == 2
    app.config["SESSION_COOKIE_SECURE"] = True
    done = app.test_client().post(
        "/login", data={"email": people.auditor.email, "password": PASSWORD}
    )
    assert any(
        h.startswith("tid_device=") and "Secure" in h for h in done.headers.getlist("Set-Cookie")
    )


def test_an_administrator_lifts_a_lock_out(
    app: Flask, session: Session, people: People, clock: Clock
) -> None:
    mine = _known_device(app, people.clerk)
    _lock_the_device(mine, people.clerk.email, clock)
    admin = app.test_client()
    login(admin, people.admin, ip="198.51.100.1")
    page = admin.get("/admin/lockouts").get_data(as_text=True)
    assert f"navegador conocido de {people.clerk.email}" in page
    assert admin.post("/admin/lockouts/999999/lift").status_code == 404
    device = session.exec(select(KnownDevice).where(KnownDevice.user_id == people.clerk.id)).one()
    key = f"login-device:{device.id}:{people.clerk.email}"
    row = session.exec(select(Throttle).where(Throttle.key == key)).one()
    assert admin.post(f"/admin/lockouts/{row.id}/lift").status_code == 302
    assert _status(_try(mine, people.clerk.email, PASSWORD, ip="192.0.2.10")) == 302
    events = session.exec(select(AuditEvent).where(AuditEvent.action == "throttle.lift")).all()
    assert [e.actor for e in events] == [people.admin.email]


def test_an_unknown_email_gets_the_same_answers_and_the_same_work(
    client: FlaskClient, people: People, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    class Counting(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            calls.append("verify")
            return bool(super().verify(hash, password))

    monkeypatch.setattr(passwords, "_hasher", Counting(time_cost=1, memory_cost=256, parallelism=1))

    def run(email: str) -> tuple[list[int], list[str], int]:
        calls.clear()
        statuses, pages = [], []
        for _ in range(12):
            response = _try(client, email, "wrong password!", ip=f"10.0.0.{len(email)}")
            statuses.append(_status(response))
            pages.append(_text(response).replace(email, "EMAIL"))
            clock.advance(minutes=10)
        return statuses, pages, len(calls)

    known = run(people.auditor.email)
    unknown = run("nobody.here@example.pr")
    assert known[0] == unknown[0]
    csrf = re.compile(r'name="csrf_token" value="[^"]*"')
    assert [csrf.sub("", p) for p in known[1]] == [csrf.sub("", p) for p in unknown[1]]
    # Each evaluated attempt costs one argon2 verification, account or not.
    assert known[2] == unknown[2] == known[0].count(401)


def test_an_address_trying_many_accounts_is_limited(
    app: Flask, client: FlaskClient, people: People, clock: Clock
) -> None:
    app.config["LOGIN_LOCKOUT_AFTER"] = 2  # per address: a delay after 4, locked at 20
    for i in range(20):
        assert _status(_try(client, f"person{i}@example.pr", "guess", ip="203.0.113.5")) == 401
        clock.advance(minutes=10)
    assert _status(_try(client, people.clerk.email, PASSWORD, ip="203.0.113.5")) == 429
    assert _status(_try(client, people.clerk.email, PASSWORD, ip="203.0.113.6")) == 302


@pytest.mark.both_databases
def test_the_limit_holds_across_workers(
    database_url: str, tmp_path: Path, people: People, clock: Clock
) -> None:
    """Two app processes on one database: failures in one count in the other."""
    first = make_test_app(database_url, tmp_path / "one")
    second = make_test_app(database_url, tmp_path / "two")
    try:
        for _ in range(4):
            assert _status(_try(first.test_client(), people.clerk.email, "wrong!!")) == 401
        assert _status(_try(second.test_client(), people.clerk.email, PASSWORD)) == 429
    finally:
        first.extensions["tid.engine"].dispose()
        second.extensions["tid.engine"].dispose()


@pytest.mark.both_databases
def test_parallel_guesses_cannot_slip_past_the_check(
    app: Flask, people: People, clock: Clock
) -> None:
    """Sixteen wrong passwords at once: the free three and the fourth (which starts the
    delay) are evaluated, every other one is refused unevaluated."""
    barrier = threading.Barrier(16)
    statuses: list[int] = []
    lock = threading.Lock()

    def guess() -> None:
        client = app.test_client()
        barrier.wait()
        status = _status(_try(client, people.admin.email, "wrong password!"))
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=guess) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [401] * 4 + [429] * 12


def test_a_right_password_clears_the_accounts_failures(
    client: FlaskClient, people: People, clock: Clock
) -> None:
    for _ in range(3):
        _try(client, people.clerk.email, "wrong password!")
    assert _status(_try(client, people.clerk.email, PASSWORD)) == 302
    client.post("/logout")
    for _ in range(3):  # three free failures again, no delay
        assert _status(_try(client, people.clerk.email, "wrong password!")) == 401
    assert _status(_try(client, people.clerk.email, PASSWORD)) == 302


# --------------------------------------------------------------------------- sessions


def _users_clock(monkeypatch: pytest.MonkeyPatch, at: datetime) -> None:
    monkeypatch.setattr(users, "utcnow", lambda: at)


def test_a_session_ends_after_the_idle_timeout(
    client: FlaskClient, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    login(client, people.auditor)
    assert client.get("/me").status_code == 200
    start = utcnow()
    _users_clock(monkeypatch, start + timedelta(minutes=29))
    assert client.get("/me").status_code == 200
    _users_clock(monkeypatch, start + timedelta(minutes=29 + 31))
    response = client.get("/me")
    assert response.status_code == 302 and "/login" in response.location


def test_a_session_ends_after_its_lifetime_even_when_used(
    client: FlaskClient, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    login(client, people.auditor)
    start = utcnow()
    for minutes in range(20, 12 * 60, 20):  # used every 20 minutes: never idle
        _users_clock(monkeypatch, start + timedelta(minutes=minutes))
        assert client.get("/me").status_code == 200, minutes
    _users_clock(monkeypatch, start + timedelta(hours=12, minutes=1))
    assert client.get("/me").status_code == 302


def test_the_timeouts_are_settings(
    database_url: str, tmp_path: Path, people: People, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_test_app(database_url, tmp_path, SESSION_IDLE_MINUTES=5)
    try:
        client = app.test_client()
        login(client, people.auditor)
        _users_clock(monkeypatch, utcnow() + timedelta(minutes=6))
        assert client.get("/me").status_code == 302
    finally:
        app.extensions["tid.engine"].dispose()


def test_my_sessions_and_signing_out_everywhere(
    app: Flask, client: FlaskClient, session: Session, people: People
) -> None:
    other: FlaskClient = app.test_client()
    login(other, people.clerk, ip="198.51.100.23")
    login(client, people.clerk)
    page = client.get("/me").get_data(as_text=True)
    assert "198.51.100.23" in page and page.count('/end"') == 1  # the other one, not this
    # End the other session from this one.
    other_login = session.exec(
        select(LoginSession).where(LoginSession.address == "198.51.100.23")
    ).one()
    assert client.post(f"/me/sessions/{other_login.id}/end").status_code == 302
    assert other.get("/me").status_code == 302
    # Someone else's session id does nothing.
    third = app.test_client()
    login(third, people.clerk, ip="198.51.100.24")
    auditor = app.test_client()
    login(auditor, people.auditor)
    mine = session.exec(select(LoginSession).where(LoginSession.address == "198.51.100.24")).one()
    auditor.post(f"/me/sessions/{mine.id}/end")
    assert third.get("/me").status_code == 200
    # Sign out everywhere: both remaining sessions of the clerk end.
    response = client.post("/me/sessions/end-all")
    assert response.status_code == 302 and "/login" in response.location
    assert client.get("/me").status_code == 302
    assert third.get("/me").status_code == 302
    assert auditor.get("/me").status_code == 200


def test_the_command_line_lifts_a_lock_out(
    app: Flask, client: FlaskClient, session: Session, people: People, clock: Clock
) -> None:
    """The account's delay and the lock-outs of the browsers it signed in from."""
    mine = _known_device(app, people.admin)
    _lock_the_device(mine, people.admin.email, clock)
    for _ in range(14):
        _try(client, people.admin.email, "wrong password!", ip="192.0.2.20")
        clock.advance(seconds=30)
    assert _status(_try(client, people.admin.email, PASSWORD, ip="192.0.2.20")) == 429
    result = app.test_cli_runner().invoke(args=["users", "unlock", people.admin.email.upper()])
    assert result.exit_code == 0 and "Lifted" in result.output
    assert _status(_try(mine, people.admin.email, PASSWORD, ip="192.0.2.10")) == 302
    assert _status(_try(client, people.admin.email, PASSWORD, ip="192.0.2.20")) == 302
    never = app.test_cli_runner().invoke(args=["users", "unlock", "never@example.pr"])
    assert never.exit_code == 0 and "was not locked" in never.output


def test_guessing_the_current_password_from_an_open_session_is_throttled(
    client: FlaskClient, people: People, clock: Clock
) -> None:
    login(client, people.auditor)
    statuses = []
    for _ in range(5):
        response = client.post(
            "/me/password",
            data={"current": "a guess at it", "new": "x" * 12, "confirm": "x" * 12},
        )
        statuses.append(response.status_code)
    assert statuses == [422, 422, 422, 422, 429]


def test_a_reset_link_lets_a_locked_person_in_and_ends_the_lock(
    app: Flask, session: Session, people: People, clock: Clock
) -> None:
    mine = _known_device(app, people.clerk)
    _lock_the_device(mine, people.clerk.email, clock)
    found = passwords.request_reset(session=session, email=people.clerk.email)
    session.commit()
    assert found is not None
    new = "un faro en la bahía de noche"
    done = _reset(mine, found[1], new)
    assert done.status_code == 302 and mine.get("/me").status_code == 200
    mine.post("/logout")
    assert _status(_try(mine, people.clerk.email, new, ip="192.0.2.10")) == 302


def test_the_language_chosen_before_signing_in_is_kept_in_and_out(
    client: FlaskClient, people: People
) -> None:
    """The toggle outranks the account's language: a reader who chose English on the login
    page reads English once signed in (a new session, but the same reader), and after
    signing out."""
    user = people.by_role("association")
    assert user.locale != "en"
    client.post("/lang/en", data={"next": "/login"})
    assert '<html lang="en">' in _text(client.get("/login"))
    login(client, user)
    assert '<html lang="en">' in _text(client.get("/"))
    with client.session_transaction() as kept:
        assert set(kept) - {"lang", "csrf_token"} >= {"_user_id"}
    client.post("/logout")
    assert '<html lang="en">' in _text(client.get("/login"))
