"""A petition recorded and studied (21 LPRA § 6653(1)–(2); /readings#saturday-deadlines): its 90
days,
bad input named field by field, the clerk's municipality, the five findings.
"""

from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tests.services.petitions.helpers import (
    ACTOR,
    ORDINANCE,
    TODAY,
    audit_events,
    received_petition,
)
from tid.models import Finding, Ordinance, Petition
from tid.services import petitions as svc


def test_a_petition_received_2026_03_02_is_due_2026_06_01(session: Session, people: People) -> None:
    petition = received_petition(session, people)
    assert petition.state == "received"
    clock = svc.running_clock(petition, None, today=TODAY)
    assert clock is not None and clock.kind == "ordinance"
    # 2026-03-02 + 90 days: March has 29 days left (to 03-31), April 30 (59), May 31 (90)
    # → 2026-05-31, a Sunday (1 LPRA § 72) → Monday 2026-06-01.
    assert clock.due == date(2026, 6, 1)
    assert "2026-05-31, a Sunday" in clock.explanation
    assert "moved to 2026-06-01" in clock.explanation
    assert "domingo" in clock.explanation_es and "se traslada al 1 jun 2026" in clock.explanation_es
    # From 2026-03-10: 21 days to 03-31, +30 April = 51, +31 May = 82, +1 = 83.
    assert clock.days_left == 83
    assert not clock.overdue and not clock.soon
    assert [e.action for e in audit_events(session)][-1] == "petition.record"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("received_on", "2026-03-11"),  # the day after TODAY: the future
        ("received_on", "2026-02-30"),
        ("received_on", ""),
        ("received_on", "1990-01-01"),  # before § 6653 existed
        ("district_name", "   "),
        ("petitioner", "x" * 201),
        ("district_name", "a\x00b"),
        ("municipality_id", "abc"),
        ("municipality_id", "99999"),
    ],
)
def test_bad_petition_input_names_its_field_and_writes_nothing(
    session: Session, people: People, field: str, value: str
) -> None:
    data = {
        "municipality_id": str(people.municipality.id),
        "district_name": "DMT",
        "petitioner": "Alcalde",
        "received_on": "2026-03-02",
        "documents": "",
        field: value,
    }
    events = len(audit_events(session))
    with pytest.raises(svc.PetitionError) as caught:
        svc.record_petition(session=session, actor=ACTOR, today=TODAY, **data)
    assert caught.value.field == field
    session.rollback()
    assert session.exec(select(Petition)).all() == []
    assert len(audit_events(session)) == events


def test_several_bad_fields_are_reported_together(session: Session, people: People) -> None:
    with pytest.raises(svc.PetitionFieldsError) as caught:
        svc.record_petition(
            session=session,
            actor=ACTOR,
            municipality_id=str(people.municipality.id),
            district_name="",
            petitioner="",
            received_on="mañana",
            documents="",
            today=TODAY,
        )
    assert [e.field for e in caught.value.errors] == ["district_name", "petitioner", "received_on"]


def test_a_clerk_records_only_for_their_own_municipality(session: Session, people: People) -> None:
    with pytest.raises(svc.PetitionError) as caught:
        svc.record_petition(
            session=session,
            actor=ACTOR,
            municipality_id=str(people.other_municipality.id),
            district_name="DMT",
            petitioner="Alcalde",
            received_on="2026-03-02",
            documents="",
            today=TODAY,
            allowed_municipalities=[people.municipality.id or 0],
        )
    assert caught.value.field == "municipality_id"


def test_the_ordinance_needs_all_five_findings(session: Session, people: People) -> None:
    petition = received_petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    for letter in "abcd":
        svc.record_finding(
            session=session,
            actor=ACTOR,
            petition=petition,
            factor=letter,
            favourable="yes",
            grounds="ok",
            on="2026-03-04",
            today=TODAY,
        )
    session.commit()
    with pytest.raises(svc.PetitionError) as caught:
        svc.issue_ordinance(
            session=session, actor=ACTOR, petition=petition, today=TODAY, **ORDINANCE
        )
    assert caught.value.field == "findings"
    assert "(e)" in caught.value.message
    session.rollback()
    assert session.exec(select(Ordinance)).all() == []
    assert session.get(Petition, petition.id).state == "under_study"  # type: ignore[union-attr]


def test_a_finding_can_be_corrected_and_keeps_one_row(session: Session, people: People) -> None:
    petition = received_petition(session, people)
    for favourable in ("yes", "no"):
        svc.record_finding(
            session=session,
            actor=ACTOR,
            petition=petition,
            factor="C",
            favourable=favourable,
            grounds="Compacta" if favourable == "yes" else "No es compacta",
            on="2026-03-04",
            today=TODAY,
        )
        session.commit()
    rows = session.exec(select(Finding)).all()
    assert len(rows) == 1 and rows[0].factor == "c" and rows[0].favourable is False
    actions = [e.action for e in audit_events(session) if e.entity_type == "finding"]
    assert actions == ["finding.record", "finding.update"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("factor", "f"),
        ("favourable", "maybe"),
        ("grounds", ""),
        ("on", "2026-03-01"),  # before the receipt
        ("on", "2026-03-11"),  # future
    ],
)
def test_bad_finding_input(session: Session, people: People, field: str, value: str) -> None:
    petition = received_petition(session, people)
    data = {"factor": "a", "favourable": "yes", "grounds": "ok", "on": "2026-03-04", field: value}
    with pytest.raises(svc.PetitionError) as caught:
        svc.record_finding(session=session, actor=ACTOR, petition=petition, today=TODAY, **data)
    assert caught.value.field == field
