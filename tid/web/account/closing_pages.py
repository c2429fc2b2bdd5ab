"""A property's closing on the association's pages: payoff quotes issued good through a day
(each with its reference, its verification code and its archived PDF), a payment booked
against a quote in one entry, and every document issued about the property."""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.app_reader import reader
from tid.db import get_session
from tid.documents import closing
from tid.i18n import language, money
from tid.jobs import tasks
from tid.models import District, IssuedDocument
from tid.rules.errors import InputError
from tid.rules.money import ZERO
from tid.services.closing import issued, payoffs
from tid.services.liens import impost_lien as liens
from tid.web import jobs
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import (
    date_field,
    district_property,
    form_token,
    money_field,
    writer,
)
from tid.web.forms import Form
from tid.web.util import send, today


def _issuer() -> str:
    """Who issues a document, as printed on it: the signed-in person's name."""
    user = me()
    return user.name or user.email


@bp.route("/<int:district_id>/properties/<int:property_id>/payoff", methods=["GET", "POST"])
@require(*READERS)
def property_payoff(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    prop = district_property(district, property_id)
    db = get_session()
    errors: dict[str, str] = {}
    default = payoffs.default_good_through(today()).isoformat()
    values = {"good_through": request.form.get("good_through", default)}
    if request.method == "POST":
        writer(district)
        form = Form({"through": "good_through"})
        through = form.read(lambda: date_field(values, "good_through"))
        quote = None
        if through is not None:
            quote = form.write(lambda: _issue(district, property_id, through))
        done = form.saved(
            _("Payoff quote issued."),
            lambda: url_for(
                "account.issued_document",
                district_id=district_id,
                reference=quote or "",
            ),
        )
        if done:
            return done
        errors = form.errors
    return render_template(
        "account/payoff.html",
        district=district,
        prop=prop,
        values=values,
        errors=errors,
        documents=issued.of_property(session=db, property_id=property_id),
        lien=liens.impost_lien(session=db, prop=prop, today=today()),
        today=today(),
        may_write=may_write_district(district),
    ), (422 if errors else 200)


def _issue(district: District, property_id: int, through: date) -> str:
    """The quote issued and its PDF archived (the document does both): its reference."""
    made = closing.payoff_pdf(
        get_session(),
        district=district.id or 0,
        property=property_id,
        reader=reader(language()),
        through=through,
        issued_by=_issuer(),
        actor=me().actor,
    )
    return made.filename.removesuffix(".pdf")


def _issued(district: District, property_id: int, make: Any, said: str, back: str) -> Any:
    """A document issued by ``make`` (recorded and archived), then its page; refused, back
    to ``back`` saying why."""
    form = Form()
    made = form.write(
        lambda: make(
            get_session(),
            district=district.id or 0,
            property=property_id,
            reader=reader(language()),
            issued_by=_issuer(),
            actor=me().actor,
        )
    )
    if made is None:
        target = url_for(back, district_id=district.id, property_id=property_id)
    else:
        reference = made.filename.removesuffix(".pdf")
        target = url_for("account.issued_document", district_id=district.id, reference=reference)
    return form.flashed(said, target)


def issue_certificate(district: District, property_id: int) -> Any:
    """The certificate of the impost lien issued by a job (laying it out takes seconds): its
    page shows the progress, then links to the certificate issued."""
    job = jobs.start(
        tasks.LIEN_CERTIFICATE,
        params={"district_id": district.id, "property_id": property_id, "issued_by": _issuer()},
        district_id=district.id,
        target=f"lien-certificate:{district.id}:{property_id}",
    )
    return redirect(url_for("jobs.show", job_id=job.id))


@bp.route("/<int:district_id>/properties/<int:property_id>/release", methods=["POST"])
@require(*WRITERS)
def issue_release(district_id: int, property_id: int) -> Any:
    """The release of the impost lien issued (refused while it secures anything)."""
    district = visible_district(district_id)
    writer(district)
    district_property(district, property_id)
    said = _("Release of the impost lien issued.")
    return _issued(district, property_id, closing.release_pdf, said, "account.property_payoff")


_PAYMENT_FIELDS = ("paid_on", "amount", "token")


def _paid(district: District, quote: IssuedDocument, values: dict[str, str]) -> tuple[Form, str]:
    """The payment's form read and booked against the quote, and what to say of it."""
    form = Form()
    paid_on = form.read(lambda: date_field(values, "paid_on"))
    amount = form.read(lambda: money_field(values, "amount"))
    token = form.read(lambda: form_token(values))
    if paid_on is None or amount is None or token is None:
        return form, ""
    done = form.write(
        lambda: payoffs.pay_quote(
            session=get_session(),
            actor=me().actor,
            district_id=district.id or 0,
            reference=quote.reference,
            paid_on=paid_on,
            amount=amount,
            today=today(),
            key=f"payoff:{district.id}:form:{token}",
        )
    )
    if done is None:
        return form, ""
    if done.settled:
        return form, _("Payment booked in one entry: the quote is settled.")
    return form, _(
        "Payment booked in one entry: %(amount)s remains to settle the quote.",
        amount=money(done.remaining),
    )


@bp.route("/<int:district_id>/issued/<reference>", methods=["GET", "POST"])
@require(*READERS)
def issued_document(district_id: int, reference: str) -> Any:
    district = visible_district(district_id)
    db = get_session()
    document = issued.by_reference(session=db, district_id=district_id, reference=reference)
    if document is None:
        abort(404)
    prop = district_property(district, document.property_id)
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in _PAYMENT_FIELDS}
    if request.method == "POST":
        writer(district)
        form, said = _paid(district, document, values)
        target = url_for("account.issued_document", district_id=district_id, reference=reference)
        done = form.saved(said, target)
        if done:
            return done
        errors = form.errors
    else:
        values = {
            "paid_on": today().isoformat(),
            "amount": str(max(document.total - document.paid, ZERO)),
            "token": secrets.token_urlsafe(16),
        }
    return render_template(
        "account/issued.html",
        district=district,
        **closing.context(reader(language()), document, prop),
        expired=payoffs.expired(document, today()),
        remaining=max(document.total - document.paid, ZERO),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/issued/<reference>.pdf")
@require(*READERS)
def issued_pdf(district_id: int, reference: str) -> Any:
    visible_district(district_id)
    try:
        document = closing.issued_pdf(get_session(), district=district_id, reference=reference)
    except InputError:
        abort(404)
    return send(document, inline=True)
