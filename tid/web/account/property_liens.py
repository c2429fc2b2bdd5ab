"""A property's liens: ranked as 21 LPRA § 6653(8) ranks them (and, given a sale price, paid
rank by rank), a lien recorded, the owner's credit applied, and the lien certificate."""

from __future__ import annotations

import secrets
from decimal import Decimal
from typing import Any

from flask import redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.documents import account as account_documents
from tid.i18n import money, say
from tid.rules.errors import N_, InputError
from tid.rules.vocab import LIEN_KINDS, recorded_kinds
from tid.services.account import account_pages, payments
from tid.services.liens import impost_lien as liens
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account import closing_pages
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import (
    date_field,
    district_property,
    form_token,
    money_field,
    saved_or_said,
    writer,
)
from tid.web.account.kept import kept_content, mark
from tid.web.forms import Form
from tid.web.util import today

_LIEN_FIELDS = ("kind", "holder", "constituted_on", "amount", "reference")


def _recorded(property_id: int, values: dict[str, str]) -> Form:
    """The lien's form read field by field, every error at once, then recorded or refused."""
    form = Form()
    amount = form.read(lambda: money_field(values, "amount"))
    constituted_on = form.read(lambda: date_field(values, "constituted_on"))
    if amount is None or constituted_on is None:
        form.add(
            liens.lien_problems(
                kind=values["kind"],
                holder=values["holder"],
                constituted_on=constituted_on,
                amount=amount,
                today=today(),
            )
        )
        return form
    form.write(
        lambda: liens.add_lien(
            session=get_session(),
            actor=me().actor,
            property_id=property_id,
            kind=values["kind"],
            holder=values["holder"],
            constituted_on=constituted_on,
            amount=amount,
            today=today(),
            reference=values["reference"],
        )
    )
    return form


def _sale_price(sale_text: str, errors: dict[str, str]) -> Decimal | None:
    """``?sale_price=``: the price to distribute, or None (its error kept in ``errors``)."""
    if not sale_text:
        return None
    try:
        sale = money_field({"sale_price": sale_text}, "sale_price")
        if sale < 0:
            raise InputError("sale_price", N_("The sale price cannot be negative."))
    except InputError as exc:
        errors["sale_price"] = say(exc.message)
        return None
    return sale


@bp.route("/<int:district_id>/properties/<int:property_id>/liens", methods=["GET", "POST"])
@require(*READERS)
def property_liens(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    prop = district_property(district, property_id)
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in _LIEN_FIELDS}
    if request.method == "POST":
        writer(district)
        form = _recorded(property_id, values)
        done = form.saved(
            _("Lien recorded."),
            url_for("account.property_liens", district_id=district_id, property_id=property_id),
        )
        if done:
            return done
        errors = form.errors
    sale_text = request.args.get("sale_price", "")
    sale = _sale_price(sale_text, errors)
    db = get_session()
    may_write = may_write_district(district)

    def make() -> Markup:
        found = account_pages.property_liens(
            session=db, district_id=district_id, prop=prop, today=today(), sale_proceeds=sale
        )
        return Markup(
            render_template(
                "account/_liens_body.html",
                **account_documents.liens_context(db, district, found.view, today()),
                paid=found.paid,
                sale_text=sale_text,
                errors=errors,
                credit=found.credit,
                cancelled=liens.recorded_liens(session=db, property_id=property_id, cancelled=True),
                token=mark("token"),
                may_write=may_write,
            )
        )

    token = {"token": secrets.token_urlsafe(16)}
    body = kept_content(district_id=district_id, key=(property_id,), make=make, fresh=token)
    return render_template(
        "account/liens.html",
        district=district,
        prop=prop,
        body=body,
        values=values,
        errors=errors,
        kinds=[(k, str(_(LIEN_KINDS[k].label))) for k in recorded_kinds()],
        may_write=may_write,
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/properties/<int:property_id>/apply-credit", methods=["POST"])
@require(*WRITERS)
def apply_credit(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    prop = district_property(district, property_id)
    form = Form()
    token = form.read(lambda: form_token({"token": request.form.get("token", "")}))
    applied = None
    if token is not None:
        applied = form.write(
            lambda: payments.apply_credit(
                session=get_session(),
                actor=me().actor,
                district_id=district_id,
                property_id=prop.id or 0,
                on=today(),
                today=today(),
                key=f"credit:{district_id}:form:{token}",
            )
        )
    target = url_for("account.property_liens", district_id=district_id, property_id=property_id)
    amount = money(applied.amount) if applied is not None else ""
    return saved_or_said(
        form, _("%(amount)s of the owner's credit applied.", amount=amount), target
    )


@bp.route(
    "/<int:district_id>/properties/<int:property_id>/lien-certificate.pdf", methods=["GET", "POST"]
)
@require(*READERS)
def lien_certificate(district_id: int, property_id: int) -> Any:
    """POST: the association issues a certificate (recorded, archived, verifiable) and goes
    to it; GET: the documents issued about the property, the certificates among them."""
    district = visible_district(district_id)
    district_property(district, property_id)
    target = url_for("account.property_payoff", district_id=district_id, property_id=property_id)
    if request.method == "GET":
        return redirect(target)
    writer(district)
    return closing_pages.issue_certificate(district, property_id)
