"""A district's public figures computed once per version of the district for every web
worker: a fiscal year's statement figures, its months and the roll by year are computed from
the journal and the roll the first time a public page asks for them after a change, and kept
in the database (``public_figures``); every other request, in any worker, reads them back —
one indexed row, whatever the size of the journal.

The figures are kept as JSON with their amounts as exact decimal text and their days as ISO
dates, and read back as they were (:class:`~decimal.Decimal`, :class:`~datetime.date`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from tid.clock import utcnow
from tid.models import PublicFigures

T = TypeVar("T")
_TABLE = PublicFigures.__table__  # type: ignore[attr-defined]
_READ = select(_TABLE.c.body).where(
    _TABLE.c.district_id == bindparam("district_id"),
    _TABLE.c.name == bindparam("name"),
    _TABLE.c.version == bindparam("version"),
)


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    raise TypeError(f"cannot keep {type(value).__name__}")


def _typed(value: dict[str, Any]) -> object:
    if value.keys() == {"$decimal"}:
        return Decimal(value["$decimal"])
    if value.keys() == {"$date"}:
        return date.fromisoformat(value["$date"])
    return value


def encode(value: object) -> str:
    return json.dumps(value, default=_plain, ensure_ascii=False, sort_keys=True)


def decode(body: str) -> Any:
    return json.loads(body, object_hook=_typed)


def figures(
    *, session: Session, district_id: int, name: str, version: int, make: Callable[[], T]
) -> T:
    """What ``make`` computes for the district at ``version``, kept under ``name``: read back
    when kept for that version, else computed and kept (the caller commits)."""
    params = {"district_id": district_id, "name": name, "version": version}
    body = session.execute(_READ, params).scalar()
    if body is not None:
        found: T = decode(body)
        return found
    value = make()
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(_TABLE).values(**params, body=encode(value), computed_at=utcnow())
    statement = statement.on_conflict_do_update(
        index_elements=["district_id", "name"],
        set_={"version": version, "body": statement.excluded.body, "computed_at": utcnow()},
        where=_TABLE.c.version < version,
    )
    session.execute(statement)
    return value
