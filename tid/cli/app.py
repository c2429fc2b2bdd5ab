"""Flask's group of the app, ``tid`` for every command but the pure ones (tid/cli/__init__.py):
it creates the app (:func:`tid.create_app`), whose command line :func:`register` fills."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import FlaskGroup

from tid.cli import (
    aboard,
    account,
    archive,
    billing,
    calc,
    db,
    demo,
    district_record,
    documents,
    processes,
    roll,
    setup,
    users,
    year_ahead,
)


def _create_app() -> Flask:
    from tid import create_app

    return create_app({"MADE_BY_COMMAND_LINE": True})


@click.group(
    "tid",
    cls=FlaskGroup,
    create_app=_create_app,
    add_default_commands=True,
    load_dotenv=False,
    set_debug_flag=False,
)
def flask_group() -> None:
    """tid: tourism improvement districts of Puerto Rico."""


def register(app: Flask) -> None:
    """Attach the project's command groups to the app's CLI."""
    app.cli.add_command(db.db_group)
    app.cli.add_command(users.users_group)
    app.cli.add_command(calc.calc_command)
    app.cli.add_command(demo.demo_command)
    app.cli.add_command(roll.roll_group)
    app.cli.add_command(aboard.aboard_group)
    app.cli.add_command(billing.billing_group)
    app.cli.add_command(year_ahead.budget_group)
    app.cli.add_command(processes.scheduler_command)
    app.cli.add_command(processes.worker_command)
    app.cli.add_command(processes.health_command)
    app.cli.add_command(demo.mail_sink_command)
    app.cli.add_command(account.account_group)
    app.cli.add_command(db.backup_command)
    app.cli.add_command(db.restore_command)
    app.cli.add_command(roll.uploads_group)
    app.cli.add_command(archive.archive_group)
    app.cli.add_command(documents.document_command)
    app.cli.add_command(setup.setup_command)
    app.cli.add_command(district_record.export_group)
    app.cli.add_command(district_record.import_group)
