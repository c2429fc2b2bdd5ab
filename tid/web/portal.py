"""The owners' portal (21 LPRA § 6653(5)): public, no account. The notice number and the
access code printed on the mailed notice open that owner's notices of the property.

After a successful look-up the ids of the notices it opened are kept in the (signed)
session and every page and download checks them; URLs carry opaque ids, so changing a number
in a URL reaches nothing. A wrong code and an unknown number get the same page, status and
text; failed look-ups are limited per client address and per notice number in the database.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _

from tid.db import get_session
from tid.rules.errors import N_
from tid.services import notices as notice_service
from tid.services import portal
from tid.web import nav
from tid.web.access import public

bp = Blueprint("portal", __name__, url_prefix="/portal")
nav.add(
    "portal.index",
    N_("Owner's portal"),
    N_("Owners see their notices with the number and code printed on them."),
    None,
)

SESSION_KEY = "portal_notices"
MAX_REMEMBERED = 50


def code_secret() -> str:
    """The key of the access codes' HMAC: ``PORTAL_CODE_SECRET`` if set, else the app's."""
    return str(current_app.config.get("PORTAL_CODE_SECRET") or current_app.config["SECRET_KEY"])


def _authorized() -> set[int]:
    value = session.get(SESSION_KEY, [])
    return {int(v) for v in value if isinstance(v, int)} if isinstance(value, list) else set()


def _limits() -> tuple[int, Any]:
    from datetime import timedelta

    failures = int(current_app.config.get("PORTAL_MAX_FAILURES", portal.MAX_FAILURES))
    minutes = int(current_app.config.get("PORTAL_WINDOW_MINUTES", 15))
    return failures, timedelta(minutes=minutes)


@bp.route("", methods=["GET", "POST"])
@public
def index() -> Any:
    db = get_session()
    values = {"number": request.values.get("n", request.form.get("number", "")).strip()[:40]}
    if request.method == "GET":
        return render_template("portal/index.html", values=values, error=None)
    number = request.form.get("number", "")[:40]
    code = request.form.get("code", "")[:40]
    values["number"] = number.strip()
    client = (request.remote_addr or "unknown")[:64]
    max_failures, window = _limits()
    if portal.is_limited(
        db, client=client, notice_number=number, max_failures=max_failures, window=window
    ):
        message = _("Too many attempts. Wait 15 minutes and try again.")
        return render_template("portal/index.html", values=values, error=message), 429
    notice = portal.look_up(db, number=number, code=code, secret=code_secret())
    if notice is None:
        portal.record_failure(db, client=client, notice_number=number)
        db.commit()
        message = _("We could not find a notice with this number and access code.")
        return render_template("portal/index.html", values=values, error=message), 422
    opened = [n.id for n in portal.notices_opened_by(db, notice) if n.id is not None]
    remembered = [i for i in session.get(SESSION_KEY, []) if isinstance(i, int)]
    session[SESSION_KEY] = list(dict.fromkeys([*opened, *remembered]))[:MAX_REMEMBERED]
    return redirect(url_for("portal.notices"))


@bp.route("/notices")
@public
def notices() -> Any:
    ids = _authorized()
    if not ids:
        return redirect(url_for("portal.index"))
    view = portal.portal_view(get_session(), ids)
    return render_template("portal/notices.html", items=view)


@bp.route("/notices/<public_id>.pdf")
@public
def download(public_id: str) -> Any:
    db = get_session()
    notice = portal.notice_by_public_id(db, public_id)
    # Unknown and not yours look the same.
    if notice is None or notice.id not in _authorized() or notice.mailed_on is None:
        abort(404)
    data = notice_service.notice_pdf_bytes(db, notice)
    return Response(
        data,
        mimetype="application/pdf",
        headers={
            "Content-Disposition": f'attachment; filename="aviso-{notice.number}.pdf"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        },
    )


@bp.route("/leave", methods=["POST"])
@public
def leave() -> Any:
    session.pop(SESSION_KEY, None)
    return redirect(url_for("portal.index"))
