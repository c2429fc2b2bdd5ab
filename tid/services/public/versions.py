"""Each district's public version, and the pages computed for it kept per worker.

A public page of a district (its figures year by year, a year's statement, its data files)
is computed once per version of the district and kept in the worker's memory; every worker
reads the version from the database (one indexed row), so a change made through any worker,
the command line or a background job is seen by all of them at their next request.

The version moves by itself: whatever a transaction writes to the tables the public figures
come from — a journal entry (a payment, a bill booked, an expenditure, a reversal), a
billing run and its bills, a notice run (it names the bills), an expenditure's document, a
bank balance, an authorized purpose, a locked year, an ordinance, the roll, an owner's
transfer, the late-charge terms, a lien recorded against a property — adds one to the
version of each district it touches, once per transaction, in that transaction
(:func:`install`, run when :mod:`tid.services` is imported). A publishing choice moves it
explicitly (:func:`bump`). The statement's PDF is kept by this version too
(tid/documents/account.py): what the district's documents show moves it.
"""

from __future__ import annotations

import logging
import threading
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import bindparam, event, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import ORMExecuteState, SessionTransaction
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.sql import Executable
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import Session

from tid.models import Property, PublicVersion
from tid.services.public import direct

T = TypeVar("T")

# The tables whose rows carry a district's public figures (each has ``district_id``).
WATCHED = frozenset(
    {
        "journal_entry",
        "billing_run",
        "bill",
        "notice",  # a notice run names the bills it mails
        # (tid/services/audit_trail/record_names.py)
        "property",
        "ownership_transfer",
        "late_charge_terms",
        "opening_position",  # a district moved in: its earlier years and opened bills
        "opening_bill",
        "opening_year",
        "expenditure",
        "bank_balance",
        "budget",  # an approved budget, amended or carried over (every change writes its row)
        "authorized_purpose",
        "fiscal_year_lock",
        "ordinance",
        "property_year",
        "roll_import",  # a roll imported (even one that changes nothing: its file is listed)
        "published_year",
        "published_document",
        "district",
    }
)
# The tables whose rows name a property, not a district: a lien recorded, corrected or cancelled.
_BY_PROPERTY = frozenset({"property_lien"})
_PENDING = "tid.public.pending"  # session.info: districts touched, not yet bumped
_DONE = "tid.public.done"  # session.info: districts bumped in this transaction


def _upsert(connection: Connection, district_ids: Iterable[int]) -> None:
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    table = PublicVersion.__table__  # type: ignore[attr-defined]
    for district_id in sorted(set(district_ids)):
        statement = (
            insert(table)
            .values(district_id=district_id, version=1)
            .on_conflict_do_update(
                index_elements=["district_id"], set_={"version": table.c.version + 1}
            )
        )
        connection.execute(statement)


def bump(*, session: Session, district_ids: Sequence[int]) -> None:
    """Move the public version of each district (in the session's transaction)."""
    done: set[int] = session.info.setdefault(_DONE, set())
    fresh = [d for d in district_ids if d and d not in done]
    if fresh:
        _upsert(session.connection(), fresh)
        done.update(fresh)


_TABLE = PublicVersion.__table__  # type: ignore[attr-defined]
# Asked on every public page: built once (its cache key is kept with it), one indexed row.
_VERSION_OF_ROW = select(
    select(_TABLE.c.version)
    .where(_TABLE.c.district_id == bindparam("district_id"))
    .scalar_subquery()
)


def read_now(
    *, session: Session, statement: Executable, params: Mapping[str, Any] | None = None
) -> tuple[Any, ...]:
    """The one row of ``statement`` — a version, read on every public request: outside a
    transaction (on PostgreSQL, on a connection of its own: :mod:`tid.services.public.direct`)
    unless the session is in one already, whose own writes it must see."""
    connections = direct.outside(session=session)
    if connections is not None:
        return connections.one(statement, params)
    bind = session.get_bind()
    if session.in_transaction() or not isinstance(bind, Engine):
        return tuple(session.execute(statement, params).one())
    with bind.connect() as raw:  # SQLite: its pool neither pings nor opens a transaction
        connection = raw.execution_options(isolation_level="AUTOCOMMIT")
        return tuple(connection.execute(statement, params).one())


def version_of(*, session: Session, district_id: int) -> int:
    """The district's public version (0 before anything moved it)."""
    found = read_now(
        session=session, statement=_VERSION_OF_ROW, params={"district_id": district_id}
    )[0]
    return int(found) if found is not None else 0


# --------------------------------------------------------------------------- the worker's copies

_MOST = 256
_KEPT: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_LOCK = threading.Lock()
# Each database (engine) its own name in the keys: a worker never mixes two databases' copies.
_DATABASES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def database_name(*, session: Session) -> str:
    """The name this worker gives the session's database (two databases' copies never mix)."""
    return _database(session)


