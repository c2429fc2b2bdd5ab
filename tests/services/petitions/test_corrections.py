"""Corrections of recorded dates: the clocks move with them, a reason is needed, the dates
stay in order, and the audit trail keeps both values.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from sqlmodel import Session

from tests.conftest import People
from tests.services.petitions.helpers import (
    ACTOR,
    TODAY,
    approved_petition,
    audit_events,
    issued_ordinance,
    received_petition,
)
from tid.services import petitions as svc


def test_a_corrected_received_date_moves_the_90_day_clock_and_is_audited(
    session: Session, people: People
) -> None:
    petition = received_petition(session, people, received="2026-03-02")
    before = svc.running_clock(petition, None, today=TODAY)
    assert before is not None and before.due == date(2026, 6, 1)  # 90 days, Sunday moved
    svc.correct_petition(
        session=session,
        actor=ACTOR,
        petition=petition,
        field_name="received_on",
        value="2026-02-27",
        reason="La fecha del sello de recibo es 27 de febrero.",
        today=TODAY,
    )
    session.commit()
    after = svc.running_clock(petition, None, today=TODAY)
    # 90 days from 2026-02-27 is 2026-05-28, a Thursday.
    assert after is not None and after.due == date(2026, 5, 28)
    assert after.days_left == before.days_left - 4
    event = [e for e in audit_events(session) if e.action == "petition.correct"]
    assert len(event) == 1
    assert json.loads(event[0].before or "{}") == {"received_on": "2026-03-02"}
    recorded = json.loads(event[0].after or "{}")
    assert recorded["received_on"] == "2026-02-27"
    assert recorded["reason"] == "La fecha del sello de recibo es 27 de febrero."


def test_a_correction_needs_a_reason_and_keeps_the_dates_in_order(
    session: Session, people: People
) -> None:
    petition, ordinance = issued_ordinance(session, people)
    with pytest.raises(svc.PetitionFieldsError) as err:
        svc.correct_petition(
            session=session,
            actor=ACTOR,
            petition=petition,
            field_name="received_on",
            value="2026-13-01",
            reason="  ",
            today=TODAY,
        )
    assert {e.field for e in err.value.errors} == {"value", "reason"}
    # The study started 2026-03-03: the petition cannot have been received after it.
    with pytest.raises(svc.PetitionError) as one:
        svc.correct_petition(
            session=session,
            actor=ACTOR,
            petition=petition,
            field_name="received_on",
            value="2026-03-04",
            reason="typo",
            today=TODAY,
        )
    assert one.value.field == "value" and "2026-03-03" in one.value.message
    # A date not recorded yet is recorded by its step, not corrected.
    with pytest.raises(svc.PetitionError) as unknown:
        svc.correct_petition(
            session=session,
            actor=ACTOR,
            petition=petition,
            field_name="approved_on",
            value="2026-03-09",
            reason="typo",
            today=TODAY,
        )
    assert unknown.value.field == "field"
    session.rollback()
    assert petition.received_on == date(2026, 3, 2)
    # The ordinance's date is corrected on the ordinance; the text of the petition too.
    svc.correct_petition(
        session=session,
        actor=ACTOR,
        petition=petition,
        field_name="issued_on",
        value="2026-03-07",
        reason="Fecha de la certificación.",
        today=TODAY,
    )
    svc.correct_petition(
        session=session,
        actor=ACTOR,
        petition=petition,
        field_name="petitioner",
        value="Hon. Alcaldesa",
        reason="Error de transcripción.",
        today=TODAY,
    )
    session.commit()
    session.refresh(ordinance)
    assert ordinance.issued_on == date(2026, 3, 7) and petition.petitioner == "Hon. Alcaldesa"
    # The 90-day clock stopped on the corrected issue date.
    clock = svc.clocks(petition, ordinance, today=TODAY)[0]
    assert clock.stopped_on == date(2026, 3, 7)
    with pytest.raises(svc.PetitionError) as same:
        svc.correct_petition(
            session=session,
            actor=ACTOR,
            petition=petition,
            field_name="petitioner",
            value="Hon. Alcaldesa",
            reason="again",
            today=TODAY,
        )
    assert same.value.field == "value"


def test_correcting_the_approval_moves_the_publication_week_and_its_flag(
    session: Session, people: People
) -> None:
    petition = approved_petition(session, people)
    approved = petition.approved_on
    assert approved is not None
    window = svc.clocks(
        petition, svc.ordinance_of(session=session, petition=petition), today=TODAY
    )[-1]
    svc.publish(
        session=session,
        actor=ACTOR,
        petition=petition,
        on=window.due.isoformat(),
        newspaper="El Nuevo Día",
        outside_window_confirmed=False,
        today=window.due,
    )
    session.commit()
    assert not petition.published_outside_window
    # The approval was really a day earlier (the day the mayor received it): the publication
    # on the last day of the old week falls outside the new one.
    svc.correct_petition(
        session=session,
        actor=ACTOR,
        petition=petition,
        field_name="approved_on",
        value=date.fromordinal(approved.toordinal() - 1).isoformat(),
        reason="Fecha de la firma del alcalde.",
        today=window.due,
    )
    session.commit()
    ordinance = svc.ordinance_of(session=session, petition=petition)
    assert ordinance is not None and ordinance.approved_on == petition.approved_on
    assert petition.published_outside_window
    publication = next(
        c for c in svc.clocks(petition, ordinance, today=window.due) if c.kind == "publication"
    )
    assert publication.due == date.fromordinal(window.due.toordinal() - 1)
    assert publication.met is False
