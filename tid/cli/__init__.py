"""The command line ``tid`` (thin: parse, call, print), a module per area:

- ``calc``: the calculators of the pure core; ``tid calc`` runs without the app, so it
  starts at once (no Flask, no database);
- ``app``: Flask's group of the app, for every other command (``run``, ``shell``, ``routes``
  and those :func:`tid.cli.app.register` gives the app);
- ``db`` (schema, backup, restore), ``users``, ``demo`` (and its mail sink), ``processes``
  (scheduler, worker, health), ``roll`` (and the uploads), ``billing``, ``account``,
  ``archive``, ``documents``; and what they share: ``errors``, ``districts``, ``environment``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any, Literal, NoReturn, overload

import click

# The commands that need no app: name -> "module:command", imported when one is run.
PURE_COMMANDS = {"calc": "tid.cli.calc:calc_command"}


def _no_schema(exc: Exception) -> bool:
    """The database was never brought up to date: a table is missing (SQLite says "no such
    table", PostgreSQL "relation … does not exist")."""
    text = str(getattr(exc, "orig", exc))
    return "no such table" in text or ("relation" in text and "does not exist" in text)


class TidGroup(click.Group):
    """``tid``: a command of :data:`PURE_COMMANDS` runs on its own; any other goes to the
    app's Flask group (:data:`tid.cli.app.flask_group`), which creates the app first."""

    @overload
    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: Literal[True] = True,
        **extra: Any,
    ) -> NoReturn: ...

    @overload
    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = ...,
        **extra: Any,
    ) -> Any: ...

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        target = PURE_COMMANDS.get(words[0]) if words else None
        if target is None:
            from sqlalchemy.exc import OperationalError, ProgrammingError

            from tid.cli.app import flask_group

            try:
                return flask_group.main(
                    args,
                    prog_name,
                    complete_var,
                    standalone_mode,
                    windows_expand_args=windows_expand_args,
                    **extra,
                )
            except (OperationalError, ProgrammingError) as exc:
                if not _no_schema(exc):
                    raise
                from tid.rules.messages import Message, render

                said = Message(
                    "Error: the database has no tables yet: run `tid db upgrade` first "
                    "(`make demo` does it, and loads the demo)."
                )
                # before the app has started: English when asked for, else the app's Spanish
                from tid.cli.environment import environment_language

                lang = "en" if environment_language() == "en" else "es"
                click.echo(render(said, lang), err=True)
                sys.exit(2)
        module, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        program = prog_name or click.utils._detect_program_name()
        return command.main(
            words[1:],
            f"{program} {words[0]}",
            complete_var,
            standalone_mode,
            windows_expand_args=windows_expand_args,
            **extra,
        )


@click.group(cls=TidGroup)
def main() -> None:
    """tid: tourism improvement districts of Puerto Rico."""
