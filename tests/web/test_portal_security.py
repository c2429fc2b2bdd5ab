"""The owners' portal under attack: strangers cannot lock an owner out of their notice,
guessing stays limited (per address, per network, and a global slow-down), the limit holds
under parallel requests, and the portal's session lives on the server: it expires, and
leaving revokes it even for a copy of the cookie."""

from __future__ import annotations

import math
import threading
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, func, select

from tests.conftest import People
from tests.web.test_portal import Mailed, _look_up, _mailed
from tid.clock import utcnow
from tid.models import PortalAttempt
from tid.services.owners import portal


@pytest.fixture
def mailed(session: Session, people: People) -> Mailed:
    return _mailed(session, people, ["María Rodríguez", "José Pérez"])


def _status(response: object) -> int:
    return int(response.status_code)  # type: ignore[attr-defined]


def test_the_access_code_has_about_59_bits() -> None:
    from tid.services import notices

    assert len(notices.ACCESS_ALPHABET) == 31 and notices.ACCESS_LENGTH == 12
    assert pytest.approx(12 * math.log2(31)) == portal.CODE_BITS
    assert 59.4 < portal.CODE_BITS < 59.5


def test_strangers_cannot_lock_the_owner_out_of_a_notice(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine = mailed.notices[0]
    # Thirty wrong codes for the owner's number, from thirty networks.
    for i in range(30):
        response = _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip=f"10.{i}.0.1")
        assert _status(response) == 422
    # The owner, with the right code, still gets in.
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="203.0.113.50")) == 302


def test_rotating_addresses_within_one_network_is_limited(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine = mailed.notices[0]
    statuses = [
        _status(_look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip=f"198.51.100.{i}"))
        for i in range(20)
    ]
    assert statuses == [422] * 20
    # An address of that network that has failed now waits (its own allowance is not spent).
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="198.51.100.3")) == 429
    # A neighbour that has not failed: its right code opens the notice …
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="198.51.100.200")) == 302
    # … and its wrong code is answered once, then it waits too.
    assert _status(_look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip="198.51.100.201")) == 422
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="198.51.100.201")) == 429
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="192.0.2.200")) == 302


def test_many_failures_across_the_portal_slow_everyone_down(
    client: FlaskClient, mailed: Mailed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(portal, "GLOBAL_FAILURES", 4)
    mine = mailed.notices[0]
    for i in range(4):
        assert _status(_look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip=f"10.{i}.0.9")) == 422
    # Under attack each address waits after each failure past its first …
    assert _status(_look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip="10.99.0.9")) == 422
    assert _status(_look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip="10.99.0.9")) == 422
    waiting = _look_up(client, "2026-999999", "AAAA-BBBB-CCCC", ip="10.99.0.9")
    assert _status(waiting) == 429
    assert int(waiting.headers["Retry-After"]) <= 30  # type: ignore[attr-defined]
    # … the right code from an address that has not failed still opens the notice …
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="10.100.0.9")) == 302
    # … and an owner's typo costs nothing: the right code next opens it.
    assert _status(_look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="10.101.0.9")) == 422
    assert _status(_look_up(client, mine.number, mailed.codes[0], ip="10.101.0.9")) == 302


def test_a_successful_look_up_does_not_use_up_the_allowance(
    client: FlaskClient, mailed: Mailed
) -> None:
    mine = mailed.notices[0]
    for _ in range(8):
        assert _status(_look_up(client, mine.number, mailed.codes[0])) == 302
    for _ in range(5):
        assert _status(_look_up(client, mine.number, "AAAA-BBBB-CCCC")) == 422
    assert _status(_look_up(client, mine.number, "AAAA-BBBB-CCCC")) == 429