def _database(session: Session) -> str:
    bind = session.get_bind()
    engine = getattr(bind, "engine", bind)
    with _LOCK:
        name = _DATABASES.get(engine)
        if name is None:
            name = _DATABASES[engine] = uuid.uuid4().hex
    return name


def kept(
    *,
    session: Session,
    district_id: int,
    key: tuple[Any, ...],
    make: Callable[[], T],
    version: object = None,
) -> T:
    """What ``make`` computes for the district's current version (or for ``version``, when
    the caller knows what its answer depends on), computed once per version and worker (the
    least recently used of :data:`_MOST` copies is dropped first)."""
    if version is None:
        version = version_of(session=session, district_id=district_id)
    full = (_database(session), district_id, version, *key)
    with _LOCK:
        if full in _KEPT:
            _KEPT.move_to_end(full)
            found: T = _KEPT[full]
            return found
    value = make()
    with _LOCK:
        _KEPT[full] = value
        while len(_KEPT) > _MOST:
            _KEPT.popitem(last=False)
    return value


def forget_all() -> None:
    """Drop every copy (the tests, between databases)."""
    with _LOCK:
        _KEPT.clear()


# --------------------------------------------------------------------------- the automatic moves


def _districts_of(parameters: object) -> set[int] | None:
    """The districts named by a statement's parameters (None: it does not say)."""
    rows: Sequence[object]
    if isinstance(parameters, Mapping):
        rows = [parameters]
    elif isinstance(parameters, Sequence) and not isinstance(parameters, str | bytes):
        rows = parameters
    else:
        return None
    found: set[int] = set()
    for row in rows:
        if not isinstance(row, Mapping) or not isinstance(row.get("district_id"), int):
            return None
        found.add(int(row["district_id"]))
    return found


def _note(session: OrmSession, district_ids: Iterable[int]) -> None:
    pending: set[int] = session.info.setdefault(_PENDING, set())
    pending.update(d for d in district_ids if d)


def _on_execute(state: ORMExecuteState) -> None:
    statement = state.statement
    if not isinstance(statement, UpdateBase):
        return
    table = getattr(statement, "table", None)
    if getattr(table, "name", None) not in WATCHED:
        return
    named = _districts_of(state.parameters)
    values = getattr(statement, "_values", None) or {}
    for column, value in values.items():
        if getattr(column, "name", column) == "district_id":
            literal = getattr(value, "value", None)
            if isinstance(literal, int):
                named = (named or set()) | {literal}
    if named:
        _note(state.session, named)


def _after_flush(session: OrmSession, _context: object) -> None:
    touched = [*session.new, *session.dirty, *session.deleted]
    district_ids = set()
    for row in touched:
        table = getattr(type(row), "__tablename__", None)
        if table not in WATCHED and table not in _BY_PROPERTY:
            continue
        district_id = row.id if table == "district" else getattr(row, "district_id", None)
        if table in _BY_PROPERTY:  # the property's district (read once, then in the session)
            prop = session.get(Property, getattr(row, "property_id", 0))
            district_id = prop.district_id if prop is not None else None
        if isinstance(district_id, int):
            district_ids.add(district_id)
    if district_ids:
        _note(session, district_ids)


def _before_commit(session: OrmSession) -> None:
    if session.in_nested_transaction():  # a savepoint released: the transaction goes on
        return
    session.flush()
    pending: set[int] = session.info.pop(_PENDING, set())
    done: set[int] = session.info.setdefault(_DONE, set())
    fresh = pending - done
    if fresh:
        _upsert(session.connection(), fresh)
        done.update(fresh)


_LISTENERS: list[Callable[[list[int]], None]] = []


def on_moved(listener: Callable[[list[int]], None]) -> None:
    """Call ``listener`` with the districts whose version a transaction moved, once it is
    committed (the web prepares their statements then: tid/web/account/prepared.py)."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def _after_commit(session: OrmSession) -> None:
    if session.in_nested_transaction():  # a savepoint released: nothing is committed yet
        return
    moved = sorted(session.info.get(_DONE, ()))
    for listener in _LISTENERS if moved else ():
        try:
            listener(moved)
        except Exception:  # what is committed stays so; a document is then made when asked
            logging.getLogger(__name__).exception("after moving the versions of %s", moved)


def _forget_transaction(session: OrmSession, transaction: SessionTransaction) -> None:
    """The session's transaction ended (committed or rolled back): start the next afresh. A
    savepoint's end is not the transaction's."""
    if transaction.parent is not None:
        return
    session.info.pop(_PENDING, None)
    session.info.pop(_DONE, None)


def install() -> None:
    """Listen to every session's writes (once per process)."""
    if event.contains(OrmSession, "do_orm_execute", _on_execute):
        return
    event.listen(OrmSession, "do_orm_execute", _on_execute)
    event.listen(OrmSession, "after_flush", _after_flush)
    event.listen(OrmSession, "before_commit", _before_commit)
    event.listen(OrmSession, "after_commit", _after_commit)
    event.listen(OrmSession, "after_transaction_end", _forget_transaction)
