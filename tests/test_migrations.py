"""The migrations build exactly the schema the models describe, on both databases, and
bring the journal's append-only guard with them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

import tid.models  # noqa: F401
from tests.pg import ThrowawayPostgres
from tid import migrate
from tid.db import make_engine


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database brought to ``head`` by the migrations alone."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'migrated.sqlite'}"
    else:
        server: ThrowawayPostgres = request.getfixturevalue("pg_server")
        name = f"migrated_{tmp_path.name[-20:].replace('-', '_')}"
        admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = server.url(name)
    migrate.upgrade(url)
    yield url


def test_upgrade_head_matches_models(migrated_url: str) -> None:
    engine = make_engine(migrated_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()
    assert diff == [], f"models and migrations differ: {diff}"


def test_the_migrated_journal_refuses_update_and_delete(migrated_url: str) -> None:
    engine = make_engine(migrated_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO municipality (name) VALUES ('Ponce')"))
            conn.execute(
                text(
                    "INSERT INTO district (municipality_id, name, association_name) "
                    "SELECT id, 'Ponce Centro', '' FROM municipality"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO journal_entry (district_id, entry_date, kind, memo, "
                    "idempotency_key, actor, created_at) SELECT id, '2026-07-01', 'payment', "
                    "'', 'k-1', 'tests', '2026-07-01 00:00:00+00:00' FROM district"
                )
            )
        for statement in (
            "UPDATE journal_entry SET memo = 'changed'",
            "DELETE FROM journal_entry",
        ):
            with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
                conn.execute(text(statement))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT memo FROM journal_entry")).scalar_one() == ""
    finally:
        engine.dispose()


def test_downgrade_removes_everything(migrated_url: str) -> None:
    migrate.downgrade(migrated_url, "base")
    engine = make_engine(migrated_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn)
            diff = compare_metadata(context, SQLModel.metadata)
        # Every table of the models is missing again: nothing was left behind.
        assert {d[0] for d in diff} <= {"add_table", "add_index"}
        assert {d[1].name for d in diff if d[0] == "add_table"} == set(SQLModel.metadata.tables)
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_running_balances_are_computed_from_the_journal_already_booked(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from decimal import Decimal

    from sqlmodel import Session

    from tid.services import ledger

    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'before.sqlite'}"
    else:
        server: ThrowawayPostgres = request.getfixturevalue("pg_server")
        name = f"before_{tmp_path.name[-20:].replace('-', '_')}"
        admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = server.url(name)
    migrate.upgrade(url, "64fa764bb8d9")  # the schema before the running balances
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO municipality (name) VALUES ('Ponce')"))
            conn.execute(
                text(
                    "INSERT INTO district (municipality_id, name, association_name) "
                    "SELECT id, 'Ponce Centro', '' FROM municipality"
                )
            )
            for n, day in enumerate(("2026-07-01", "2026-07-01", "2026-07-02")):
                conn.execute(
                    text(
                        "INSERT INTO journal_entry (district_id, entry_date, kind, memo, "
                        "idempotency_key, actor, created_at) SELECT id, :day, 'payment', '', "
                        ":key, 'tests', '2026-07-03 00:00:00+00:00' FROM district"
                    ),
                    {"day": day, "key": f"k-{n}"},
                )
                conn.execute(
                    text(
                        "INSERT INTO journal_line (entry_id, account, amount) "
                        "SELECT id, 'bank', 500 FROM journal_entry WHERE idempotency_key = :k "
                        "UNION ALL "
                        "SELECT id, 'owner_credit', -500 FROM journal_entry "
                        "WHERE idempotency_key = :k"
                    ),
                    {"k": f"k-{n}"},
                )
        engine.dispose()
        migrate.upgrade(url)
        engine = make_engine(url)
        with Session(engine) as session:
            district_id = session.execute(text("SELECT id FROM district")).scalar_one()
            assert ledger.verify(session=session, district_id=district_id) == (6, [])
            # The entries booked before are numbered in their district's journal, as booked.
            numbers = session.execute(text("SELECT number FROM journal_entry ORDER BY id"))
            assert [n for (n,) in numbers] == [1, 2, 3]
            assert ledger.balance(
                session=session, district_id=district_id, account="bank"
            ) == Decimal("15.00")
            assert (
                ledger.entries_count(session=session, district_id=district_id) == 3
            )  # counted per day too
            assert (
                ledger.entries_count(
                    session=session, district_id=district_id, since=date(2026, 7, 2)
                )
                == 1
            )
            assert ledger.day_sums(
                session=session, district_id=district_id, until=date(2026, 7, 1)
            ) == {
                "bank": Decimal("10.00"),
                "owner_credit": Decimal("-10.00"),
            }
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_existing_notice_runs_are_numbered_per_district_and_keep_their_ids(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from sqlalchemy import create_engine

    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    else:
        server: ThrowawayPostgres = request.getfixturevalue("pg_server")
        name = f"runs_{tmp_path.name[-20:].replace('-', '_')}"
        admin = make_engine(server.url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = server.url(name)
    migrate.upgrade(url, "i9b01")  # before runs were numbered per district
    engine = create_engine(url)  # no foreign-key pragma: the runs alone are enough here
    try:
        with engine.begin() as conn:
            if backend == "postgresql":
                conn.execute(text("SET session_replication_role = replica"))
            # The rows a run refers to (their own references left out: not under test).
            conn.execute(text("INSERT INTO municipality (id, name) VALUES (1, 'Ponce')"))
            for district in (7, 8):
                conn.execute(
                    text(
                        "INSERT INTO district (id, municipality_id, name, association_name) "
                        "VALUES (:d, 1, :name, '')"
                    ),
                    {"d": district, "name": f"D{district}"},
                )
            conn.execute(
                text(
                    "INSERT INTO billing_run (id, district_id, ordinance_id, fiscal_year, version, "
                    "status, formula, parameters, property_count, total, expected_amount, run_on, "
                    "due_date, fingerprint, warnings, reason, actor, created_at) VALUES (1, 7, 1, "
                    "'2025-26', 1, 'active', 'x', '{}', 0, 0, 0, '2026-01-01', '2026-04-30', '', "
                    "'', '', 'tests', '2026-01-01 00:00:00+00:00')"
                )
            )
            # Runs 1 and 3 of district 7, run 2 of district 8 (ids interleaved).
            for run_id, district in ((1, 7), (2, 8), (3, 7)):
                conn.execute(
                    text(
                        "INSERT INTO notice_batch (id, district_id, billing_run_id, kind, "
                        "issued_on, sender_name, sender_address, how_to_pay, notice_count, "
                        "page_count, print_sha256, manifest_sha256, actor, created_at) VALUES "
                        "(:id, :d, 1, 'initial', '2026-01-20', 'A', 'B', 'C', 0, 0, '', '', "
                        "'tests', '2026-01-20 00:00:00+00:00')"
                    ),
                    {"id": run_id, "d": district},
                )
    finally:
        engine.dispose()
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT id, district_id, number FROM notice_batch ORDER BY id")
            ).all()
        assert [tuple(r) for r in rows] == [(1, 7, 1), (2, 8, 1), (3, 7, 2)]
    finally:
        engine.dispose()
