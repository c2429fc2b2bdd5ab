"""Payments: booked by hand (a form with its one-time token, applied to the bills it pays)
or from the bank's deposit file, and the latest ones booked."""

from __future__ import annotations

import secrets
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import day, localized, money, say
from tid.models import District
from tid.rules.errors import FindingsError, InputError
from tid.services import ledger
from tid.services.account import payments
from tid.services.audit_trail import record_names
from tid.services.paging import FIRST_ROWS
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import (
    date_field,
    fiscal_year,
    form_token,
    keep_token,
    money_field,
    writer,
)
from tid.web.account.kept import kept_content
from tid.web.forms import Form
from tid.web.util import today

_PAYMENT_FIELDS = (
    "date",
    "amount",
    "reference",
    "notice_number",
    "cadastral_number",
    "token",
    "confirm_repeat",
)


def _words(exc: InputError) -> dict[str, str]:
    """A refusal beside its field; a repeated payment names the one booked before."""
    if isinstance(exc, payments.RepeatedPaymentError):
        earlier = exc.earlier
        figures = {
            "amount": money(earlier.amount),
            "day": day(earlier.entry_date),
            "paid": ", ".join(earlier.paid) or "—",
            "who": earlier.booked_by,
            "booked": day(earlier.booked_at.date()),
        }
        if not earlier.reference:
            return {
                exc.field: _(
                    "A payment of %(amount)s dated %(day)s is already booked on the same bills "
                    "(paying %(paid)s; booked by %(who)s on %(booked)s). If this is another "
                    "payment, confirm it below to book it too.",
                    **figures,
                )
            }
        return {
            exc.field: _(
                "A payment of %(amount)s dated %(day)s with the bank reference %(reference)s "
                "is already booked (paying %(paid)s; booked by %(who)s on %(booked)s). If this "
                "is another payment, confirm it below to book it too.",
                reference=earlier.reference,
                **figures,
            )
        }
    findings = exc.findings if isinstance(exc, FindingsError) else [exc]
    words: dict[str, str] = {}
    for finding in findings:
        words.setdefault(finding.field, say(finding.message))
    return words


def _said(result: payments.PaymentResult) -> None:
    """What a booking did, said: booked (and applied bill by bill, any excess held as the
    owner's credit) or found already booked."""
    if not result.booked:
        flash(_("This payment was already booked; nothing was added."), "warning")
        return
    flash(_("Payment booked."))
    names = record_names.bill_names(
        session=get_session(), bill_ids=[a.bill_id for a in result.applied]
    )
    for application in result.applied:
        flash(
            _(
                "%(amount)s applied to bill %(bill)s; %(left)s still owed on it.",
                amount=money(application.applied),
                bill=localized(names.get(application.bill_id, "")),
                left=money(application.outstanding_after),
            )
        )
    if result.credit:
        flash(
            _(
                "%(amount)s more than was owed: held as the owner's credit.",
                amount=money(result.credit),
            ),
            "warning",
        )


def _booked(district_id: int, values: dict[str, str]) -> tuple[Form, Any]:
    """The form read field by field, every error at once, then booked or refused whole."""
    form = Form(words=_words)
    amount = form.read(lambda: money_field(values, "amount"))
    paid_on = form.read(lambda: date_field(values, "date"))
    token = form.read(lambda: form_token(values))
    if form.errors or amount is None or paid_on is None or token is None:
        form.add(
            payments.payment_problems(
                paid_on=paid_on,
                amount=amount,
                today=today(),
                notice_number=values["notice_number"],
                cadastral_number=values["cadastral_number"],
            )
        )
        return form, None
    result = form.write(
        lambda: payments.record_payment(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            paid_on=paid_on,
            amount=amount,
            today=today(),
            key=payments.form_key(district_id, token),
            reference=values["reference"],
            notice_number=values["notice_number"],
            cadastral_number=values["cadastral_number"],
            repeat_confirmed=values["confirm_repeat"] == "yes",
        )
    )
    return form, result


