"""The petitions' dashboard: sorted by urgency, scoped by municipality."""

from __future__ import annotations

from datetime import date

from sqlalchemy import Engine, event
from sqlmodel import Session

from tests.conftest import People
from tests.services.petitions.helpers import ACTOR, find_all, received_petition
from tid.services import petitions as svc


def test_the_dashboard_sorts_by_urgency_and_scopes_by_municipality(
    session: Session, people: People
) -> None:
    today = date(2026, 6, 3)
    late = received_petition(session, people, received="2026-03-02")  # due 06-01: 2 days overdue
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
    rows = svc.dashboard(session=session, today=today)
    assert [r.petition.id for r in rows] == [late.id, ponce.id, fresh.id]
    assert [r.clock.days_left for r in rows if r.clock] == [-2, 5, 76]
    assert rows[0].clock is not None and rows[0].clock.overdue
    assert rows[1].clock is not None and rows[1].clock.soon
    assert [r.petition.id for r in svc.due_soon(rows)] == [late.id, ponce.id]
    mine = svc.dashboard(
        session=session, today=today, municipality_ids=[people.municipality.id or 0]
    )
    assert {r.petition.id for r in mine} == {late.id, fresh.id}
    assert svc.dashboard(session=session, today=today, state="under_study") == []


def test_the_dashboard_reads_the_findings_of_every_petition_at_once(
    session: Session, people: People
) -> None:
    """One petition or four, each with a factor found unfavorable: the dashboard sends as
    many statements (the findings read for every row at once, not once a row)."""
    engine = session.get_bind()
    assert isinstance(engine, Engine)

    def statements() -> tuple[int, list[svc.DashboardRow]]:
        sent: list[str] = []

        def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
            sent.append(statement)

        event.listen(engine, "before_cursor_execute", note)
        try:
            rows = svc.dashboard(session=session, today=date(2026, 3, 20))
        finally:
            event.remove(engine, "before_cursor_execute", note)
        return len(sent), rows

    find_all(session, received_petition(session, people), unfavourable="c")
    one, rows = statements()
    assert [r.unfavourable for r in rows] == [("c",)]
    for _ in range(3):
        find_all(session, received_petition(session, people), unfavourable="ae")
    four, rows = statements()
    assert sorted(r.unfavourable for r in rows) == [("a", "e")] * 3 + [("c",)]
    assert four == one
