"""The public pages' rate limit: each anonymous request counted per address and minute in the
database (:mod:`tid.services.limits.request_rate`, so the limit holds across every worker).

A worker counts a few requests at once: its first request of an address in a minute adds
:data:`LEASE` to the address's count in the database and the worker lets that many of the
address's requests through that minute without writing again. The sum of what the workers let
through never passes the limit (each took its share from the one count), so an address may be
refused a little early — by at most what the other workers hold unused —, never late. On
PostgreSQL the count is written on the public pages' own connections, whose commits do not
wait for the disk (a count lost in a crash lets a few more requests through, nothing else)."""

from __future__ import annotations

import threading

from sqlmodel import Session

from tid.clock import utcnow
from tid.services.limits import request_rate
from tid.services.public import direct, versions

LEASE = 10  # requests of one address a worker counts at once
_HELD: dict[tuple[str, str, int], int] = {}  # (database, address, minute) -> requests left
_LOCK = threading.Lock()


def count_visit(*, session: Session, address: str, limit: int) -> request_rate.Decision:
    """Count one public request of ``address``; the caller commits."""
    moment = int(utcnow().timestamp())
    window = moment // request_rate.WINDOW_SECONDS
    retry_after = request_rate.WINDOW_SECONDS - moment % request_rate.WINDOW_SECONDS
    held = (versions.database_name(session=session), address, window)
    with _LOCK:
        left = _HELD.get(held, 0)
        if left > 0:
            _HELD[held] = left - 1
            return request_rate.Decision(True, 0, retry_after)
    granted = _take(session, address, limit)
    _forget_before(window)
    with _LOCK:
        _HELD[held] = _HELD.get(held, 0) + max(granted - 1, 0)
    return request_rate.Decision(granted > 0, 0, retry_after)


def _take(session: Session, address: str, limit: int) -> int:
    """Add a lease to the address's count in the database: how many requests it grants (0:
    the limit is reached). On PostgreSQL, on a connection of the public pages' own
    (:mod:`tid.services.public.direct`), committed at once and without waiting for the disk;
    on SQLite, in the session's transaction (the caller commits)."""
    amount = max(1, min(LEASE, limit))
    connections = direct.outside(session=session)
    decision = request_rate.hit(
        session=session,
        key=f"public:{address}",
        limit=limit,
        amount=amount,
        send=connections.rows if connections is not None else None,
    )
    before = decision.count - amount
    return max(0, min(amount, limit - before))


def _forget_before(window: int) -> None:
    """Drop the leases of minutes gone by."""
    with _LOCK:
        for gone in [k for k in _HELD if k[2] < window]:
            del _HELD[gone]
