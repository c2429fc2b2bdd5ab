"""The home page and the audit trail of a record."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from flask_login import current_user

from tid.db import get_session
from tid.services.audit_trail import audit
from tid.web import paging
from tid.web.access import public, require
from tid.web.util import svg_attributes

bp = Blueprint("main", __name__)
# The pager of the templates that still include roll/_pager.html (the account pages).
bp.add_app_template_global(paging.pager, "pager_of")
bp.add_app_template_filter(svg_attributes, "svg_attrs")


@bp.route("/")
@public
def home() -> Any:
    return render_template("main/home.html", user=current_user)


@bp.route("/audit/<entity_type>/<entity_id>")
@require("admin", "auditor")
def audit_trail(entity_type: str, entity_id: str) -> Any:
    shown = audit.named_trail(session=get_session(), entity_type=entity_type, entity_id=entity_id)
    return render_template(
        "main/audit.html",
        entity_type=entity_type,
        entity_id=entity_id,
        rows=shown.rows,
        names=shown.names,
        record=shown.record,
    )
