"""The saved reforms a reform given to ``tid calc`` names (``--reform ID``, or a reform
file's ``base``), read from the installation's database: the app of the ``tid`` command
running (its ``ScriptInfo``), else the installation's. Loaded only when a reform names one
(tid/cli/calc.py ``SavedReforms``); it reads, and writes nothing."""

from __future__ import annotations

import click
from flask.cli import ScriptInfo
from sqlmodel import Session

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
    return reform_library.resolver(session=session)
