"""The statements every public request sends on PostgreSQL — its version (one indexed row)
and, once per lease, its address's count of visits — sent on connections of their own.

The app's pool pings a connection before lending it, and a read through the session or the
pool costs the pool's bookkeeping (checkout, reset on return) on top of the statement: more
than the statement itself for a one-row read that every public request makes. These
connections are the driver's own, in autocommit, kept idle in a short list per engine; each
statement is prepared once per connection by the server. Their transactions (the count of
visits) do not wait for the disk: a count lost in a crash lets a few more requests through,
nothing else. A connection the server dropped (a restart, an idle timeout) fails the
statement, which is then sent once more on a fresh connection. The engine disposed (its
connections closed), these are closed with it; a forked process opens its own."""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, cast

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.sql import ClauseElement, Executable
from sqlmodel import Session

_IDLE_MOST = 4  # idle connections kept per engine and process (a worker's threads share them)


class DirectPool:
    """A few autocommit connections of the driver to one engine's PostgreSQL database."""

    def __init__(self, engine: Engine) -> None:
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        self._cargs, self._cparams = list(cargs), dict(cparams)
        self._dialect = engine.dialect
        self._idle: list[psycopg.Connection[Any]] = []
        self._inherited: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._texts: dict[int, tuple[Executable, str, dict[str, Any]]] = {}

    def text(self, statement: Executable) -> tuple[str, dict[str, Any]]:
        """The statement's SQL for this database, its parameters by name, and the values of
        those it holds itself (its literals); compiled once."""
        found = self._texts.get(id(statement))
        if found is None or found[0] is not statement:
            compiled = cast(ClauseElement, statement).compile(dialect=self._dialect)
            found = (statement, str(compiled), dict(compiled.params))
            self._texts[id(statement)] = found
        return found[1], found[2]

    def one(
        self, statement: Executable, params: Mapping[str, Any] | None = None
    ) -> tuple[Any, ...]:
        """The one row ``statement`` answers."""
        rows = self.rows(statement, params)
        if len(rows) != 1:
            raise LookupError(f"one row was asked for, {len(rows)} came")
        return rows[0]

    def rows(
        self, statement: Executable, params: Mapping[str, Any] | None = None
    ) -> list[tuple[Any, ...]]:
        """The rows ``statement`` answers (none for a statement that answers none), sent on
        one of these connections — once more on a fresh connection when the server had
        dropped the one lent."""
        sql, held = self.text(statement)
        values = {**held, **(params or {})}
        try:
            return self._send(sql, values, fresh=False)
        except psycopg.OperationalError:
            return self._send(sql, values, fresh=True)

    def _send(self, sql: str, values: dict[str, Any], fresh: bool) -> list[tuple[Any, ...]]:
        connection = self._connect() if fresh else self._lend()
        try:
            cursor = connection.execute(sql, values, prepare=True)
            rows = [tuple(row) for row in cursor.fetchall()] if cursor.description else []
        except BaseException:
            connection.close()
            raise
        self._give_back(connection)
        return rows

    def _lend(self) -> psycopg.Connection[Any]:
        with self._lock:
            if self._pid != os.getpid():  # forked: the parent's connections are not ours
                # kept, never closed or freed here: closing one would end the parent's too
                self._inherited += self._idle
                self._idle, self._pid = [], os.getpid()
            while self._idle:
                connection = self._idle.pop()
                if not connection.closed:
                    return connection
        return self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        connection = psycopg.connect(*self._cargs, **self._cparams, autocommit=True)
        connection.execute("SET synchronous_commit TO OFF")
        return connection

    def _give_back(self, connection: psycopg.Connection[Any]) -> None:
        with self._lock:
            if self._pid == os.getpid() and len(self._idle) < _IDLE_MOST:
                self._idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


_POOLS: weakref.WeakKeyDictionary[Engine, DirectPool] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def pool(engine: Engine) -> DirectPool | None:
    """The engine's direct connections (None: not PostgreSQL — SQLite's pool neither pings
    nor costs a round trip)."""
    if engine.dialect.name != "postgresql":
        return None
    with _LOCK:
        found = _POOLS.get(engine)
        if found is None:
            found = _POOLS[engine] = DirectPool(engine)
            event.listen(engine, "engine_disposed", _close_with(found))
    return found


def outside(*, session: Session) -> DirectPool | None:
    """The direct connections a statement of ``session`` goes on: those of its engine, when
    the session is in no transaction (one it is in must see its own writes) and its database
    is PostgreSQL; else None (the session sends it)."""
    bind = session.get_bind()
    if session.in_transaction() or not isinstance(bind, Engine):
        return None
    return pool(bind)


def _close_with(direct: DirectPool) -> Callable[[Engine], None]:
    def close(_engine: Engine) -> None:
        direct.close()

    return close
