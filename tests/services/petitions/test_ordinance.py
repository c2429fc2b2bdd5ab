"""The ordinance and the lifecycle to publication (§ 6653(2)–(5);
/readings#week-following-approval): the
district linked, bad content refused, every transition checked, the publication week, the
denial, the CRIM copy.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.petitions.helpers import (
    ACTOR,
    ORDINANCE,
    TODAY,
    approved_petition,
    audit_events,
    find_all,
    issued_ordinance,
    received_petition,
)
from tid.models import District, Ordinance
from tid.services import petitions as svc


def test_issuing_the_ordinance_creates_and_links_the_district(
    session: Session, people: People
) -> None:
    petition, ordinance = issued_ordinance(session, people)
    assert petition.state == "ordinance_issued"
    assert ordinance.expected_amount == Decimal("1250000.50")
    assert ordinance.term_years == 10
    district = session.get(District, ordinance.district_id)
    assert district is not None
    assert district.name == "DMT de Condado"
    assert district.municipality_id == people.municipality.id
    assert district.association_name == "Asociación de Condado, Inc."
    # The ordinance clock stopped on the issue day, 2026-03-08 ≤ 2026-06-01: met.
    ordinance_clock = svc.clocks(petition, ordinance, today=TODAY)[0]
    assert ordinance_clock.running is False and ordinance_clock.met is True


def test_an_existing_district_of_the_same_name_is_linked_not_duplicated(
    session: Session, people: People
) -> None:
    _, ordinance = issued_ordinance(session, people, district_name=people.district.name)
    assert ordinance.district_id == people.district.id
    names = [d.name for d in session.exec(select(District))]
    assert names.count(people.district.name) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("expected_amount", "mucho"),
        ("expected_amount", "12abc"),
        ("expected_amount", "0"),
        ("expected_amount", "10.001"),
        ("expected_amount", "9" * 40),
        ("term_years", "0"),
        ("term_years", "diez"),
        ("term_years", "1.5"),
        ("term_years", "100"),
        ("formula", ""),
        ("formula", "0.35% del valor tasado"),  # words, not a formula the billing run reads
        ("formula", "(1 + " * 70 + "assessed_value" + ")" * 70),  # nests past the bound
        ("formula", "max(1, assessed_value"),
        ("association_name", ""),
        ("issued_on", "2026-03-02"),  # before the study started (03-03)
        ("issued_on", "2026-04-01"),  # future
    ],
)
def test_bad_ordinance_content_writes_nothing(
    session: Session, people: People, field: str, value: str
) -> None:
    petition = received_petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    find_all(session, petition)
    events = len(audit_events(session))
    with pytest.raises(svc.PetitionError) as caught:
        svc.issue_ordinance(
            session=session,
            actor=ACTOR,
            petition=petition,
            today=TODAY,
            **{**ORDINANCE, field: value},
        )
    assert caught.value.field == field
    session.rollback()
    assert session.exec(select(Ordinance)).all() == []
    assert session.exec(select(District).where(District.name == "DMT de Condado")).all() == []
    assert len(audit_events(session)) == events


def test_an_unfavourable_finding_is_allowed_but_flagged(session: Session, people: People) -> None:
    petition = received_petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    find_all(session, petition, unfavourable="d")
    svc.issue_ordinance(session=session, actor=ACTOR, petition=petition, today=TODAY, **ORDINANCE)
    session.commit()
    assert svc.unfavourable_factors(session=session, petition=petition) == ["d"]
    issue = next(e for e in audit_events(session) if e.action == "ordinance.issue")
    assert json.loads(issue.after or "{}")["unfavourable_findings"] == "d"


def test_the_whole_lifecycle_to_publication(session: Session, people: People) -> None:
    today = date(2026, 4, 30)
    petition, ordinance = issued_ordinance(session, people)
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on="2026-03-12", today=today)
    assert petition.state == "with_mayor"
    mayor = svc.running_clock(petition, ordinance, today=date(2026, 4, 1))
    # 2026-03-12 + 30 days = 2026-04-11, a Saturday (skipped by the setting) → 04-12 Sunday
    # → Monday 2026-04-13. From 2026-04-01 that is 12 days.
    assert mayor is not None and mayor.kind == "mayor"
    assert mayor.due == date(2026, 4, 13) and mayor.days_left == 12
    svc.mayor_approves(
        session=session, actor=ACTOR, petition=petition, on="2026-03-20", today=today
    )
    assert petition.state == "approved" and ordinance.approved_on == date(2026, 3, 20)
    window = svc.running_clock(petition, ordinance, today=date(2026, 3, 22))
    # The week following 2026-03-20: 03-21 … 03-27; on 03-22, 5 days to its last day.
    assert window is not None and window.kind == "publication"
    assert (window.start, window.due, window.days_left) == (
        date(2026, 3, 21),
        date(2026, 3, 27),
        5,
    )
    svc.publish(
        session=session,
        actor=ACTOR,
        petition=petition,
        on="2026-03-25",
        newspaper="El Nuevo Día",
        outside_window_confirmed=False,
        today=today,
    )
    assert petition.state == "published" and petition.published_outside_window is False
    svc.record_crim_copy(
        session=session, actor=ACTOR, petition=petition, on="2026-03-26", today=today
    )
    svc.record_association_receipt(
        session=session, actor=ACTOR, petition=petition, on="2026-03-27", today=today
    )
    session.commit()
    assert ordinance.crim_copy_sent_on == date(2026, 3, 26)
    kinds = {c.kind: c for c in svc.clocks(petition, ordinance, today=today)}
    # The association's 30 days from 2026-03-27: 2026-04-26, a Sunday → 2026-04-27.
    assert kinds["notice"].due == date(2026, 4, 27)
    assert kinds["mayor"].met is True and kinds["publication"].met is True
    assert svc.running_clock(petition, ordinance, today=today) is None
    actions = [e.action for e in svc.history(session=session, petition=petition)]
    assert actions == [
        "petition.record",
        "petition.study",
        *["finding.record"] * 5,
        "ordinance.issue",
        "petition.issue",
        "petition.to_mayor",
        "ordinance.approve",
        "petition.approve",
        "petition.publish",
        "ordinance.crim_copy",
        "ordinance.association_receipt",
    ]


def test_an_illegal_transition_is_a_clear_error(session: Session, people: People) -> None:
    petition = received_petition(session, people)
    with pytest.raises(svc.PetitionError) as caught:
        svc.mayor_approves(
            session=session, actor=ACTOR, petition=petition, on="2026-03-05", today=TODAY
        )
    assert caught.value.field == "state"
    assert caught.value.message == (
        "You cannot record the mayor's approval while the petition is received."
    )
    assert caught.value.params == {"action": "record the mayor's approval", "state": "received"}
    assert petition.state == "received"


def test_an_approval_before_the_ordinance_reached_the_mayor_is_refused(
    session: Session, people: People
) -> None:
    petition, _ordinance = issued_ordinance(session, people)
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on="2026-03-09", today=TODAY)
    with pytest.raises(svc.PetitionError) as caught:
        svc.mayor_approves(
            session=session, actor=ACTOR, petition=petition, on="2026-03-07", today=TODAY
        )
    assert caught.value.field == "on"
    assert "2026-03-09" in caught.value.message


def test_sending_to_the_mayor_before_the_ordinance_is_refused(
    session: Session, people: People
) -> None:
    petition, _ordinance = issued_ordinance(session, people)  # issued 2026-03-08
    with pytest.raises(svc.PetitionError) as caught:
        svc.send_to_mayor(
            session=session, actor=ACTOR, petition=petition, on="2026-03-07", today=TODAY
        )
    assert caught.value.field == "on"


def test_a_publication_outside_the_week_needs_confirmation_and_is_flagged(
    session: Session, people: People
) -> None:
    petition = approved_petition(session, people)  # approved 2026-03-10: week 03-11 … 03-17
    later = date(2026, 4, 1)
    with pytest.raises(svc.PetitionError) as caught:
        svc.publish(
            session=session,
            actor=ACTOR,
            petition=petition,
            on="2026-03-18",
            newspaper="Primera Hora",
            outside_window_confirmed=False,
            today=later,
        )
    assert caught.value.field == "on"
    assert "2026-03-11 to 2026-03-17" in caught.value.message
    assert petition.state == "approved"
    svc.publish(
        session=session,
        actor=ACTOR,
        petition=petition,
        on="2026-03-18",
        newspaper="Primera Hora",
        outside_window_confirmed=True,
        today=later,
    )
    assert petition.state == "published" and petition.published_outside_window is True
    clock = {c.kind: c for c in svc.clocks(petition, None, today=later)}["publication"]
    assert clock.met is False


def test_a_publication_on_the_approval_day_is_always_refused(
    session: Session, people: People
) -> None:
    petition = approved_petition(session, people)
    with pytest.raises(svc.PetitionError) as caught:
        svc.publish(
            session=session,
            actor=ACTOR,
            petition=petition,
            on="2026-03-10",
            newspaper="Primera Hora",
            outside_window_confirmed=True,
            today=date(2026, 3, 12),
        )
    assert caught.value.field == "on"


def test_a_denial_needs_the_findings_and_closes_the_petition(
    session: Session, people: People
) -> None:
    petition = received_petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    with pytest.raises(svc.PetitionError) as caught:
        svc.deny(
            session=session, actor=ACTOR, petition=petition, on="2026-03-05", notes="", today=TODAY
        )
    assert caught.value.field == "findings"
    find_all(session, petition, unfavourable="c")
    svc.deny(
        session=session,
        actor=ACTOR,
        petition=petition,
        on="2026-03-06",
        notes="Área no compacta.",
        today=TODAY,
    )
    assert petition.state == "denied" and petition.denied_on == date(2026, 3, 6)
    assert svc.dashboard(session=session, today=TODAY) == []


def test_crim_copy_waits_for_the_mayors_approval(session: Session, people: People) -> None:
    petition, _ordinance = issued_ordinance(session, people)
    with pytest.raises(svc.PetitionError):
        svc.record_crim_copy(
            session=session, actor=ACTOR, petition=petition, on="2026-03-09", today=TODAY
        )
