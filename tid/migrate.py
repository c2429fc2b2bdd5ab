"""Schema migrations through Alembic (the scripts live in the project's ``migrations/``)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from tid.config import PROJECT_ROOT

MIGRATIONS = PROJECT_ROOT / "migrations"


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at ``url`` (no alembic.ini needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["database_url"] = url
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


def revision(url: str, message: str, *, autogenerate: bool = True) -> None:
    command.revision(alembic_config(url), message=message, autogenerate=autogenerate)