@bp.route("/<int:district_id>/payments", methods=["GET", "POST"])
@require(*READERS)
def payments_page(district_id: int) -> Any:
    district = visible_district(district_id)
    errors: dict[str, str] = {}
    values = {name: request.form.get(name, "") for name in _PAYMENT_FIELDS}
    if request.method == "POST":
        writer(district)
        form, result = _booked(district_id, values)
        errors = form.errors
        if not errors:
            get_session().commit()
            _said(result)
            return redirect(url_for("account.payments_page", district_id=district_id))
    keep_token(values)
    if not values["date"]:
        values["date"] = today().isoformat()
    may_write = may_write_district(district)
    return render_template(
        "account/payments.html",
        district=district,
        values=values,
        errors=errors,
        body=_latest(district, may_write),
        may_write=may_write,
        import_errors=[],
    ), (422 if errors else 200)


def _latest(district: District, may_write: bool) -> Markup:
    """The fiscal year's latest payments (kept per version of the district's figures)."""
    district_id = district.id or 0
    fy = fiscal_year(district_id)

    def make() -> Markup:
        rows = ledger.journal_page(
            session=get_session(),
            district_id=district_id,
            since=fy.start,
            until=fy.end,
            kinds=("payment", "reversal"),
            newest_first=True,
            counted=False,
            per_page=FIRST_ROWS,  # the latest; the journal has them all
        ).rows
        return _body(district, rows, may_write)

    return kept_content(district_id=district_id, key=(fy.label,), make=make)


def _body(district: District, rows: list[Any], may_write: bool) -> Markup:
    return Markup(
        render_template(
            "account/_payments_body.html",
            district=district,
            rows=rows,
            shown=FIRST_ROWS,
            may_write=may_write,
        )
    )


def _imported(district_id: int, data: bytes) -> list[dict[str, Any]] | None:
    """The bank's deposit file booked whole (committed, said: None), or its errors by row."""
    db = get_session()
    try:
        result = payments.import_deposits(
            session=db, actor=me().actor, district_id=district_id, data=data, today=today()
        )
    except FindingsError as exc:  # the file's errors row by row: nothing booked
        db.rollback()
        return [{"row": f.row, "field": f.field, "message": say(f.message)} for f in exc.findings]
    except InputError as exc:
        db.rollback()
        return [{"row": None, "field": exc.field, "message": say(exc.message)}]
    db.commit()
    flash(
        _(
            "%(booked)s deposits booked, %(already)s already in the journal.",
            booked=result.booked,
            already=result.already_booked,
        )
    )
    for quote in result.quotes:
        flash(_quote_said(quote))
    return None


def _quote_said(quote: payments.QuoteRow) -> str:
    """What a deposit did to the payoff quote it brought."""
    if quote.settled:
        return str(
            _(
                "Row %(row)s: the payoff quote %(reference)s is settled.",
                row=quote.row,
                reference=quote.reference,
            )
        )
    return str(
        _(
            "Row %(row)s: paid against the payoff quote %(reference)s; %(amount)s remains to "
            "settle it.",
            row=quote.row,
            reference=quote.reference,
            amount=money(quote.remaining),
        )
    )


def _upload_errors() -> tuple[list[dict[str, Any]], bytes]:
    """The uploaded file's bytes, or why there are none to import."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return [{"row": None, "field": "file", "message": _("Choose the bank's file.")}], b""
    data = upload.read(payments.MAX_DEPOSIT_BYTES + 1)
    if len(data) > payments.MAX_DEPOSIT_BYTES:
        return [{"row": None, "field": "file", "message": _("The file is too large.")}], b""
    return [], data


@bp.route("/<int:district_id>/payments/import", methods=["GET", "POST"])
@require(*WRITERS)
def payments_import(district_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    if request.method == "GET":  # a reload of a refused import: the payments page
        return redirect(url_for("account.payments_page", district_id=district_id))
    import_errors, data = _upload_errors()
    if not import_errors:
        refused = _imported(district_id, data)
        if refused is None:
            return redirect(url_for("account.payments_page", district_id=district_id))
        import_errors = refused
    values = {name: "" for name in _PAYMENT_FIELDS}
    values["token"] = secrets.token_urlsafe(16)
    values["date"] = today().isoformat()
    return render_template(
        "account/payments.html",
        district=district,
        values=values,
        errors={},
        body=_body(district, [], True),
        may_write=True,
        import_errors=import_errors,
    ), 422
