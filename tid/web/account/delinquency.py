"""Delinquency: the bills owed past their due date with their surcharge and interest (a page
at a time, as PDF and CSV), the late-payment terms they are figured with, and the search of
a property by cadastral number."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import language, localized
from tid.models import LateChargeTerms
from tid.render import formats
from tid.services.account import account_pages, account_reads
from tid.services.liens import impost_lien as liens
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, bp
from tid.web.account.downloads import (
    button_mark,
    document_buttons,
    download,
    in_request_bounds,
    large,
)
from tid.web.account.fields import page_number, writer
from tid.web.account.kept import kept_content
from tid.web.account.prepared import Delinquency, prepare_later, wait_for
from tid.web.forms import Form
from tid.web.journal_labels import bill_names_of
from tid.web.util import today


def _terms_values(terms: LateChargeTerms | None) -> dict[str, str]:
    """The late-payment terms' form: what was sent, else the terms recorded."""
    return {
        name: request.form.get(name, getattr(terms, name) if terms else "")
        for name in ("surcharge_rate", "annual_interest_rate", "ordinance_reference")
    }


def _cells(rows: Any) -> list[tuple[Any, str, str, str, str, str]]:
    """Each delinquent bill's row with its cells written once in Python (its name, due day
    and three amounts): a page of 50 has 400 cells, and a template's filter on each costs
    more than the rest of its row."""
    names = bill_names_of(r.bill for r in rows)
    lang = language()
    return [
        (
            r,
            localized(names.get(r.bill.id, "")),
            formats.day(r.bill.due_date, lang),
            formats.money(r.outstanding, lang),
            formats.money(r.charges.surcharge, lang),
            formats.money(r.charges.interest, lang),
        )
        for r in rows
    ]


@bp.route("/<int:district_id>/delinquency", methods=["GET", "POST"])
@require(*READERS)
def delinquency(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values: dict[str, str] = {}  # the terms' form as sent (a POST refused)
    wanted = request.args.get("cadastral", "").strip()[:30]
    if wanted:
        found = account_reads.property_by_cadastral(
            session=db, district_id=district_id, cadastral=wanted
        )
        if found is not None:
            return redirect(
                url_for("account.property_liens", district_id=district_id, property_id=found.id)
            )
        errors["cadastral"] = _("There is no property with this cadastral number here.")
    if request.method == "POST":
        writer(district)
        values = _terms_values(liens.late_terms(session=db, district_id=district_id))
        form = Form()
        form.write(
            lambda: liens.set_late_terms(
                session=db, actor=me().actor, district_id=district_id, **values
            )
        )
        done = form.saved(
            _("Late-payment terms saved."), url_for("account.delinquency", district_id=district_id)
        )
        if done:
            return done
        errors.update(form.errors)

    def make() -> Markup:
        result = liens.delinquency_page(
            session=db, district_id=district_id, today=today(), page=page_number()
        )
        # the terms the page's charges were figured with, unless a form sent others
        shown = values if request.method == "POST" else _terms_values(result.terms)
        rows = account_pages.delinquency_rows(result.total)
        documents_large = large(
            district_id, {"delinquency": rows["delinquency.pdf"], "delinquency.csv": result.total}
        )
        if not documents_large["delinquency"]:  # its PDF, laid out before the link is followed
            prepare_later(Delinquency(district_id, language()))
        return Markup(
            render_template(
                "account/_delinquency_body.html",
                district=district,
                cells=_cells(result.rows),
                result=result,
                large=documents_large,
                button_mark=button_mark,
                pdf_in_detail=result.total <= liens.DETAIL_ROWS,
                values=shown,
                errors=errors,
                may_write=may_write_district(district),
            )
        )

    key = (page_number(), in_request_bounds())
    body = kept_content(
        district_id=district_id, key=key, make=make, fresh=document_buttons(district)
    )
    return render_template(
        "account/delinquency.html",
        district=district,
        body=body,
        errors=errors,
        wanted=wanted,
        today=today(),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/delinquency.csv")
@require(*READERS)
def delinquency_csv(district_id: int) -> Any:
    return download(visible_district(district_id), "delinquency.csv")


@bp.route("/<int:district_id>/delinquency.pdf")
@require(*READERS)
def delinquency_pdf(district_id: int) -> Any:
    district = visible_district(district_id)
    wait_for(Delinquency(district_id, language()))  # being prepared: not twice
    return download(district, "delinquency.pdf")
