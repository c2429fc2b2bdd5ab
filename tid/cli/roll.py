"""The property roll of a district (``tid roll import``) and the uploads kept between their
preview and their import (``tid uploads purge``)."""

from __future__ import annotations

import json

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.districts import district_id_of
from tid.cli.errors import fail
from tid.rules.errors import InputError


@click.group("roll")
def roll_group() -> None:
    """The property roll of a district (21 LPRA § 6653(3)(d))."""


@roll_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", required=True, help='Like "2026-27".')
@click.option("--dry-run", is_flag=True, help="Check the file and compare; write nothing.")
@with_appcontext
def roll_import(file: str, district: str, fiscal_year: str, dry_run: bool) -> None:
    """Import the roll in FILE (CSV) for a district and fiscal year: every row or none."""
    import os

    from tid.db import get_session
    from tid.services import roll
    from tid.services.audit_trail import audit
    from tid.services.roll_check import changes as roll_changes

    district_id = district_id_of(district)
    limits = {
        "max_bytes": int(current_app.config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
        "max_rows": int(current_app.config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
    }
    session = get_session()
    try:
        roll.check_size(os.path.getsize(file), limits["max_bytes"])  # before reading it
        with open(file, "rb") as fh:
            data = fh.read()
        name = os.path.basename(file)
        if dry_run:
            preview = roll.preview_roll(
                session=session,
                district_id=district_id,
                fiscal_year=fiscal_year,
                data=data,
                file_name=name,
                **limits,
            )
            if preview.parsed.findings:
                from tid.rules.errors import FindingsError

                raise FindingsError(list(preview.parsed.findings))
            summary = {
                "dry_run": True,
                "fiscal_year": preview.fiscal_year,
                "rows": len(preview.parsed.rows),
                "already_imported": preview.already_imported is not None,
                "added": preview.added,
                "changed": preview.changed,
                "unchanged": preview.unchanged,
                "removed": preview.removed,
                "new_properties": preview.new_properties,
                "sha256": preview.parsed.sha256,
            }
        else:
            result = roll_changes.import_roll(
                session=session,
                actor=audit.Actor("command line"),
                district_id=district_id,
                fiscal_year=fiscal_year,
                data=data,
                file_name=name,
                **limits,
            )
            session.commit()
            summary = {
                "fiscal_year": result.roll_import.fiscal_year,
                "rows": result.roll_import.rows,
                "unchanged": result.unchanged,
                "added": result.added,
                "changed": result.changed,
                "removed": result.removed,
                "new_properties": result.new_properties,
                "sha256": result.roll_import.sha256,
            }
    except InputError as exc:
        session.rollback()
        fail(exc)
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


@click.group("uploads")
def uploads_group() -> None:
    """Uploaded files kept between their preview and their import."""


@uploads_group.command("purge")
@with_appcontext
def uploads_purge() -> None:
    """Delete the uploads older than UPLOAD_RETENTION_HOURS (imported ones are deleted at
    once)."""
    from pathlib import Path

    from tid.config import upload_retention
    from tid.services import roll

    folder = Path(current_app.instance_path) / "uploads"
    deleted = roll.purge_uploads(folder, older_than=upload_retention(current_app.config))
    click.echo(json.dumps({"deleted": deleted}))
