"""A district's whole record as one ZIP (docs/leaving.md): its association or an
administrator downloads it from the dashboard. At a district's usual size it is written in
the request (the demo's Condado district: under a second); ``tid export district`` writes it
on the server for any size."""

from __future__ import annotations

import io
from typing import Any

from flask import current_app, flash, redirect, send_file, url_for
from flask_babel import gettext as _

from tid.config import archive_dir
from tid.db import get_session
from tid.models import Role
from tid.services.district_record import export
from tid.web.access import deny_unless, may_write_district, me, require, visible_district
from tid.web.account.blueprint import bp


@bp.route("/<int:district_id>/record.zip", methods=["POST"])
@require(Role.ADMIN, Role.ASSOCIATION)
def record_zip(district_id: int) -> Any:
    """The district's record: the association's own, or any district's for an administrator."""
    district = visible_district(district_id)
    deny_unless(may_write_district(district))
    session = get_session()
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
        flash(
            _(
                "The record cannot be exported: a document of the archive no longer matches "
                "its SHA-256. An administrator checks the archive (tid archive verify)."
            ),
            "error",
        )
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
