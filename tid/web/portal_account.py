"""``/portal/account``: the owner's account of a property whose notice their codes opened
(the portal's session says which): every bill across the years, every payment, credit and
late charge with the balance, what a payoff quote good through today + 30 days says, and the
payoff quote and the lien certificate to download — issued and archived like the
association's, each with its verification code."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request, session
from flask_babel import gettext as _

from tid.app_reader import reader
from tid.db import get_session
from tid.documents import closing
from tid.documents.base import Document
from tid.i18n import language
from tid.models import Notice
from tid.services import ledger
from tid.services.audit_trail import audit
from tid.services.limits import request_rate
from tid.services.owners import owner_account, portal
from tid.web import calc_guard
from tid.web.access import public
from tid.web.portal import SESSION_KEY
from tid.web.util import send, today

bp = Blueprint("owner_account", __name__, url_prefix="/portal/account")

PORTAL = audit.Actor("owner's portal")
DOCUMENTS_PER_MINUTE = 6  # documents one client issues through the portal a minute


def opened(public_id: str) -> Notice:
    """The notice of the URL if the owner's codes opened it; 404 otherwise (unknown and not
    yours look the same)."""
    token = session.get(SESSION_KEY, "")
    minutes = int(current_app.config.get("PORTAL_SESSION_MINUTES") or 20)
    ids = portal.session_notices(
        session=get_session(),
        token=token if isinstance(token, str) else "",
        idle=timedelta(minutes=minutes),
    )
    notice = owner_account.opened_notice(session=get_session(), notice_ids=ids, public_id=public_id)
    if notice is None:
        abort(404)
    return notice


@bp.route("/<public_id>")
@public
def account(public_id: str) -> Any:
    notice = opened(public_id)
    found = owner_account.account(
        session=get_session(), property_id=notice.property_id, today=today()
    )
    return render_template(
        "portal/account.html",
        notice=notice,
        account=found,
        today=today(),
        entry_kind_label=ledger.entry_kind_label,
    )


@bp.route("/<public_id>/<which>.pdf", methods=["POST"])
@public
def document(public_id: str, which: str) -> Any:
    """A payoff quote good through today + 30 days, or the lien certificate: issued by the
    association through its portal (recorded, archived, verifiable) and downloaded."""
    notice = opened(public_id)
    makers: dict[str, Callable[..., Document]] = {
        "payoff": closing.payoff_pdf,
        "lien-certificate": closing.lien_certificate,
    }
    make = makers.get(which)
    if make is None:
        abort(404)
    client = (request.remote_addr or "unknown")[:64]
    limit = int(current_app.config.get("PORTAL_DOCUMENTS_PER_MINUTE", DOCUMENTS_PER_MINUTE))
    decision = request_rate.hit(
        session=get_session(), key=f"portal-documents:{client}", limit=limit
    )
    get_session().commit()
    if not decision.allowed:
        abort(429)
    with calc_guard.bounded(counted=False):
        made = make(
            get_session(),
            district=notice.district_id,
            property=notice.property_id,
            reader=reader(language()),
            issued_by=_("Owner's portal"),
            actor=PORTAL,
        )
        get_session().commit()  # before the place of heavy work is given back
    return send(made)