@pytest.mark.both_databases
def test_parallel_guesses_never_exceed_the_limit(
    app: Flask, session: Session, mailed: Mailed
) -> None:
    """Twenty parallel wrong guesses from one address: exactly five are evaluated."""
    number = mailed.notices[1].number
    barrier = threading.Barrier(20)
    statuses: list[int] = []
    lock = threading.Lock()

    def guess() -> None:
        client = app.test_client()
        barrier.wait()
        response = _look_up(client, number, "AAAA-BBBB-CCCC", ip="192.0.2.77")
        with lock:
            statuses.append(_status(response))

    threads = [threading.Thread(target=guess) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [422] * 5 + [429] * 15
    evaluated = session.exec(
        select(func.count()).select_from(PortalAttempt).where(PortalAttempt.client == "192.0.2.77")
    ).one()
    assert evaluated == 5


def test_leaving_revokes_a_copied_cookie(client: FlaskClient, mailed: Mailed) -> None:
    mine = mailed.notices[0]
    assert _status(_look_up(client, mine.number, mailed.codes[0])) == 302
    copied = client.get_cookie("session")
    assert copied is not None
    assert client.get("/portal/notices").status_code == 200
    client.post("/portal/leave")
    # Someone who copied the cookie before the owner left gets nothing.
    thief = client.application.test_client()
    thief.set_cookie("session", copied.value)
    assert thief.get("/portal/notices").status_code == 302
    assert thief.get(f"/portal/notices/{mine.public_id}.pdf").status_code == 404


def test_the_cookie_holds_no_notice_ids(client: FlaskClient, mailed: Mailed) -> None:
    import base64
    import zlib

    mine = mailed.notices[0]
    _look_up(client, mine.number, mailed.codes[0])
    cookie = client.get_cookie("session")
    assert cookie is not None
    payload = cookie.value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    if cookie.value.startswith("."):
        raw = zlib.decompress(raw)
    assert b"portal_token" in raw and b"portal_notices" not in raw


def test_a_portal_session_expires(
    client: FlaskClient, mailed: Mailed, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = mailed.notices[0]
    _look_up(client, mine.number, mailed.codes[0])
    assert client.get("/portal/notices").status_code == 200
    later = utcnow() + timedelta(minutes=21)  # idle longer than the 20 minutes
    monkeypatch.setattr(portal, "utcnow", lambda: later)
    assert client.get("/portal/notices").status_code == 302
    assert client.get(f"/portal/notices/{mine.public_id}.pdf").status_code == 404


def test_a_portal_session_ends_after_its_lifetime_even_when_used(
    client: FlaskClient, mailed: Mailed, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = mailed.notices[0]
    _look_up(client, mine.number, mailed.codes[0])
    start = utcnow()
    for minutes in range(15, 120, 15):  # used every 15 minutes: never idle for 20
        moment = start + timedelta(minutes=minutes)
        monkeypatch.setattr(portal, "utcnow", lambda moment=moment: moment)
        assert client.get("/portal/notices").status_code == 200, minutes
    end = start + timedelta(hours=2, minutes=1)
    monkeypatch.setattr(portal, "utcnow", lambda: end)
    assert client.get("/portal/notices").status_code == 302


def test_old_throttles_and_ended_portal_sessions_are_pruned(
    client: FlaskClient, session: Session, mailed: Mailed
) -> None:
    from tid.models import PortalSession, Throttle

    mine = mailed.notices[0]
    _look_up(client, mine.number, "AAAA-BBBB-CCCC", ip="192.0.2.90")
    _look_up(client, mine.number, mailed.codes[0], ip="192.0.2.91")
    client.post("/portal/leave")
    assert session.exec(select(func.count()).select_from(Throttle)).one() > 0
    # Nothing recent is forgotten …
    portal.prune_attempts(session=session, before=utcnow() - timedelta(days=1))
    session.commit()
    assert session.exec(select(func.count()).select_from(PortalSession)).one() == 1
    assert session.exec(select(func.count()).select_from(Throttle)).one() > 0
    # … and a day later everything that ended is.
    portal.prune_attempts(session=session, before=utcnow() + timedelta(seconds=1))
    session.commit()
    assert session.exec(select(func.count()).select_from(PortalSession)).one() == 0
    assert session.exec(select(func.count()).select_from(Throttle)).one() == 0
