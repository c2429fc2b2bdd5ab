"""The saved reforms a reform given to ``tid calc`` names (``--reform ID``, or a reform
file's ``base``), read from the installation's database: the app of the ``tid`` command
running (its ``ScriptInfo``), else the installation's. Loaded only when a reform names one
(tid/cli/calc.py ``SavedReforms``); it reads, and writes nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from flask.cli import ScriptInfo
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from tid.rules.errors import InputError
from tid.rules.messages import N_, Message
from tid.rules.reform import Resolver
from tid.services import reform_library


def resolver() -> Resolver:
    """The look-up of saved reforms by id in the installation's database."""
    context = click.get_current_context(silent=True)
    info = context.find_object(ScriptInfo) if context is not None else None
    if info is not None:
        app = info.load_app()
    else:
        from tid import create_app

        app = create_app()
    session = Session(app.extensions["tid.engine"])
    resolve = reform_library.resolver(session=session)

    def look_up(ident: str) -> Mapping[str, Any] | None:
        try:
            return resolve(ident)
        except SQLAlchemyError as exc:  # no database there, or not migrated
            raise InputError(
                "reform",
                Message(
                    N_(
                        "The saved reforms cannot be read (%(problem)s): is the database "
                        "migrated (tid db upgrade)?"
                    ),
                    problem=type(exc).__name__,
                ),
            ) from None

    return look_up
