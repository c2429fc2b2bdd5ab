"""The audit trail: every write that matters leaves an event (who, when, what, before/after)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlmodel import Session, SQLModel, col, select

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


def record(
    session: Session,
    actor: Actor,
    action: str,
    entity: SQLModel | tuple[str, Any],
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    """Add an audit event to the session (committed with the change it describes)."""
    if isinstance(entity, tuple):
        entity_type, entity_id = entity
    else:
        entity_type = type(entity).__tablename__  # type: ignore[assignment]
        entity_id = getattr(entity, "id", "")
    event = AuditEvent(
        user_id=actor.user_id,
        actor=actor.label,
        action=action,
        entity_type=str(entity_type),
        entity_id=str(entity_id),
        before=json.dumps(before, sort_keys=True, default=str) if before is not None else None,
        after=json.dumps(after, sort_keys=True, default=str) if after is not None else None,
    )
    session.add(event)
    return event


def history(session: Session, entity_type: str, entity_id: object) -> list[AuditEvent]:
    """The events of one record, oldest first."""
    stmt = (
        select(AuditEvent)
        .where(AuditEvent.entity_type == entity_type, AuditEvent.entity_id == str(entity_id))
        .order_by(col(AuditEvent.at), col(AuditEvent.id))
    )
    return list(session.exec(stmt))
