"""The database: one engine per app, one session per request, SQLite tuned for a clerk's
office (WAL, busy timeout, foreign keys) and PostgreSQL through ``DATABASE_URL``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from tid.files import create_private


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite connections get WAL, busy_timeout and foreign keys."""
    if url.startswith("sqlite"):
        database = make_url(url).database
        if database and database != ":memory:" and not database.startswith("file:"):
            create_private(Path(database))  # 0600 before SQLite makes it (and its WAL)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, **kwargs
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            # pysqlite's own transaction handling would defer BEGIN; let SQLAlchemy drive it.
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, **kwargs)


def init_app(app: Flask) -> None:
    """Create the app's engine and close the request's session at teardown."""
    app.extensions["tid.engine"] = make_engine(app.config["DATABASE_URL"])

    @app.teardown_appcontext
    def _close_session(_exc: BaseException | None) -> None:
        session: Session | None = g.pop("db_session", None)
        if session is not None:
            session.close()


def engine() -> Engine:
    """The current app's engine."""
    result: Engine = current_app.extensions["tid.engine"]
    return result


def get_session() -> Session:
    """The session of the current request (or CLI command), opened on first use."""
    if "db_session" not in g:
        g.db_session = Session(engine(), expire_on_commit=False)
    session: Session = g.db_session
    return session


@contextmanager
def session_scope(bind: Engine) -> Iterator[Session]:
    """A session for jobs and scripts: commits on success, rolls back on error."""
    session = Session(bind, expire_on_commit=False)
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
