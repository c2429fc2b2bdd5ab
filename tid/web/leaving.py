"""A district's whole record as one ZIP (docs/leaving.md): its association or an
administrator downloads it from the dashboard. A district of up to
:data:`~tid.services.district_record.export.IN_REQUEST_ROWS` bills, journal lines and roll
lines is written in the request (the demo's Condado district: under a second); a larger one by
a background job, its progress on the dashboard, its ZIP kept for a day."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, flash, redirect, send_file, url_for
from flask_babel import gettext as _

from tid.config import archive_dir
from tid.db import get_session
from tid.models import Role
from tid.services.district_record import export, tables
from tid.web import jobs
from tid.web.access import deny_unless, may_write_district, me, require, visible_district

bp = Blueprint("leaving", __name__, url_prefix="/account")


def _writer(district_id: int) -> None:
    """The district's association, or an administrator (403 for anyone else)."""
    deny_unless(may_write_district(visible_district(district_id)))


@bp.route("/<int:district_id>/record.zip", methods=["POST"])
@require(Role.ADMIN, Role.ASSOCIATION)
def record_zip(district_id: int) -> Any:
    """The district's record: the association's own, or any district's for an administrator."""
    from tid.jobs import tasks

    _writer(district_id)
    session = get_session()
    if export.rows_to_export(session=session, district_id=district_id) > export.IN_REQUEST_ROWS:
        job = jobs.start(
            tasks.DISTRICT_EXPORT,
            params={"district_id": district_id},
            district_id=district_id,
            target=f"record:{district_id}",
            total=len(tables.TABLES),
        )
        return redirect(url_for("account.dashboard", district_id=district_id, job=job.id))
    buffer = io.BytesIO()
    try:
        done = export.export_district(
            session=session,
            district_id=district_id,
            folder=archive_dir(current_app.config),
            out=buffer,
        )
    except export.ExportError:
        session.rollback()
        flash(_(export.ARCHIVE_CHANGED), "error")
        return redirect(url_for("account.dashboard", district_id=district_id))
    export.record_export(session=session, actor=me().actor, district_id=district_id, done=done)
    session.commit()
    buffer.seek(0)
    return send_file(
        buffer,
        mimetype="application/zip",
        as_attachment=True,
        download_name=f"tid-district-{district_id}-record.zip",
    )


@bp.route("/<int:district_id>/record/<int:job_id>.zip")
@require(Role.ADMIN, Role.ASSOCIATION)
def record_download(district_id: int, job_id: int) -> Any:
    """The ZIP a background job made of the district's record (kept for a day)."""
    _writer(district_id)
    path = export.job_result(
        session=get_session(),
        instance=Path(current_app.instance_path),
        district_id=district_id,
        job_id=job_id,
    )
    if path is None:
        abort(404)
    return send_file(
        path,
        mimetype="application/zip",
        as_attachment=True,
        download_name=f"tid-district-{district_id}-record.zip",
    )
