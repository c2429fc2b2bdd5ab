"""Counting requests per client and minute in the database, so that a limit holds across
every worker of the web server (the public calculators' rate limit).

Each request adds one to its client's row for the current minute in a single statement
(an upsert returning the new count), so two workers can never both read the same count and
both let a request through past the limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from tid.clock import utcnow
from tid.models import RequestCount

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Decision:
    allowed: bool
    count: int  # requests of this client in this minute, this one included
    retry_after: int  # seconds until the next minute begins


def hit(
    *, session: Session, key: str, limit: int, now: datetime | None = None, amount: int = 1
) -> Decision:
    """Count one request of ``key`` (e.g. ``calc:203.0.113.9``) — or ``amount`` of them at
    once — and say whether the count is within ``limit`` requests a minute. The caller
    commits. A ``limit`` of 0 (or less) is no limit: nothing is counted."""
    if limit <= 0:
        return Decision(True, 0, 0)
    moment = int((now or utcnow()).timestamp())
    window = moment // WINDOW_SECONDS
    key = key[:120]
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = (
        insert(RequestCount)
        .values(key=key, window=window, count=amount)
        .on_conflict_do_update(
            index_elements=["key", "window"], set_={"count": RequestCount.count + amount}
        )
        .returning(col(RequestCount.count))
    )
    count = int(session.execute(statement).scalar_one())
    if count == amount:  # the client's first request of a new minute: forget its older ones
        session.execute(
            delete(RequestCount).where(
                col(RequestCount.key) == key, col(RequestCount.window) < window
            )
        )
    retry_after = WINDOW_SECONDS - moment % WINDOW_SECONDS
    return Decision(count <= limit, count, retry_after)
