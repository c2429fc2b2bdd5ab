"""One recorded lien of a property: corrected with a reason, or marked cancelled (its day and
reason), with its history."""

from __future__ import annotations

from typing import Any

from flask import abort, render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.rules.errors import InputError
from tid.rules.vocab import LIEN_KINDS, recorded_kinds
from tid.services.liens import lien_register
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, bp
from tid.web.account.fields import date_field, district_property, money_field, writer
from tid.web.forms import Form
from tid.web.util import today

_CORRECT = ("kind", "holder", "constituted_on", "amount", "reference", "reason")
_CANCEL = ("cancelled_on", "cancel_reason")


def _corrected(property_id: int, lien_id: int, values: dict[str, str]) -> Form:
    form = Form()
    amount = form.read(lambda: money_field(values, "amount"))
    constituted_on = form.read(lambda: date_field(values, "constituted_on"))
    if amount is None or constituted_on is None:
        return form
    correction = lien_register.Correction(
        values["kind"], values["holder"], constituted_on, amount, values["reference"]
    )
    form.write(
        lambda: lien_register.correct_lien(
            session=get_session(),
            actor=me().actor,
            property_id=property_id,
            lien_id=lien_id,
            correction=correction,
            reason=values["reason"],
            today=today(),
        )
    )
    return form


def _cancelled(property_id: int, lien_id: int, values: dict[str, str]) -> Form:
    form = Form({"reason": "cancel_reason"})
    cancelled_on = form.read(lambda: date_field(values, "cancelled_on"))
    if cancelled_on is None:
        return form
    form.write(
        lambda: lien_register.cancel_lien(
            session=get_session(),
            actor=me().actor,
            property_id=property_id,
            lien_id=lien_id,
            cancelled_on=cancelled_on,
            reason=values["cancel_reason"],
            today=today(),
        )
    )
    return form


@bp.route(
    "/<int:district_id>/properties/<int:property_id>/liens/<int:lien_id>",
    methods=["GET", "POST"],
)
@require(*READERS)
def lien_record(district_id: int, property_id: int, lien_id: int) -> Any:
    district = visible_district(district_id)
    prop = district_property(district, property_id)
    db = get_session()
    try:
        lien = lien_register.lien_of(session=db, property_id=property_id, lien_id=lien_id)
    except InputError:
        abort(404)
    errors: dict[str, str] = {}
    action = request.form.get("action", "")
    values = {n: request.form.get(n, "") for n in (*_CORRECT, *_CANCEL)}
    if request.method == "POST" and action in ("correct", "cancel"):
        writer(district)
        form = (_corrected if action == "correct" else _cancelled)(property_id, lien_id, values)
        said = _("Lien corrected.") if action == "correct" else _("Lien marked cancelled.")
        target = url_for(
            "account.lien_record",
            district_id=district_id,
            property_id=property_id,
            lien_id=lien_id,
        )
        done = form.saved(said, target)
        if done:
            return done
        errors = form.errors
    else:
        action = ""
        values.update(
            kind=lien.kind,
            holder=lien.holder,
            constituted_on=lien.constituted_on.isoformat(),
            amount=str(lien.amount),
            reference=lien.reference,
            cancelled_on=today().isoformat(),
        )
    return render_template(
        "account/lien.html",
        district=district,
        prop=prop,
        lien=lien,
        action=action,
        values=values,
        errors=errors,
        kinds=[(k, str(_(LIEN_KINDS[k].label))) for k in recorded_kinds()],
        rows=lien_register.history(session=db, lien_id=lien_id),
        may_write=may_write_district(district),
    ), (422 if errors else 200)
