"""The yearly statement for audit (its page, its PDF and its parts as CSV, as the journal
stands or stood at a day's end) and the lock of a closed fiscal year."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import language
from tid.rules.errors import InputError
from tid.rules.periods import parse_fiscal_year
from tid.services.account import account_pages, year_locks
from tid.web.access import me, require, visible_district
from tid.web.account import fields
from tid.web.account.blueprint import READERS, bp
from tid.web.account.downloads import (
    button_mark,
    document_buttons,
    download,
    in_request_bounds,
    statement_large,
)
from tid.web.account.kept import kept_content
from tid.web.account.prepared import Statement, prepare_later, wait_for
from tid.web.forms import Form
from tid.web.util import today


@bp.route("/<int:district_id>/statement")
@require(*READERS)
def statement(district_id: int) -> Any:
    district = visible_district(district_id)
    fy, booked_by = fields.fiscal_year(district_id), fields.booked_by()

    def make() -> Markup:
        context = account_pages.statement_page(
            session=get_session(),
            district=district,
            fy=fy,
            booked_by=booked_by,
            today=today(),
            person=me(),
        )
        large = statement_large(district_id, context["aging_count"], context["entries_count"])
        if not large["statement"]:  # its PDF, laid out before the reader follows the link
            prepare_later(Statement(district_id, fy, booked_by, language()))
        return Markup(
            render_template(
                "account/_statement_page_body.html",
                large=large,
                button_mark=button_mark,
                **context,
            )
        )

    key = (fy.label, booked_by, in_request_bounds())
    body = kept_content(
        district_id=district_id, key=key, make=make, fresh=document_buttons(district)
    )
    return render_template(
        "account/statement.html", district=district, fy=fy, booked_by=booked_by, body=body
    )


@bp.route("/<int:district_id>/years/<fiscal_year>/lock", methods=["POST"])
@require("admin")
def year_lock(district_id: int, fiscal_year: str) -> Any:
    """Lock a closed fiscal year once its statement is issued (or lift the lock)."""
    visible_district(district_id)
    try:
        fy = parse_fiscal_year(fiscal_year)
    except InputError:
        abort(404)
    db = get_session()
    target = url_for("account.statement", district_id=district_id, fy=fy.label)
    if request.form.get("unlock") == "1":
        year_locks.unlock_year(session=db, actor=me().actor, district_id=district_id, fy=fy)
        db.commit()
        flash(_("FY %(fy)s is open again.", fy=fy.label), "warning")
        return redirect(target)
    form = Form()
    form.write(
        lambda: year_locks.lock_year(
            session=db, actor=me().actor, district_id=district_id, fy=fy, today=today()
        )
    )
    return fields.saved_or_said(form, _("FY %(fy)s is locked.", fy=fy.label), target)


@bp.route("/<int:district_id>/statement.csv")
@require(*READERS)
def statement_csv(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = fields.fiscal_year(district_id)
    part = request.args.get("part", "statement")
    if part not in ("aging", "journal", "statement"):
        abort(404)
    return download(district, f"{part}.csv", year=fy, booked_by=fields.booked_by())


@bp.route("/<int:district_id>/statement.pdf")
@require(*READERS)
def statement_pdf(district_id: int) -> Any:
    district = visible_district(district_id)
    fy, booked_by = fields.fiscal_year(district_id), fields.booked_by()
    wait_for(Statement(district_id, fy, booked_by, language()))  # being prepared: not twice
    return download(district, "statement.pdf", year=fy, booked_by=booked_by)
