"""Anonymous heavy work, counted in the database so that the bound holds across every web
worker: at most ``most`` at once, and one at a time per client.

A request that may take seconds of a worker (a calculator's computation, its page, CSV or PDF,
a portal PDF) first takes a place with :func:`begin` and gives it back with :func:`end`.
Nothing waits: past the bound the answer is a refusal at once, so no request holds a worker
in a queue. A place carries an expiry (``until``): a worker killed in the middle of the work
leaves a row that stops counting once it has expired.

Each step commits before the next reads, so two workers that take places at the same moment
can both be refused, never both let through past the bound: whichever commits last counts the
other.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tid.clock import utcnow
from tid.models import HeavyWork


@dataclass(frozen=True)
class Place:
    client: str
    token: str


class NoPlaceError(Exception):
    """No place: ``busy_client`` when this client already has work under way, else every
    place is taken."""

    def __init__(self, *, busy_client: bool) -> None:
        super().__init__("busy client" if busy_client else "every place taken")
        self.busy_client = busy_client


def begin(
    *, session: Session, client: str, most: int, hold: timedelta, now: datetime | None = None
) -> Place:
    """Take a place for ``client``'s work, held at most ``hold``; :class:`NoPlaceError` if the
    client already has one or ``most`` are taken. Commits."""
    moment = now or utcnow()
    client = client[:120]
    session.execute(delete(HeavyWork).where(col(HeavyWork.until) < moment))
    session.commit()
    token = secrets.token_hex(16)
    session.add(HeavyWork(client=client, token=token, until=moment + hold))
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise NoPlaceError(busy_client=True) from None
    under_way = session.exec(
        select(func.count()).select_from(HeavyWork).where(col(HeavyWork.until) >= moment)
    ).one()
    place = Place(client, token)
    if int(under_way) > most:
        end(session=session, place=place)
        raise NoPlaceError(busy_client=False)
    return place


def end(*, session: Session, place: Place) -> None:
    """Give the place back (once its work is done, whatever its outcome). Commits."""
    session.execute(
        delete(HeavyWork).where(
            col(HeavyWork.client) == place.client, col(HeavyWork.token) == place.token
        )
    )
    session.commit()
