"""The calendar feed of the petitions' deadlines.

A calendar program subscribes to a URL and cannot log in, so the URL carries a secret. Only
its SHA-256 is stored; issuing a new one revokes the old; the feed shows what the token's
owner may see *today* (a deactivated account or a changed role stops or narrows it).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

from sqlmodel import Session, select

from tid.clock import utcnow
from tid.models import CalendarToken, User
from tid.rules.messages import Message, render
from tid.services.audit_trail import audit
from tid.services.petitions.deadlines import CLOCK_LABELS, Clock, clocks
from tid.services.petitions.ordinance import ordinance_of
from tid.services.petitions.reads import DashboardRow, dashboard


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_calendar_token(*, session: Session, actor: audit.Actor, user: User) -> str:
    """A new secret for ``user``'s calendar URL; any earlier one stops working."""
    revoke_calendar_tokens(session=session, actor=actor, user=user, record=False)
    token = secrets.token_urlsafe(32)
    row = CalendarToken(user_id=user.id or 0, token_hash=_token_hash(token))
    session.add(row)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="calendar_token.issue",
        entity=("user_account", user.id),
    )
    return token


def revoke_calendar_tokens(
    *, session: Session, actor: audit.Actor, user: User, record: bool = True
) -> int:
    """Revoke every live calendar secret of ``user``; returns how many were live."""
    live = list(
        session.exec(
            select(CalendarToken).where(
                CalendarToken.user_id == user.id,
                CalendarToken.revoked_at == None,  # noqa: E711
            )
        )
    )
    for row in live:
        row.revoked_at = utcnow()
        session.add(row)
    if record and live:
        audit.record(
            session=session,
            actor=actor,
            action="calendar_token.revoke",
            entity=("user_account", user.id),
        )
    return len(live)


def has_calendar_token(*, session: Session, user_id: int) -> bool:
    return (
        session.exec(
            select(CalendarToken).where(
                CalendarToken.user_id == user_id,
                CalendarToken.revoked_at == None,  # noqa: E711
            )
        ).first()
        is not None
    )


def user_for_calendar_token(*, session: Session, token: str) -> User | None:
    """The active user whose live calendar secret is ``token``, or None."""
    if not token or len(token) > 100:
        return None
    row = session.exec(
        select(CalendarToken).where(
            CalendarToken.token_hash == _token_hash(token),
            CalendarToken.revoked_at == None,  # noqa: E711
        )
    ).first()
    if row is None:
        return None
    user = session.get(User, row.user_id)
    return user if user is not None and user.active else None


def visible_municipalities(user: User) -> list[int] | None:
    """The municipalities whose petitions ``user`` may see (None: all of them)."""
    from tid.services.auth import access

    return access.visible_municipalities(user)


def _ical_escape(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def _ical_fold(line: str) -> str:
    """RFC 5545 § 3.1: lines longer than 75 octets are folded (CRLF + one space), never
    inside a UTF-8 character."""
    out: list[str] = []
    current = ""
    size = 0
    limit = 75
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            out.append(current)
            current = " "
            size = 1
        current += char
        size += width
    out.append(current)
    return "\r\n".join(out)


def uid_domain(base_url: str) -> str:
    """What the calendars' event UIDs end in after ``@`` (RFC 5545 § 3.8.4.7: unique
    worldwide): the installation's own address (``BASE_URL``) without its scheme — its host,
    its port and its path if it has them (``tid.example.pr``, ``example.pr/tid``) — so that
    two installations' events never share a UID in one calendar program."""
    parts = urlsplit(base_url.strip())
    host = (parts.hostname or "").lower()
    if not host:
        return "localhost"
    port = f":{parts.port}" if parts.port else ""
    return host + port + parts.path.rstrip("/")


@dataclass(frozen=True)
class FeedEvent:
    uid: str
    day: date
    summary: str
    description: str


def ical_document(events: Iterable[FeedEvent], *, stamp: datetime, name: str) -> str:
    """An RFC 5545 calendar of all-day events (CRLF line ends, folded lines)."""
    dtstamp = stamp.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//tid//Tourism improvement districts//ES",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{_ical_escape(name)}",
    ]
    for event in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{event.uid}",
            f"DTSTAMP:{dtstamp}",
            f"DTSTART;VALUE=DATE:{event.day.strftime('%Y%m%d')}",
            f"DTEND;VALUE=DATE:{(event.day + timedelta(days=1)).strftime('%Y%m%d')}",
            f"SUMMARY:{_ical_escape(event.summary)}",
            f"DESCRIPTION:{_ical_escape(event.description)}",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_ical_fold(line) + "\r\n" for line in lines)


def feed_event(row: DashboardRow, clock: Clock, *, lang: str, domain: str) -> FeedEvent:
    """One clock of one petition as an all-day calendar event, in ``lang``; its UID ends in
    the installation's ``domain`` (:func:`uid_domain`)."""
    petition = row.petition
    summary: str = Message(
        "%(clock)s: %(district)s (%(municipality)s)",
        clock=Message(CLOCK_LABELS[clock.kind]),
        district=petition.district_name,
        municipality=row.municipality,
    )
    description: str = Message(
        "%(explanation)s. %(citation)s.", explanation=clock.explanation, citation=clock.citation
    )
    summary, description = render(summary, lang), render(description, lang)
    return FeedEvent(
        uid=f"tid-petition-{petition.id}-{clock.kind}@{domain}",
        day=clock.due,
        summary=summary,
        description=description,
    )


def user_calendar(
    *, session: Session, user: User, today: date, stamp: datetime, base_url: str
) -> str:
    """The iCalendar document of the deadlines running on ``today`` of the petitions ``user``
    may see, in the user's language; its UIDs are the installation's (``base_url``)."""
    domain = uid_domain(base_url)
    lang = "en" if user.locale == "en" else "es"
    events = []
    for row in dashboard(
        session=session, today=today, municipality_ids=visible_municipalities(user)
    ):
        ordinance = ordinance_of(session=session, petition=row.petition)
        for clock in clocks(row.petition, ordinance, today=today):
            if clock.running:
                events.append(feed_event(row, clock, lang=lang, domain=domain))
    name = "TID petitions — deadlines" if lang == "en" else "Peticiones DMT — términos"
    return ical_document(events, stamp=stamp, name=name)
