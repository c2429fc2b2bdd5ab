"""``tid demo``: loads every area's demo once, prints the logins, and the portal sample it
prints really opens the owner's notice."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskCliRunner
from sqlmodel import Session, func, select

from tests.conftest import login
from tid.demo import DEMO_PASSWORD
from tid.models import JournalEntry, Notice, Petition, PropertyYear, User


def _counts(session: Session) -> tuple[int, ...]:
    return tuple(
        session.exec(select(func.count()).select_from(table)).one()
        for table in (User, Petition, PropertyYear, Notice, JournalEntry)
    )


def test_the_demo_loads_once_and_its_logins_and_portal_code_work(
    app: Flask, runner: FlaskCliRunner, session: Session
) -> None:
    first = runner.invoke(args=["demo"])
    assert first.exit_code == 0, first.output
    for email in (
        "secretaria@demo.tid.pr",
        "asociacion@demo.tid.pr",
        "auditor@demo.tid.pr",
        "admin@demo.tid.pr",
    ):
        assert email in first.output
    counts = _counts(session)
    assert all(n > 0 for n in counts), counts
    assert "Two-factor sign-in is OFF in this demo" in first.output

    second = runner.invoke(args=["demo"])
    assert second.exit_code == 0, second.output
    session.expire_all()
    assert _counts(session) == counts  # nothing loaded twice

    client = app.test_client()
    login(client, "secretaria@demo.tid.pr", DEMO_PASSWORD)
    page = client.get("/petitions/").get_data(as_text=True)
    assert "2026-06-01" in page  # the petition received 2026-03-02, due after the Sunday

    treasurer = app.test_client()
    login(treasurer, "asociacion.condado@demo.tid.pr", DEMO_PASSWORD)
    account = treasurer.get("/account", follow_redirects=True).get_data(as_text=True)
    district_link = re.search(r'href="/account/(\d+)"', account)
    assert district_link, account[:2000]
    dashboard = treasurer.get(f"/account/{district_link[1]}").get_data(as_text=True)
    # Opens on the last fiscal year with bookings (the demo's 2025-26), not an empty one.
    assert 'value="2025-26"' in dashboard

    sample = re.search(r"notice (\S+), access code (\S+)", first.output)
    assert sample, first.output
    owner = app.test_client()
    response = owner.post("/portal", data={"number": sample[1], "code": sample[2]})
    assert response.status_code == 302 and response.location.endswith("/portal/notices")
    assert sample[1] in owner.get("/portal/notices").get_data(as_text=True)
