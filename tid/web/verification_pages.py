"""``/verificar``: anyone (no login) checks a document issued about a property — a payoff
quote, a lien certificate, a release — by the code printed on it (or its QR code): whether it
is authentic, who issued it and when, what it said (the cadastral number and the amounts,
never the owner), whether it is still within its day and whether anything was paid or booked
since; and a copy of its PDF against the one archived. Limited like the owners' portal: the
requests of each client a minute, and its wrong codes (tid/services/public/verification.py)."""

from __future__ import annotations

import hashlib
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.services import places
from tid.services.closing import issued
from tid.services.limits import throttle
from tid.services.public import verification
from tid.services.roll_check import billing_statement as roll_statements
from tid.web.access import public
from tid.web.util import today

bp = Blueprint("verification", __name__, url_prefix="/verificar")


def _client() -> str:
    return (request.remote_addr or "unknown")[:64]


def _too_many(retry_after: int) -> Any:
    message = _("Too many requests. Wait a moment and try again.")
    page = render_template("verification/index.html", error=message, code="")
    return page, 429, {"Retry-After": str(max(1, retry_after))}


def _counted() -> Any | None:
    """This request counted against the client's share a minute: None, or the refusal."""
    limit = int(current_app.config.get("VERIFY_RATE_LIMIT", verification.REQUESTS_PER_MINUTE))
    decision = verification.allowed(session=get_session(), client=_client(), limit=limit)
    get_session().commit()
    return None if decision.allowed else _too_many(decision.retry_after)


@bp.route("", methods=["GET", "POST"])
@public
def index() -> Any:
    if request.method == "POST":
        code = issued.read_code(request.form.get("code", "")[:40])
        if code:
            return redirect(url_for("verification.document", code=issued.shown_code(code)))
        return render_template(
            "verification/index.html", error=_("Write the verification code."), code=""
        ), 422
    return render_template("verification/index.html", error=None, code="")


@bp.route("/<code>", methods=["GET", "POST"])
@public
def document(code: str) -> Any:
    refused = _counted()
    if refused is not None:
        return refused
    db = get_session()
    code = code[:40]
    reservation = verification.reserve(
        session=db,
        client=_client(),
        max_failures=int(current_app.config.get("VERIFY_MAX_FAILURES", verification.MAX_FAILURES)),
    )
    db.commit()
    if isinstance(reservation, throttle.Refused):
        return _too_many(reservation.seconds())
    found = verification.verify(session=db, code=code, today=today())
    # Else a verified billing statement (tid/services/roll_check) may hold the code.
    signed = roll_statements.by_code(session=db, code=code) if found is None else None
    if found is None and signed is None:
        message = _("No document was issued under this code. Check the code as printed.")
        page = render_template("verification/index.html", error=message, code=code)
        return page, 404
    verification.found(session=db, reservation=reservation)
    db.commit()
    if found is None:
        return _statement(signed, code)
    upload = None
    status = 200
    if request.method == "POST":
        upload, status = _checked_upload(code)
    matches = None if upload is None else upload.get("matches")
    return render_template(
        "verification/document.html",
        found=found,
        verdict=verification.verdict(found, matches=matches),
        code=issued.shown_code(issued.read_code(code)),
        upload=upload,
        today=today(),
    ), status


def _statement(signed: Any, code: str) -> Any:
    """The page of a verified billing statement found by its code: what it said of the year
    (never a property's row), and a copy of its PDF checked against the archived one."""
    upload, status = None, 200
    if request.method == "POST":
        upload, status = _checked_upload(code, signed.sha256)
    return render_template(
        "verification/roll_statement.html",
        statement=signed,
        district=places.district(session=get_session(), district_id=signed.district_id),
        code=issued.shown_code(issued.read_code(code)),
        upload=upload,
    ), status


def _checked_upload(code: str, sha256: str | None = None) -> tuple[dict[str, Any], int]:
    """The uploaded copy compared with the archived PDF (or what is wrong with the upload)."""
    file = request.files.get("pdf")
    if file is None or not file.filename:
        return {"error": _("Choose the PDF file to check.")}, 422
    content = file.stream.read(verification.MAX_UPLOAD_BYTES + 1)
    if len(content) > verification.MAX_UPLOAD_BYTES:
        return {"error": _("The file is too large: a document issued here is far smaller.")}, 422
    if sha256 is not None:  # a verified billing statement's archived PDF
        return {"name": file.filename[:120], "matches": _same(content, sha256)}, 200
    same = verification.matches_upload(session=get_session(), code=code, content=content)
    return {"name": file.filename[:120], "matches": bool(same)}, 200


def _same(content: bytes, sha256: str) -> bool:
    return bool(sha256) and hashlib.sha256(content).hexdigest() == sha256
