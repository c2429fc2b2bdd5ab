"""The petition tracker's services: recording, the five findings, the ordinance, the lifecycle
and its clocks (21 LPRA § 6653(1)–(5), (7); RULES.md § 1.1–1.3)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from sqlmodel import Session, select

from tests.conftest import People
from tid.models import AuditEvent, District, Finding, Ordinance, Petition
from tid.services import audit
from tid.services import petitions as svc

ACTOR = audit.Actor("clerk@example.pr")
TODAY = date(2026, 3, 10)


def _petition(session: Session, people: People, received: str = "2026-03-02") -> Petition:
    petition = svc.record_petition(
        session=session,
        actor=ACTOR,
        municipality_id=str(people.municipality.id),
        district_name="DMT de Condado",
        petitioner="Hon. Alcalde",
        received_on=received,
        documents="Petición y plano.",
        today=TODAY,
    )
    session.commit()
    return petition


def _all_findings(
    session: Session, petition: Petition, *, unfavourable: str = "", on: str = "2026-03-05"
) -> None:
    for letter in "abcde":
        svc.record_finding(
            session=session,
            actor=ACTOR,
            petition=petition,
            factor=letter,
            favourable="no" if letter in unfavourable else "yes",
            grounds=f"Fundamentos del factor {letter}.",
            on=on,
            today=TODAY,
        )
    session.commit()


ORDINANCE: dict[str, Any] = {
    "number": "Ord. 14",
    "district_name": "DMT de Condado",
    "expected_amount": "1,250,000.50",
    "term_years": "10",
    "formula": "max(250.00, 0.0035 * assessed_value)",
    "association_name": "Asociación de Condado, Inc.",
    "issued_on": "2026-03-08",
}


def _issued(session: Session, people: People, **overrides: Any) -> tuple[Petition, Ordinance]:
    petition = _petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    _all_findings(session, petition)
    ordinance = svc.issue_ordinance(
        session=session, actor=ACTOR, petition=petition, today=TODAY, **{**ORDINANCE, **overrides}
    )
    session.commit()
    return petition, ordinance


def _events(session: Session) -> list[AuditEvent]:
    return list(session.exec(select(AuditEvent)))


# --------------------------------------------------------------------------- recording


def test_a_petition_received_2026_03_02_is_due_2026_06_01(session: Session, people: People) -> None:
    petition = _petition(session, people)
    assert petition.state == "received"
    clock = svc.running_clock(petition, None, today=TODAY)
    assert clock is not None and clock.kind == "ordinance"
    # 2026-03-02 + 90 days: March has 29 days left (to 03-31), April 30 (59), May 31 (90)
    # → 2026-05-31, a Sunday (1 LPRA § 72) → Monday 2026-06-01.
    assert clock.due == date(2026, 6, 1)
    assert "2026-05-31, a Sunday" in clock.explanation
    assert "moved to 2026-06-01" in clock.explanation
    assert "domingo" in clock.explanation_es and "se traslada al 2026-06-01" in clock.explanation_es
    # From 2026-03-10: 21 days to 03-31, +30 April = 51, +31 May = 82, +1 = 83.
    assert clock.days_left == 83
    assert not clock.overdue and not clock.soon
    assert [e.action for e in _events(session)][-1] == "petition.record"


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
    events = len(_events(session))
    with pytest.raises(svc.PetitionError) as caught:
        svc.record_petition(session=session, actor=ACTOR, today=TODAY, **data)
    assert caught.value.field == field
    session.rollback()
    assert session.exec(select(Petition)).all() == []
    assert len(_events(session)) == events


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


# --------------------------------------------------------------------------- findings & ordinance


def test_the_ordinance_needs_all_five_findings(session: Session, people: People) -> None:
    petition = _petition(session, people)
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
    petition = _petition(session, people)
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
    actions = [e.action for e in _events(session) if e.entity_type == "finding"]
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
    petition = _petition(session, people)
    data = {"factor": "a", "favourable": "yes", "grounds": "ok", "on": "2026-03-04", field: value}
    with pytest.raises(svc.PetitionError) as caught:
        svc.record_finding(session=session, actor=ACTOR, petition=petition, today=TODAY, **data)
    assert caught.value.field == field


def test_issuing_the_ordinance_creates_and_links_the_district(
    session: Session, people: People
) -> None:
    petition, ordinance = _issued(session, people)
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
    _, ordinance = _issued(session, people, district_name=people.district.name)
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
    petition = _petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    _all_findings(session, petition)
    events = len(_events(session))
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
    assert len(_events(session)) == events


def test_an_unfavourable_finding_is_allowed_but_flagged(session: Session, people: People) -> None:
    petition = _petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    _all_findings(session, petition, unfavourable="d")
    svc.issue_ordinance(session=session, actor=ACTOR, petition=petition, today=TODAY, **ORDINANCE)
    session.commit()
    assert svc.unfavourable_factors(session, petition) == ["d"]
    issue = next(e for e in _events(session) if e.action == "ordinance.issue")
    assert json.loads(issue.after or "{}")["unfavourable_findings"] == "d"


# --------------------------------------------------------------------------- lifecycle


def test_the_whole_lifecycle_to_publication(session: Session, people: People) -> None:
    today = date(2026, 4, 30)
    petition, ordinance = _issued(session, people)
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
    actions = [e.action for e in svc.history(session, petition)]
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
    petition = _petition(session, people)
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
    petition, _ordinance = _issued(session, people)
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
    petition, _ordinance = _issued(session, people)  # issued 2026-03-08
    with pytest.raises(svc.PetitionError) as caught:
        svc.send_to_mayor(
            session=session, actor=ACTOR, petition=petition, on="2026-03-07", today=TODAY
        )
    assert caught.value.field == "on"


def _approved(session: Session, people: People) -> Petition:
    petition, _ordinance = _issued(session, people)
    svc.send_to_mayor(session=session, actor=ACTOR, petition=petition, on="2026-03-09", today=TODAY)
    svc.mayor_approves(
        session=session, actor=ACTOR, petition=petition, on="2026-03-10", today=TODAY
    )
    session.commit()
    return petition


def test_a_publication_outside_the_week_needs_confirmation_and_is_flagged(
    session: Session, people: People
) -> None:
    petition = _approved(session, people)  # approved 2026-03-10: week 03-11 … 03-17
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
    petition = _approved(session, people)
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
    petition = _petition(session, people)
    svc.start_study(session=session, actor=ACTOR, petition=petition, on="2026-03-03", today=TODAY)
    with pytest.raises(svc.PetitionError) as caught:
        svc.deny(
            session=session, actor=ACTOR, petition=petition, on="2026-03-05", notes="", today=TODAY
        )
    assert caught.value.field == "findings"
    _all_findings(session, petition, unfavourable="c")
    svc.deny(
        session=session,
        actor=ACTOR,
        petition=petition,
        on="2026-03-06",
        notes="Área no compacta.",
        today=TODAY,
    )
    assert petition.state == "denied" and petition.denied_on == date(2026, 3, 6)
    assert svc.dashboard(session, today=TODAY) == []


def test_crim_copy_waits_for_the_mayors_approval(session: Session, people: People) -> None:
    petition, _ordinance = _issued(session, people)
    with pytest.raises(svc.PetitionError):
        svc.record_crim_copy(
            session=session, actor=ACTOR, petition=petition, on="2026-03-09", today=TODAY
        )


# --------------------------------------------------------------------------- dashboard & feed


def test_the_dashboard_sorts_by_urgency_and_scopes_by_municipality(
    session: Session, people: People
) -> None:
    today = date(2026, 6, 3)
    late = _petition(session, people, received="2026-03-02")  # due 06-01: 2 days overdue
    fresh = svc.record_petition(
        session=session,
        actor=ACTOR,
        municipality_id=str(people.municipality.id),
        district_name="DMT Isla Verde",
        petitioner="Alcalde",
        received_on="2026-05-20",  # +90 = 2026-08-18, a Tuesday: 76 days left
        documents="",
        today=today,
    )
    ponce = svc.record_petition(
        session=session,
        actor=ACTOR,
        municipality_id=str(people.other_municipality.id),
        district_name="DMT Ponce Centro",
        petitioner="Alcaldesa",
        received_on="2026-03-10",  # +90 = 2026-06-08, a Monday: 5 days left
        documents="",
        today=today,
    )
    session.commit()
    rows = svc.dashboard(session, today=today)
    assert [r.petition.id for r in rows] == [late.id, ponce.id, fresh.id]
    assert [r.clock.days_left for r in rows if r.clock] == [-2, 5, 76]
    assert rows[0].clock is not None and rows[0].clock.overdue
    assert rows[1].clock is not None and rows[1].clock.soon
    assert [r.petition.id for r in svc.due_soon(rows)] == [late.id, ponce.id]
    mine = svc.dashboard(session, today=today, municipality_ids=[people.municipality.id or 0])
    assert {r.petition.id for r in mine} == {late.id, fresh.id}
    assert svc.dashboard(session, today=today, state="under_study") == []


def test_calendar_tokens_are_hashed_revocable_and_replaced(
    session: Session, people: People
) -> None:
    first = svc.issue_calendar_token(session=session, actor=ACTOR, user=people.clerk)
    session.commit()
    assert svc.user_for_calendar_token(session, first) == people.clerk
    second = svc.issue_calendar_token(session=session, actor=ACTOR, user=people.clerk)
    session.commit()
    assert first != second
    assert svc.user_for_calendar_token(session, first) is None
    assert svc.user_for_calendar_token(session, second) == people.clerk
    stored = [e.action for e in _events(session) if e.action.startswith("calendar_token")]
    assert stored == ["calendar_token.issue", "calendar_token.issue"]
    assert second not in json.dumps([e.after for e in _events(session)])
    assert svc.revoke_calendar_tokens(session=session, actor=ACTOR, user=people.clerk) == 1
    session.commit()
    assert svc.user_for_calendar_token(session, second) is None


def test_ical_lines_are_crlf_and_folded_at_75_octets() -> None:
    event = svc.FeedEvent(
        uid="tid-petition-1-ordinance@tid.pr",
        day=date(2026, 6, 1),
        summary="Vence la ordenanza: Distrito de Mejoramiento Turístico de Condado, San Juan; ñ"
        * 2,
        description="90 días a partir del 2026-03-02 es el 2026-05-31, domingo\nlínea",
    )
    text = svc.ical_document([event], stamp=datetime(2026, 3, 10, 12, 0, tzinfo=UTC), name="x")
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    lines = text.split("\r\n")[:-1]
    assert all(len(line.encode("utf-8")) <= 75 for line in lines)
    unfolded = text.replace("\r\n ", "")
    assert "DTSTART;VALUE=DATE:20260601\r\n" in unfolded
    assert "DTEND;VALUE=DATE:20260602\r\n" in unfolded
    assert "DTSTAMP:20260310T120000Z\r\n" in unfolded
    assert "SUMMARY:Vence la ordenanza: Distrito de Mejoramiento Turístico de Condado\\, " in (
        unfolded
    )
    assert "domingo\\nlínea" in unfolded


def test_a_corrected_received_date_moves_the_90_day_clock_and_is_audited(
    session: Session, people: People
) -> None:
    petition = _petition(session, people, received="2026-03-02")
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
    event = [e for e in _events(session) if e.action == "petition.correct"]
    assert len(event) == 1
    assert json.loads(event[0].before or "{}") == {"received_on": "2026-03-02"}
    recorded = json.loads(event[0].after or "{}")
    assert recorded["received_on"] == "2026-02-27"
    assert recorded["reason"] == "La fecha del sello de recibo es 27 de febrero."


def test_a_correction_needs_a_reason_and_keeps_the_dates_in_order(
    session: Session, people: People
) -> None:
    petition, ordinance = _issued(session, people)
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
    petition = _approved(session, people)
    approved = petition.approved_on
    assert approved is not None
    window = svc.clocks(petition, svc.ordinance_of(session, petition), today=TODAY)[-1]
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
    ordinance = svc.ordinance_of(session, petition)
    assert ordinance is not None and ordinance.approved_on == petition.approved_on
    assert petition.published_outside_window
    publication = next(
        c for c in svc.clocks(petition, ordinance, today=window.due) if c.kind == "publication"
    )
    assert publication.due == date.fromordinal(window.due.toordinal() - 1)
    assert publication.met is False
