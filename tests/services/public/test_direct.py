"""The public pages' own connections to PostgreSQL: a version read and a count of visits go
through them (none through the app's pool), a connection the server dropped is replaced at
once, and disposing of the app's engine closes them."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import event, text
from sqlmodel import Session

from tests.conftest import BACKENDS
from tid.services.public import direct, versions, visits

ON_POSTGRESQL = pytest.mark.parametrize(
    "backend", [b for b in BACKENDS if b == "postgresql"], indirect=True
)


def _theirs(session: Session) -> int:
    """How many connections the server has to this database, this one left out."""
    found = session.execute(
        text(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    ).scalar_one()
    session.commit()
    return int(found)


@ON_POSTGRESQL
def test_a_version_and_a_visit_go_on_their_own_connections_not_the_apps_pool(
    app: Flask, session: Session
) -> None:
    engine = app.extensions["tid.engine"]
    lent: list[str] = []

    def count(*_args: object) -> None:
        lent.append("lent")

    event.listen(engine.pool, "checkout", count)
    try:
        with Session(engine) as reader:
            assert versions.version_of(session=reader, district_id=0) == 0
            first = visits.count_visit(session=reader, address="192.0.2.9", limit=25)
            assert not reader.in_transaction()
    finally:
        event.remove(engine.pool, "checkout", count)
    assert lent == []
    assert first.allowed
    # the lease is in the database, committed: another worker's count starts after it
    stored = session.execute(
        text("SELECT count FROM request_count WHERE key = 'public:192.0.2.9'")
    ).scalar_one()
    assert stored == visits.LEASE


@ON_POSTGRESQL
def test_a_dropped_connection_is_replaced_and_the_engine_disposed_closes_them(
    app: Flask, session: Session
) -> None:
    engine = app.extensions["tid.engine"]
    pool = direct.pool(engine)
    assert pool is not None
    with Session(engine) as reader:
        versions.version_of(session=reader, district_id=0)
    held = _theirs(session)
    assert held >= 1  # the idle direct connection (and perhaps the app pool's)
    session.execute(
        text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    )
    session.commit()
    with Session(engine) as reader:  # the idle one was dropped: the read is sent again
        assert versions.version_of(session=reader, district_id=0) == 0
    session.close()
    engine.dispose()
    with Session(engine) as checker:
        assert _theirs(checker) == 0
