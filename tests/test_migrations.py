"""The migrations build exactly the schema the models describe, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlmodel import SQLModel

import tid.models  # noqa: F401
from tests.pg import ThrowawayPostgres
from tid import migrate
from tid.db import make_engine


def _diff_after_upgrade(url: str) -> list[object]:
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_upgrade_head_matches_models_on_sqlite(tmp_path) -> None:  # type: ignore[no-untyped-def]
    diff = _diff_after_upgrade(f"sqlite:///{tmp_path / 'migrated.sqlite'}")
    assert diff == [], f"models and migrations differ: {diff}"


def test_upgrade_head_matches_models_on_postgresql(pg_server: ThrowawayPostgres) -> None:
    admin = make_engine(pg_server.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE migrated"))
    admin.dispose()
    diff = _diff_after_upgrade(pg_server.url("migrated"))
    assert diff == [], f"models and migrations differ: {diff}"
