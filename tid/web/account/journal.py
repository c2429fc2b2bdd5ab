"""The journal of a fiscal year, a page at a time, and the reversal of one of its entries."""

from __future__ import annotations

from typing import Any

from flask import abort, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import rate
from tid.services import ledger
from tid.services.account import account_pages
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import (
    cap_text,
    date_field,
    fiscal_year,
    page_number,
    within_cap,
    writer,
)
from tid.web.account.kept import kept_content
from tid.web.forms import Form, refused_at
from tid.web.util import today


@bp.route("/<int:district_id>/journal")
@require(*READERS)
def journal(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = fiscal_year(district_id)

    def make() -> Markup:
        page = ledger.journal_page(
            session=get_session(),
            district_id=district_id,
            since=fy.start,
            until=fy.end,
            page=page_number(),
        )
        return Markup(
            render_template(
                "account/_journal_body.html",
                district=district,
                fy=fy,
                rows=page.rows,
                result=page,
                may_write=may_write_district(district),
            )
        )

    body = kept_content(district_id=district_id, key=(fy.label, page_number()), make=make)
    return render_template("account/journal.html", district=district, fy=fy, body=body)


def _back(district_id: int) -> str:
    """Where the form came from, on this district's account pages (never another site)."""
    back = request.form.get("back", "")
    if not back.startswith(f"/account/{district_id}") or "//" in back or "\\" in back:
        back = url_for("account.journal", district_id=district_id)
    return back


@bp.route("/<int:district_id>/entries/<int:entry_id>/reverse", methods=["POST"])
@require(*WRITERS)
def reverse(district_id: int, entry_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    db = get_session()
    if not account_pages.is_district_entry(session=db, district_id=district_id, entry_id=entry_id):
        abort(404)
    form = Form()
    on = form.read(
        lambda: date_field({"date": request.form.get("date") or today().isoformat()}, "date")
    )
    if on is not None:
        _done, refused = within_cap(
            form,
            lambda: ledger.reverse_entry(
                session=db,
                actor=me().actor,
                entry_id=entry_id,
                on=on,
                reason=request.form.get("reason", ""),
                today=today(),
            ),
        )
        if refused is not None:
            said = _(refused.message, rate=rate(refused.figures.rate))
            form.errors[refused.field] = f"{said} {cap_text(refused.figures)}"
    done = form.saved(_("Entry reversed."), _back(district_id))
    if done:
        return done
    said = " ".join(str(error) for error in form.errors.values())
    return refused_at(f"r-{entry_id}", said, _back(district_id))
