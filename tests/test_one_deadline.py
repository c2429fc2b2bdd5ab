"""One deadline, one answer (/readings#saturday-deadlines): the association's § 6653(5) notice
deadline and
the mayor's § 6653(2) deadline come out the same through every place that shows or uses them
— the calculator, the petition's clocks, billing, the notices, the clerks' digest and the iCal
feed — whichever way the Saturday setting is set, and from wherever it is set (the parameter
file, or the installation's ``TID_DEADLINE_SKIP_SATURDAY``)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import Session

from tests.conftest import People, make_test_app
from tid.jobs import scheduled_jobs as jobs
from tid.models import BillingRun, Ordinance, Petition
from tid.rules import params
from tid.services import billing, notices
from tid.services import petitions as svc
from tid.services.audit_trail import audit

ACTOR = audit.Actor("tests")
DAY = date(2026, 9, 1)  # the day the pages, the digest and the feed are looked at
# 2026-08-06 + 30 days = 2026-09-05, a Saturday; 09-06 is a Sunday and 09-07 Labor Day.
RECEIVED = "2026-08-06"
ON_SATURDAY = date(2026, 9, 5)
SKIPPED = date(2026, 9, 8)

# (where the setting is made, its value)
CASES = [
    ("file", True),  # the shipped district.toml
    ("file", False),  # a parameter file that says false
    ("installation", False),  # TID_DEADLINE_SKIP_SATURDAY=false over the shipped file
    ("installation", True),  # TID_DEADLINE_SKIP_SATURDAY=true over a file that says false
]


@pytest.fixture(params=CASES, ids=[f"{w}-{'skip' if s else 'count'}" for w, s in CASES])
def setting(request: pytest.FixtureRequest) -> Iterator[tuple[str, bool]]:
    yield request.param
    params.set_installation_value(
        "district.deadline_skip_saturday", None, setting="TID_DEADLINE_SKIP_SATURDAY"
    )
    params.reload()


@pytest.fixture
def app(database_url: str, tmp_path: Path, setting: tuple[str, bool]) -> Iterator[Flask]:
    """The app of the conftest, with the Saturday setting made where the case says."""
    where, skip = setting
    if where == "file":
        params.reload(_parameter_file_saying(tmp_path, skip))
        application = make_test_app(database_url, tmp_path, TODAY=DAY.isoformat())
    else:
        params.reload(_parameter_file_saying(tmp_path, not skip))
        application = make_test_app(
            database_url, tmp_path, TODAY=DAY.isoformat(), DEADLINE_SKIP_SATURDAY=skip
        )
    yield application
    application.extensions["tid.engine"].dispose()


def _parameter_file_saying(tmp_path: Path, skip: bool) -> Path:
    folder = tmp_path / "params"
    shutil.copytree(Path(params.__file__).with_name("params"), folder)
    district = folder / "district.toml"
    text = district.read_text(encoding="utf-8")
    head, _, rest = text.partition("[[district.deadline_skip_saturday.values]]")
    rest = rest.replace("value = true", f"value = {'true' if skip else 'false'}", 1)
    district.write_text(f"{head}[[district.deadline_skip_saturday.values]]{rest}", "utf-8")
    return folder


def _approved_with_receipt(session: Session, people: People) -> tuple[Petition, Ordinance]:
    """A petition the mayor approved whose ordinance the association received on RECEIVED."""
    petition = _through_the_legislature(session, people, "DMT de Condado", "2026-06-01")
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on="2026-07-01", today=DAY)
    svc.mayor_approves(session=session, actor=ACTOR, petition=petition, on="2026-07-02", today=DAY)
    svc.record_association_receipt(
        session=session, actor=ACTOR, petition=petition, on=RECEIVED, today=DAY
    )
    session.commit()
    ordinance = svc.ordinance_of(session=session, petition=petition)
    assert ordinance is not None
    return petition, ordinance


def _with_the_mayor(session: Session, people: People) -> Petition:
    """A petition whose ordinance the mayor received on RECEIVED (§ 6653(2): 30 days)."""
    petition = _through_the_legislature(session, people, "DMT de Isla Verde", "2026-06-02")
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on=RECEIVED, today=DAY)
    session.commit()
    return petition


def _through_the_legislature(
    session: Session, people: People, name: str, received: str
) -> Petition:
    petition = svc.record_petition(
        session=session,
        actor=ACTOR,
        municipality_id=str(people.municipality.id),
        district_name=name,
        petitioner="Hon. Alcalde",
        received_on=received,
        documents="Petición y plano.",
        today=DAY,
    )
    svc.start_study(session=session, actor=ACTOR, petition=petition, on=received, today=DAY)
    for letter in "abcde":
        svc.record_finding(
            session=session,
            actor=ACTOR,
            petition=petition,
            factor=letter,
            favourable="yes",
            grounds=f"Fundamentos del factor {letter}.",
            on=received,
            today=DAY,
        )
    svc.issue_ordinance(
        session=session,
        actor=ACTOR,
        petition=petition,
        today=DAY,
        number=f"Ord. {petition.id}",
        district_name=name,
        expected_amount="1,250,000.50",
        term_years="10",
        formula="max(250.00, 0.0035 * assessed_value)",
        association_name="Asociación, Inc.",
        issued_on="2026-06-20",
    )
    session.commit()
    return petition


def _calculator(app: Flask, key: str, answer: str) -> date:
    """The public calculator, as a user calls it: no Saturday choice of their own."""
    response = app.test_client().post(
        "/api/v1/calc/deadlines", data=json.dumps({key: RECEIVED}), content_type="application/json"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return date.fromisoformat(response.get_json()[answer]["date"])


def _ical_days(app: Flask, session: Session, people: People) -> dict[str, date]:
    token = svc.issue_calendar_token(session=session, actor=ACTOR, user=people.clerk)
    session.commit()
    response = app.test_client().get(f"/petitions/calendar/{token}.ics")
    assert response.status_code == 200
    found: dict[str, date] = {}
    for event in response.get_data(as_text=True).split("BEGIN:VEVENT")[1:]:
        uid = re.search(r"UID:tid-petition-\d+-(\w+)@", event)
        day = re.search(r"DTSTART;VALUE=DATE:(\d{8})", event)
        assert uid and day
        found[uid.group(1)] = date(
            int(day.group(1)[:4]), int(day.group(1)[4:6]), int(day.group(1)[6:])
        )
    return found


def test_one_deadline_has_one_answer_everywhere(
    app: Flask, session: Session, people: People, setting: tuple[str, bool]
) -> None:
    expected = SKIPPED if setting[1] else ON_SATURDAY
    petition, ordinance = _approved_with_receipt(session, people)
    with_mayor = _with_the_mayor(session, people)

    # § 6653(5): the association's 30 days to notify every owner.
    clocks = {c.kind: c for c in svc.clocks(petition, ordinance, today=DAY)}
    first_run = BillingRun(
        district_id=people.district.id or 0,
        fiscal_year=billing.ordinance_term(ordinance)[0].label,
    )
    notice_deadline, why_not = notices.notice_deadline(
        session=session, ordinance=ordinance, run=first_run
    )
    assert notice_deadline is not None, why_not
    answers = {
        "calculator": _calculator(app, "ordinance_received_by_association", "initial_notice_due"),
        "petition": clocks["notice"].due,
        "billing": billing.earliest_due_date(date.fromisoformat(RECEIVED), ordinance).date,
        "notices": notice_deadline.date,
        "iCal": _ical_days(app, session, people)["notice"],
    }
    assert answers == dict.fromkeys(answers, expected)

    # § 6653(2): the mayor's 30 days — the clerks' digest carries the legislature's and the
    # mayor's clocks (the association's is not theirs), so it is checked on this one.
    mayor = svc.running_clock(
        with_mayor, svc.ordinance_of(session=session, petition=with_mayor), today=DAY
    )
    assert mayor is not None and mayor.kind == "mayor"
    rows = svc.due_soon(svc.dashboard(session=session, today=DAY))
    _subject, digest = jobs.compose_digest("San Juan", rows, DAY, "https://tid.example.pr")
    in_digest = {
        datetime.strptime(day, "%b %d, %Y").date()
        for day in re.findall(r"(\w{3} \d{1,2}, \d{4}), \d+ days left", digest)
    }
    answers = {
        "calculator": _calculator(app, "ordinance_received_by_mayor", "mayor_decision_due"),
        "petition": mayor.due,
        "iCal": _ical_days(app, session, people)["mayor"],
    }
    assert answers == dict.fromkeys(answers, expected)
    assert in_digest == {expected}
