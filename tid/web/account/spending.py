"""Expenditures of a fiscal year (administrative, under the cap, or on an authorized purpose)
and the district's authorized purposes."""

from __future__ import annotations

import contextlib
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import localized, rate
from tid.ids import parse_id
from tid.models import District
from tid.rules.errors import InputError
from tid.rules.periods import FiscalYear, fiscal_year_of
from tid.services.account import account_pages, expenditures
from tid.services.budget import actuals as budget_actuals
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import (
    cap_text,
    date_field,
    fiscal_year,
    form_token,
    keep_token,
    money_field,
    within_cap,
    writer,
)
from tid.web.account.kept import kept_content, kept_figures
from tid.web.forms import Form
from tid.web.util import today

_EXPENDITURE_FIELDS = (
    "date",
    "amount",
    "payee",
    "description",
    "reference",
    "category",
    "token",
    "confirm_repeat",
)


def _expenditures_view(
    district: District,
    values: dict[str, str],
    errors: dict[str, str],
    refusal: str,
    fy: FiscalYear,
) -> Any:
    """The expenditures page of a fiscal year: its form (kept values, errors, the cap's
    refusal) and the year's expenditures."""
    keep_token(values)
    if not values["date"]:
        # A new expenditure is dated today when today is in the year shown, else on the
        # year's last day (it counts in the fiscal year of its date).
        values["date"] = min(today(), fy.end).isoformat()
    year = kept_figures(
        district_id=district.id or 0,
        key=(fy.label,),
        make=lambda: account_pages.expenditures_year(
            session=get_session(), district_id=district.id or 0, fy=fy
        ),
    )
    options = [("admin", _("Administrative (%(rate)s cap)", rate=rate(year.figures.rate)))] + [
        (str(p.id), p.name) for p in year.purposes if p.active
    ]
    return render_template(
        "account/expenditures.html",
        district=district,
        values=values,
        errors=errors,
        cap_text=refusal,
        options=options,
        table=kept_content(
            district_id=district.id or 0,
            key=(fy.label,),
            make=lambda: Markup(
                render_template(
                    "account/_expenditures_table.html",
                    names=year.names,
                    rows=year.rows,
                    entry_numbers=year.entry_numbers,
                )
            ),
        ),
        figures=year.figures,
        may_write=may_write_district(district),
        fy=fy,
        current_fy=fiscal_year_of(today()),
    ), (422 if errors else 200)


def _booked(district_id: int, values: dict[str, str], form: Form) -> tuple[Any, Any, Any]:
    """The form read field by field, every error at once, then booked or refused whole:
    what was booked, the cap's refusal if the cap refused it, and the warning of a line of
    the year's approved budget it takes over."""
    category = values["category"]
    administrative = category == "admin"
    purpose_id = parse_id(category)
    amount = form.read(lambda: money_field(values, "amount"))
    spent_on = form.read(lambda: date_field(values, "date"))
    token = form.read(lambda: form_token(values))
    if form.errors or amount is None or spent_on is None or token is None:
        form.add(
            expenditures.expenditure_problems(
                session=get_session(),
                district_id=district_id,
                spent_on=spent_on,
                amount=amount,
                payee=values["payee"],
                today=today(),
                administrative=administrative,
                purpose_id=purpose_id,
            )
        )
        return None, None, None
    warning = budget_actuals.line_warning(
        session=get_session(),
        district_id=district_id,
        spent_on=spent_on,
        amount=amount,
        administrative=administrative,
        purpose_id=purpose_id,
    )
    return *within_cap(
        form,
        lambda: expenditures.record_expenditure(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            spent_on=spent_on,
            amount=amount,
            payee=values["payee"],
            today=today(),
            key=f"expenditure:{district_id}:form:{token}",
            administrative=administrative,
            purpose_id=purpose_id,
            description=values["description"],
            reference=values["reference"],
            repeat_confirmed=values["confirm_repeat"] == "yes",
        ),
    ), warning


@bp.route("/<int:district_id>/expenditures", methods=["GET", "POST"])
@require(*READERS)
def expenditures_page(district_id: int) -> Any:
    district = visible_district(district_id)
    values = {name: request.form.get(name, "") for name in _EXPENDITURE_FIELDS}
    # One fiscal year throughout: the one chosen (?fy=, by default as fiscal_year says);
    # after a booking or a refusal, the fiscal year of the expenditure's date.
    fy = fiscal_year(district_id)
    if request.method != "POST":
        return _expenditures_view(district, values, {}, "", fy)
    writer(district)
    form = Form(rename={"purpose": "category"})
    result, refused, warning = _booked(district_id, values, form)
    refusal = ""
    if refused is not None:
        form.errors["amount"] = localized(expenditures.cap_message(refused.figures))
        refusal = cap_text(refused.figures)
        fy = refused.figures.fiscal_year
    if not form.errors:
        spent_on = date_field(values, "date")
        done = form.saved(
            _("Expenditure booked.")
            if result.booked
            else _("This expenditure was already booked; nothing was added."),
            url_for(
                "account.expenditures_page",
                district_id=district_id,
                fy=fiscal_year_of(spent_on).label,
            ),
        )
        if done:
            if warning is not None and result.booked:
                flash(localized(warning), "warning")
            return done
    if "date" not in form.errors:
        with contextlib.suppress(InputError):
            fy = fiscal_year_of(date_field(values, "date"))
    return _expenditures_view(district, values, form.errors, refusal, fy)


@bp.route("/<int:district_id>/purposes", methods=["GET", "POST"])
@require(*READERS)
def purposes(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in ("name", "ordinance_reference")}
    if request.method == "POST":
        writer(district)
        form = Form()
        form.write(
            lambda: expenditures.add_purpose(
                session=db,
                actor=me().actor,
                district_id=district_id,
                name=values["name"],
                ordinance_reference=values["ordinance_reference"],
            )
        )
        done = form.saved(
            _("Purpose recorded."), url_for("account.purposes", district_id=district_id)
        )
        if done:
            return done
        errors = form.errors
    return render_template(
        "account/purposes.html",
        district=district,
        purposes=expenditures.purposes(session=db, district_id=district_id),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/purposes/<int:purpose_id>/active", methods=["POST"])
@require(*WRITERS)
def purpose_active(district_id: int, purpose_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    db = get_session()
    if not account_pages.is_district_purpose(
        session=db, district_id=district_id, purpose_id=purpose_id
    ):
        abort(404)
    active = request.form.get("active") == "1"
    expenditures.set_purpose_active(
        session=db,
        actor=me().actor,
        purpose_id=purpose_id,
        active=active,
    )
    db.commit()
    flash(_("Purpose reactivated.") if active else _("Purpose retired."))
    return redirect(url_for("account.purposes", district_id=district_id))
