"""Counting requests per client and minute in the database, so that a limit holds across
every worker of the web server (the public calculators' rate limit).

Each request adds one to its client's row for the current minute in a single statement
(an upsert returning the new count), so two workers can never both read the same count and
both let a request through past the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.sql import Executable
from sqlmodel import Session

from tid.clock import utcnow
from tid.models import RequestCount

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Decision:
    allowed: bool
    count: int  # requests of this client in this minute, this one included
    retry_after: int  # seconds until the next minute begins


# Built once per dialect (their SQL cached with them): an upsert returning the new count, and
# the forgetting of the client's older minutes.
_ROWS = RequestCount.__table__  # type: ignore[attr-defined]
_COUNT = {
    name: insert(_ROWS)
    .values(key=bindparam("key"), window=bindparam("window"), count=bindparam("amount"))
    .on_conflict_do_update(
        index_elements=["key", "window"], set_={"count": _ROWS.c.count + bindparam("amount")}
    )
    .returning(_ROWS.c.count)
    for name, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}
_FORGET = delete(_ROWS).where(_ROWS.c.key == bindparam("key"), _ROWS.c.window < bindparam("window"))

# How the statements are sent: the statement and its parameters in, its rows out.
Send = Callable[[Executable, dict[str, Any]], Sequence[Sequence[Any]]]


def hit(
    *,
    session: Session,
    key: str,
    limit: int,
    now: datetime | None = None,
    amount: int = 1,
    send: Send | None = None,
) -> Decision:
    """Count one request of ``key`` (e.g. ``calc:203.0.113.9``) — or ``amount`` of them at
    once — and say whether the count is within ``limit`` requests a minute. The statements go
    through the session (the caller commits) unless ``send`` sends them. A ``limit`` of 0 (or
    less) is no limit: nothing is counted."""
    if limit <= 0:
        return Decision(True, 0, 0)
    moment = int((now or utcnow()).timestamp())
    window = moment // WINDOW_SECONDS
    values: dict[str, Any] = {"key": key[:120], "window": window, "amount": amount}
    through: Send = send or (lambda statement, params: _rows(session, statement, params))
    count = int(through(_COUNT[session.get_bind().dialect.name], values)[0][0])
    if count == amount:  # the client's first request of a new minute: forget its older ones
        through(_FORGET, values)
    retry_after = WINDOW_SECONDS - moment % WINDOW_SECONDS
    return Decision(count <= limit, count, retry_after)


def _rows(session: Session, statement: Executable, params: dict[str, Any]) -> list[Any]:
    result = session.execute(statement, params)
    if isinstance(result, CursorResult) and not result.returns_rows:
        return []
    return list(result.all())
