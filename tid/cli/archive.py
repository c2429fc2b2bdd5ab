"""The archive of issued documents (``tid archive verify``)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext


@click.group("archive")
def archive_group() -> None:
    """The archive of documents of record (notices, print files, manifests, issued
    documents, statements, studies, the opening position's files)."""


@archive_group.command("verify")
@click.option("--lang", help="es or en (default: the environment's language, else es).")
@with_appcontext
def archive_verify(lang: str | None) -> None:
    """Re-hash every archived document and report any whose bytes no longer match the
    SHA-256 it was archived under, by kind and number (exit status 1 if there is one)."""
    from flask import current_app

    from tid.cli.environment import command_language
    from tid.config import archive_dir
    from tid.db import get_session
    from tid.services import archive

    report = archive.verify(session=get_session(), folder=archive_dir(current_app.config))
    click.echo(report.summary(command_language(current_app.config, lang)))
    if not report.ok:
        raise SystemExit(1)


@archive_group.command("pictures")
@with_appcontext
def archive_pictures() -> None:
    """Draw the first-page picture of every version of the legislature's files that has
    none yet (kept before pictures were drawn by the upload's job), each by a bounded
    reader; one that cannot be drawn is marked, never tried again."""
    from flask import current_app

    from tid.config import archive_dir
    from tid.db import get_session
    from tid.readers import limits_of
    from tid.services.petitions import file_search

    tried = file_search.draw_missing(
        session=get_session(),
        folder=archive_dir(current_app.config),
        limits=limits_of(current_app.config),
    )
    click.echo(f"{tried} picture(s) drawn or marked")
