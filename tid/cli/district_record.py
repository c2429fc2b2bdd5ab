"""A district's whole record, to leave with and to bring: ``tid export district`` writes it
as one ZIP (docs/leaving.md), ``tid import district`` reads one into an installation that does
not have the district, all or nothing."""

from __future__ import annotations

import time
from pathlib import Path

import click
from flask.cli import with_appcontext


@click.group("export")
def export_group() -> None:
    """Export a record (a district's, as a Frictionless Data Package in a ZIP)."""


@click.group("import")
def import_group() -> None:
    """Import a record exported by ``tid export``."""


@export_group.command("district")
@click.option("--district", "reference", required=True, help="The district's id or exact name.")
@click.option(
    "--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="FILE.zip"
)
@with_appcontext
def export_district_command(reference: str, out: Path) -> None:
    """Write the district's whole record to FILE.zip (the same record, the same bytes)."""
    from flask import current_app

    from tid.cli.districts import district_id_of
    from tid.config import archive_dir
    from tid.db import get_session
    from tid.services.district_record.export import ExportError, export_to_file

    district_id = district_id_of(reference)
    started = time.monotonic()
    try:
        done = export_to_file(
            session=get_session(),
            district_id=district_id,
            folder=archive_dir(current_app.config),
            target=out,
        )
    except ExportError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"{done.district}: {done.rows:,} rows in {done.tables} tables and {done.files:,} files "
        f"({done.file_bytes:,} bytes) written to {out} ({out.stat().st_size:,} bytes) "
        f"in {time.monotonic() - started:.2f} s."
    )


@import_group.command("district")
@click.argument("package", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def import_district_command(package: Path) -> None:
    """Import a district's record from PACKAGE (a ZIP made by ``tid export district``) into
    this installation, which must not have the district: all of it, or nothing."""
    from flask import current_app

    from tid.config import archive_dir
    from tid.db import get_session
    from tid.services.audit_trail import audit
    from tid.services.district_record.intake import import_district
    from tid.services.district_record.reading import RecordError

    session = get_session()
    started = time.monotonic()
    try:
        done = import_district(
            session=session,
            path=package,
            folder=archive_dir(current_app.config),
            max_bytes=int(current_app.config.get("RECORD_MAX_MB") or 4096) * 1024 * 1024,
            actor=audit.Actor("command line"),
        )
        session.commit()
    except RecordError as exc:
        session.rollback()
        raise click.ClickException(
            f"{package} was not imported; nothing was written:\n" + "\n".join(exc.problems)
        ) from exc
    click.echo(
        f"{done.district} ({done.municipality}) imported as district {done.district_id}: "
        f"{done.rows:,} rows and {done.files:,} files, in {time.monotonic() - started:.2f} s."
    )
