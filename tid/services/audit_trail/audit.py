"""The audit trail: every write that matters leaves an event (who, when, what, before/after)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel, col, select

from tid.clock import utcnow
from tid.models import AuditEvent


@dataclass(frozen=True)
class Actor:
    """Who is acting: a user, or the system (a scheduled job, the command line)."""

    label: str
    user_id: int | None = None


SYSTEM = Actor("system")


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


def snapshot(record: SQLModel | None, *, exclude: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The column values of a record, JSON-ready (secrets left out)."""
    if record is None:
        return None
    hidden = {"password_hash", "token", "totp_secret", *exclude}
    return {k: _plain(v) for k, v in record.model_dump().items() if k not in hidden}


# An event is only ever written, never changed: a Core insert, in the change's transaction
# (no unit of work on the path of every payment).
_EVENTS = AuditEvent.__table__  # type: ignore[attr-defined]


def record(
    *,
    session: Session,
    actor: Actor,
    action: str,
    entity: SQLModel | tuple[str, Any],
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    """Write an audit event in the session's transaction (committed with the change it
    describes, or rolled back with it)."""
    if isinstance(entity, tuple):
        entity_type, entity_id = entity
    else:
        entity_type = type(entity).__tablename__  # type: ignore[assignment]
        entity_id = getattr(entity, "id", "")
    session.execute(
        insert(_EVENTS),
        {
            "at": utcnow(),
            "user_id": actor.user_id,
            "actor": actor.label,
            "action": action,
            "entity_type": str(entity_type),
            "entity_id": str(entity_id),
            "before": _json(before),
            "after": _json(after),
        },
    )


def _json(values: dict[str, Any] | None) -> str | None:
    return json.dumps(values, sort_keys=True, default=str) if values is not None else None


def history(*, session: Session, entity_type: str, entity_id: object) -> list[AuditEvent]:
    """The events of one record, oldest first."""
    stmt = (
        select(AuditEvent)
        .where(AuditEvent.entity_type == entity_type, AuditEvent.entity_id == str(entity_id))
        .order_by(col(AuditEvent.at), col(AuditEvent.id))
    )
    return list(session.exec(stmt))


@dataclass(frozen=True)
class Change:
    """One event of a record's history and the fields it changed: ``before`` and ``after``
    hold the values of the fields that differ (None: the event kept no values there)."""

    event: AuditEvent
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def changes(events: list[AuditEvent]) -> list[Change]:
    """The events with what each changed."""
    return [_change(event) for event in events]


def _change(event: AuditEvent) -> Change:
    before = json.loads(event.before) if event.before else None
    after = json.loads(event.after) if event.after else None
    return Change(
        event=event,
        before={k: v for k, v in before.items() if not after or after.get(k) != v}
        if before
        else None,
        after={k: v for k, v in after.items() if not before or before.get(k) != v}
        if after
        else None,
    )


def trail(*, session: Session, entity_type: str, entity_id: object) -> list[Change]:
    """A record's history with what each event changed."""
    return changes(history(session=session, entity_type=entity_type, entity_id=entity_id))


@dataclass(frozen=True)
class NamedTrail:
    """A record's history as its page shows it: the record's name (None: its kind and
    number), the changes, and the names of the records the changes point at (by field and
    id)."""

    record: str | None
    rows: list[Change]
    names: dict[str, dict[int, str]]


def named_trail(*, session: Session, entity_type: str, entity_id: str) -> NamedTrail:
    from tid.services.audit_trail import record_names

    rows = trail(session=session, entity_type=entity_type, entity_id=entity_id)
    return NamedTrail(
        record=record_names.record_name(
            session=session, entity_type=entity_type, entity_id=entity_id
        ),
        rows=rows,
        names=names_of(session=session, rows=rows),
    )


def names_of(*, session: Session, rows: list[Change]) -> dict[str, dict[int, str]]:
    """The names of the records the changes point at (by field and id): a municipality by
    its name, a district by its own, never by its number."""
    from tid.services.audit_trail import record_names

    found = record_names.referenced([v for r in rows for v in (r.before, r.after)])
    return record_names.reference_names(session=session, references=found)
