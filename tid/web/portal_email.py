"""``/portal/email``: the owner's email address for a property's notices (double opt-in).

The owner whose codes opened a notice leaves an address on ``/portal/email/<notice>``; the
confirmation message's link (``/portal/email/confirm/<token>``) confirms it, and the link in
every message (``/portal/email/stop/<token>``, also offered by mail programs in one click)
deletes it, as the portal's button does. The two link pages show no address, no name and no
notice number: whoever holds the link sees only the property's cadastral number."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template, request, url_for
from flask.blueprints import BlueprintSetupState
from flask_babel import gettext as _

from tid import mail
from tid.config import portal_code_secret
from tid.db import get_session
from tid.i18n import language
from tid.services.owners import owner_email
from tid.web.access import public
from tid.web.forms import Form
from tid.web.portal_account import opened

bp = Blueprint("portal_email", __name__, url_prefix="/portal/email")

_PRIVATE = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
}


def _reminder_days() -> int:
    return int(current_app.config.get("OWNER_REMINDER_DAYS") or 10)


@bp.route("/<public_id>", methods=["GET", "POST"])
@public
def settings(public_id: str) -> Any:
    notice = opened(public_id)
    db = get_session()
    values = {"email": request.form.get("email", "")[:300]}
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = Form()
        form.add(owner_email.address_problems(values["email"]))
        if not form.errors:
            form.write(
                lambda: owner_email.ask_confirmation(
                    session=db,
                    notice=notice,
                    address=values["email"],
                    language=language(),
                    links=owner_email.Links(str(current_app.config.get("BASE_URL") or "")),
                    settings=mail.MailSettings.from_config(current_app.config),
                    secret=portal_code_secret(current_app.config),
                )
            )
        said = _(
            "We sent a message to %(address)s: open its link within %(days)s days to confirm "
            "the address.",
            address=values["email"].strip(),
            days=owner_email.CONFIRM_DAYS,
        )
        done = form.saved(said, url_for("portal_email.settings", public_id=public_id))
        if done:
            return done
        errors = form.errors
    return render_template(
        "portal/email.html",
        notice=notice,
        email=owner_email.state(session=db, notice=notice),
        values=values,
        errors=errors,
        days=_reminder_days(),
        confirm_days=owner_email.CONFIRM_DAYS,
        per_day=owner_email.CONFIRMATIONS_PER_DAY,
    ), (422 if errors else 200)


@bp.route("/<public_id>/remove", methods=["POST"])
@public
def remove(public_id: str) -> Any:
    notice = opened(public_id)
    form = Form()
    form.write(lambda: owner_email.remove(session=get_session(), notice=notice))
    return form.flashed(
        _("Your address is deleted: no more messages will be sent to it."),
        url_for("portal_email.settings", public_id=public_id),
    )


def _link_page(which: str, outcome: str, cadastral: str = "", status: int = 200) -> Any:
    page = render_template(
        "portal/email_link.html", which=which, outcome=outcome, cadastral=cadastral
    )
    return page, status, _PRIVATE


@bp.route("/confirm/<token>", methods=["GET", "POST"])
@public
def confirm(token: str) -> Any:
    """The confirmation link: a page with a button (a mail program's preview that follows
    the link confirms nothing), whose press confirms the address."""
    db = get_session()
    if request.method == "GET":
        row = owner_email.pending_by_token(session=db, token=token)
        if row is None:
            return _link_page("confirm", "unknown", status=404)
        return _link_page("confirm", "ask", owner_email.cadastral_of(session=db, row=row))
    done = owner_email.confirm(session=db, token=token)
    db.commit()
    status = {"confirmed": 200, "expired": 410}.get(done.outcome, 404)
    return _link_page("confirm", done.outcome, done.cadastral, status)


@bp.record_once
def _one_click_removal(state: BlueprintSetupState) -> None:
    """A mail program removes the address in one click (RFC 8058): a POST to the link, with
    no form of ours; the link's token is its authority."""
    csrf = state.app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(f"{__name__}.stop")


@bp.route("/stop/<token>", methods=["GET", "POST"])
@public
def stop(token: str) -> Any:
    """The removal link of every message: a page with a button, or one click from the mail
    program; either deletes the address."""
    db = get_session()
    secret = portal_code_secret(current_app.config)
    if request.method == "GET":
        row = owner_email.by_stop_token(session=db, token=token, secret=secret)
        if row is None:
            return _link_page("stop", "unknown", status=404)
        return _link_page("stop", "ask", owner_email.cadastral_of(session=db, row=row))
    removed = owner_email.remove_by_link(session=db, token=token, secret=secret)
    db.commit()
    return _link_page("stop", "removed" if removed else "unknown", status=200 if removed else 404)
