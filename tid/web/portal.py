"""The owners' portal (21 LPRA § 6653(5)): public, no account. The notice number and the
access code printed on the mailed notice open that owner's notices of the property.

After a successful look-up the notices it opened are kept in a server-side portal session
(the cookie holds only its token; it expires, and leaving revokes it) and every page and
download checks them; URLs carry opaque ids, so changing a number
in a URL reaches nothing. A wrong code and an unknown number get the same page, status and
text; failed look-ups are limited per client address and network in the database (never per
notice number: see tid/services/owners/portal.py).
"""

from __future__ import annotations

from datetime import timedelta
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
from flask_babel import ngettext

from tid.config import portal_code_secret
from tid.db import get_session
from tid.rules.errors import N_
from tid.services import notices as notice_service
from tid.services.limits import throttle
from tid.services.owners import portal
from tid.web import calc_guard, nav
from tid.web.access import public
from tid.web.forms import Form

bp = Blueprint("portal", __name__, url_prefix="/portal")
nav.add(
    "portal.index",
    N_("Owner's portal"),
    N_("Owners see their notices with the number and code printed on them."),
    None,
)

SESSION_KEY = "portal_token"


def code_secret() -> str:
    """The key of the access codes' HMAC: ``PORTAL_CODE_SECRET`` if set, else the app's."""
    return portal_code_secret(current_app.config)


def _token() -> str:
    value = session.get(SESSION_KEY, "")
    return value if isinstance(value, str) else ""


def _authorized() -> set[int]:
    minutes = int(current_app.config.get("PORTAL_SESSION_MINUTES") or 20)
    return portal.session_notices(
        session=get_session(), token=_token(), idle=timedelta(minutes=minutes)
    )


def _limits() -> tuple[int, timedelta]:
    failures = int(current_app.config.get("PORTAL_MAX_FAILURES", portal.MAX_FAILURES))
    minutes = int(current_app.config.get("PORTAL_WINDOW_MINUTES", 15))
    return failures, timedelta(minutes=minutes)


def _index_page(
    values: dict[str, str], error: str | None, errors: dict[str, str] | None = None
) -> str:
    """The look-up form, with whom to ask about a lost code."""
    max_failures, window = _limits()
    return render_template(
        "portal/index.html",
        values=values,
        error=error,
        errors=errors or {},
        contacts=portal.contacts(session=get_session()),
        max_failures=max_failures,
        window_minutes=max(1, int(window.total_seconds() // 60)),
        opened=bool(_authorized()),
    )


@bp.route("", methods=["GET", "POST"])
@public
def index() -> Any:
    db = get_session()
    values = {"number": request.values.get("n", request.form.get("number", "")).strip()[:40]}
    if request.method == "GET":
        return _index_page(values, None)
    number = request.form.get("number", "")[:40]
    code = request.form.get("code", "")[:40]
    values["number"] = number.strip()
    # An empty field is said beside it and spends no try: it could match no notice.
    form = Form()
    form.add(portal.look_up_problems(number=number, code=code))
    if form.errors:
        return _index_page(values, None, form.errors), 422
    client = (request.remote_addr or "unknown")[:64]
    max_failures, window = _limits()
    reservation = portal.reserve_look_up(
        session=db, client=client, max_failures=max_failures, window=window
    )
    db.commit()
    if isinstance(reservation, throttle.Refused):
        message = _("Too many attempts. Wait %(minutes)s minutes and try again.") % {
            "minutes": reservation.minutes()
        }
        response = _index_page(values, message)
        return response, 429, {"Retry-After": str(reservation.seconds())}
    notice = portal.look_up(session=db, number=number, code=code, secret=code_secret())
    if notice is None:
        portal.record_failure(session=db, client=client, notice_number=number)
        db.commit()
        message = _("We could not find a notice with this number and access code.")
        left = portal.tries_left(
            session=db, client=client, max_failures=max_failures, window=window
        )
        minutes = max(1, int(window.total_seconds() // 60))
        if left > 0:
            message += " " + ngettext(
                "You have %(num)d more try before you must wait %(minutes)s minutes.",
                "You have %(num)d more tries before you must wait %(minutes)s minutes.",
                left,
                minutes=minutes,
            )
        else:
            message += " " + _(
                "That was the last try for now: wait %(minutes)s minutes before trying again.",
                minutes=minutes,
            )
        return _index_page(values, message), 422
    throttle.release(session=db, reservation=reservation)
    opened = [n.id for n in portal.notices_opened_by(session=db, notice=notice) if n.id is not None]
    session[SESSION_KEY] = portal.open_session(session=db, notice_ids=opened, token=_token())
    db.commit()
    return redirect(url_for("portal.notices"))


@bp.route("/notices")
@public
def notices() -> Any:
    ids = _authorized()
    if not ids:
        return redirect(url_for("portal.index"))
    view = portal.portal_view(session=get_session(), notice_ids=ids)
    return render_template("portal/notices.html", items=view, values={"number": ""})


@bp.route("/notices/<public_id>.pdf")
@public
def download(public_id: str) -> Any:
    db = get_session()
    notice = portal.notice_by_public_id(session=db, public_id=public_id)
    # Unknown and not yours look the same.
    if notice is None or notice.id not in _authorized() or notice.mailed_on is None:
        abort(404)
    # The owner's own notice: not a computation (no rate limit), but a PDF that may be drawn
    # anew, so it takes one of the places of anonymous heavy work and the time budget.
    with calc_guard.bounded(counted=False):
        data = notice_service.notice_pdf_bytes(session=db, notice=notice)
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
    db = get_session()
    portal.close_session(session=db, token=_token())
    db.commit()
    session.pop(SESSION_KEY, None)
    return redirect(url_for("portal.index"))
