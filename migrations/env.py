"""Alembic environment: the models' metadata; batch mode so SQLite can alter tables."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import tid.models  # noqa: F401  (registers every table)
from tid.db import make_engine

config = context.config
target_metadata = SQLModel.metadata
url = config.attributes.get("database_url") or config.get_main_option("sqlalchemy.url")


def run_migrations_offline() -> None:
    context.configure(
        url=url, target_metadata=target_metadata, render_as_batch=True, literal_binds=True
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = make_engine(str(url))
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
    connectable.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
