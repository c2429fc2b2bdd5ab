"""Moving in (``tid aboard``): a district's opening position from the CSV files of a folder
(docs/moving-in.md) checked without booking, or booked once its totals are confirmed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.districts import district_id_of
from tid.cli.errors import fail
from tid.rules.errors import N_, FindingsError, InputError


@click.group("aboard")
def aboard_group() -> None:
    """A district moving in with its past: its opening position as of a cut-over day."""


def _limits() -> dict[str, Any]:
    from tid.services import aboard

    config = current_app.config
    return {
        "max_bytes": int(config.get("ROLL_MAX_BYTES") or aboard.DEFAULT_MAX_BYTES),
        "max_rows": int(config.get("ROLL_MAX_ROWS") or aboard.DEFAULT_MAX_ROWS),
    }


def _files(folder: str) -> dict[str, tuple[str, bytes]]:
    """The folder's files by kind (``facturas.csv`` or ``bills.csv`` …); another CSV file, or
    two files of one kind, is refused by its name."""
    from tid.services import aboard

    files: dict[str, tuple[str, bytes]] = {}
    limit = _limits()["max_bytes"]
    for path in sorted(Path(folder).iterdir()):
        if not path.is_file() or path.suffix.lower() != ".csv":
            continue
        kind = aboard.kind_of(path.name)
        if kind is None:
            raise InputError(path.name, N_("This file is not one of the opening position's files."))
        if kind in files:
            raise InputError(path.name, N_("The folder has two files of this kind."))
        if path.stat().st_size > limit:  # before reading it
            raise InputError(
                path.name,
                N_("The file is larger than the limit; split it or ask the administrator."),
            )
        files[kind] = (path.name, path.read_bytes())
    return files


def _summary(preview: Any) -> dict[str, Any]:
    return {
        "state": preview.state,
        "cut_over": preview.cut_over.isoformat() if preview.cut_over else None,
        "files": {
            f.kind: {"name": f.name, "rows": f.row_count, "sha256": f.sha256} for f in preview.files
        },
        "totals_to_confirm": {k: str(v) for k, v in preview.totals.to_confirm().items()},
        "late_charges_brought": str(preview.totals.late_charges),
        "confirm_with": ",".join(f"{k}={v}" for k, v in preview.totals.to_confirm().items()),
    }


@aboard_group.command("check")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@with_appcontext
def aboard_check(folder: str, district: str) -> None:
    """Check the files in FOLDER and print the totals to confirm; book nothing (exit 2 with
    every bad row named)."""
    from tid.clock import today
    from tid.db import get_session
    from tid.services import aboard

    district_id = district_id_of(district)
    session = get_session()
    try:
        preview = aboard.check_position(
            session=session,
            district_id=district_id,
            files=_files(folder),
            today=today(current_app.config),
            **_limits(),
        )
        if preview.findings:
            raise FindingsError(list(preview.findings))
        if preview.state == aboard.REFUSED:
            raise InputError("district", preview.refusal)
    except InputError as exc:
        session.rollback()
        fail(exc)
    session.rollback()
    click.echo(json.dumps(_summary(preview), indent=2, ensure_ascii=False))


@aboard_group.command("load")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option(
    "--confirm-totals",
    "confirm",
    required=True,
    help='The totals as checked against the trial balance: "receivable:2024-25=3315.00,'
    'receivable:2025-26=4030.00,credits=25.00,bank=12500.00" (what check prints).',
)
@with_appcontext
def aboard_load(folder: str, district: str, confirm: str) -> None:
    """Book the opening position in FOLDER, all at once, once its totals are confirmed."""
    from tid.clock import today
    from tid.db import get_session
    from tid.services import aboard
    from tid.services.audit_trail import audit

    district_id = district_id_of(district)
    session = get_session()
    try:
        booked = aboard.book_position(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            files=_files(folder),
            confirmed=aboard.parse_confirmation(confirm),
            today=today(current_app.config),
            **_limits(),
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    click.echo(
        json.dumps(
            {
                "booked": booked.booked,
                "cut_over": booked.position.cut_over.isoformat(),
                "bills": booked.bills,
                "entries": booked.entries,
                "totals": json.loads(booked.position.totals),
            },
            indent=2,
        )
    )


@aboard_group.command("reverse")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--reason", "reason", required=True, help="What was wrong, for the record.")
@with_appcontext
def aboard_reverse(district: str, reason: str) -> None:
    """Reverse the district's opening position as one (its opening entries reversed, its
    bills superseded, its liens cancelled), so that corrected files can be loaded; refused
    (exit 2) naming what must be undone first."""
    from tid.clock import today
    from tid.db import get_session
    from tid.services import aboard
    from tid.services.audit_trail import audit

    district_id = district_id_of(district)
    session = get_session()
    position = aboard.position_of(session=session, district_id=district_id)
    try:
        if position is None or position.id is None:
            raise InputError("district", N_("This district has no opening position to reverse."))
        done = aboard.reverse_position(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            position_id=position.id,
            reason=reason,
            today=today(current_app.config),
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    click.echo(
        json.dumps(
            {
                "reversed": True,
                "cut_over": done.position.cut_over.isoformat(),
                "entries_reversed": done.entries,
                "bills_superseded": done.bills,
                "liens_cancelled": done.liens,
            },
            indent=2,
        )
    )
