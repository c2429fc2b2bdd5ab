"""The calendar feed: tokens hashed, revocable and replaced; iCal lines CRLF and folded."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from sqlmodel import Session

from tests.conftest import People
from tests.services.petitions.helpers import ACTOR, audit_events
from tid.services import petitions as svc


def test_calendar_tokens_are_hashed_revocable_and_replaced(
    session: Session, people: People
) -> None:
    first = svc.issue_calendar_token(session=session, actor=ACTOR, user=people.clerk)
    session.commit()
    assert svc.user_for_calendar_token(session=session, token=first) == people.clerk
    second = svc.issue_calendar_token(session=session, actor=ACTOR, user=people.clerk)
    session.commit()
    assert first != second
    assert svc.user_for_calendar_token(session=session, token=first) is None
    assert svc.user_for_calendar_token(session=session, token=second) == people.clerk
    stored = [e.action for e in audit_events(session) if e.action.startswith("calendar_token")]
    assert stored == ["calendar_token.issue", "calendar_token.issue"]
    assert second not in json.dumps([e.after for e in audit_events(session)])
    assert svc.revoke_calendar_tokens(session=session, actor=ACTOR, user=people.clerk) == 1
    session.commit()
    assert svc.user_for_calendar_token(session=session, token=second) is None


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
