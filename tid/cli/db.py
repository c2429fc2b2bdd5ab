"""The database: its schema (``tid db upgrade``), and its backup and restore with the archive
of documents (``tid backup``, ``tid restore``)."""

from __future__ import annotations

import json
import sys

import click
from flask import current_app
from flask.cli import with_appcontext


@click.group("db")
def db_group() -> None:
    """The database schema."""


@db_group.command("upgrade")
@with_appcontext
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str) -> None:
    """Bring the database schema up to date (Alembic)."""
    from tid import migrate

    migrate.upgrade(current_app.config["DATABASE_URL"], revision)
    click.echo(f"Database at {revision}.")


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@with_appcontext
def backup_command(file: str) -> None:
    """Write a backup of the database and its archive of documents to FILE (.tar.gz)."""
    from pathlib import Path

    from tid.config import archive_dir
    from tid.services.installation import backup

    try:
        summary = backup.backup(
            current_app.extensions["tid.engine"],
            current_app.config["DATABASE_URL"],
            Path(file),
            archive=archive_dir(current_app.config),
        )
    except backup.BackupError as exc:
        click.echo(json.dumps({"error": str(exc)}), err=True)
        sys.exit(2)
    click.echo(json.dumps({"file": file, **summary.as_json()}))


@click.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--replace", is_flag=True, help="Replace a database that already holds data.")
@with_appcontext
def restore_command(file: str, replace: bool) -> None:
    """Restore the database and its archive of documents from a backup FILE."""
    from pathlib import Path

    from tid.config import archive_dir
    from tid.services.installation import backup

    try:
        summary = backup.restore(
            current_app.extensions["tid.engine"],
            current_app.config["DATABASE_URL"],
            Path(file),
            replace=replace,
            archive=archive_dir(current_app.config),
        )
    except backup.BackupError as exc:
        click.echo(json.dumps({"error": str(exc)}), err=True)
        sys.exit(2)
    click.echo(json.dumps({"file": file, "restored": True, **summary.as_json()}))
