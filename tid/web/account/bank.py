"""The bank's reported balances, recorded and checked against the journal's."""

from __future__ import annotations

from typing import Any

from flask import render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.services.account import audit_statement
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, bp
from tid.web.account.fields import date_field, money_field, writer
from tid.web.forms import Form
from tid.web.util import today


@bp.route("/<int:district_id>/bank", methods=["GET", "POST"])
@require(*READERS)
def bank(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in ("as_of", "balance", "note")}
    if request.method == "POST":
        writer(district)
        form = Form()
        balance = form.read(lambda: money_field(values, "balance"))
        as_of = form.read(lambda: date_field(values, "as_of"))
        if balance is not None and as_of is not None:
            form.write(
                lambda: audit_statement.record_bank_balance(
                    session=db,
                    actor=me().actor,
                    district_id=district_id,
                    as_of=as_of,
                    balance=balance,
                    today=today(),
                    note=values["note"],
                )
            )
        done = form.saved(
            _("Bank balance recorded."), url_for("account.bank", district_id=district_id)
        )
        if done:
            return done
        errors = form.errors
    return render_template(
        "account/bank.html",
        district=district,
        checks=audit_statement.bank_checks(session=db, district_id=district_id),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)
